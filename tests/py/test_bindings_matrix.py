"""Every binding reads back what every binding wrote: the bands program in C, C++, Fortran
and Python (examples/bands) writes on 2 ranks and is read by each version on 3 ranks (another
decomposition), through the collective engine (a NetCDF file) and the subfile engine (a
dataset). Each reader checks every value and attribute itself."""
import sys

import pytest

from conftest import BUILD, ROOT, mpirun

LANGUAGES = ["c", "cpp", "fortran", "python"]
ENGINES = ["collective", "subfile"]


def program(language):
    if language == "python":
        return [sys.executable, ROOT / "examples" / "bands" / "bands.py"]
    name = {"c": "bands", "cpp": "bands_cpp", "fortran": "bands_f"}[language]
    exe = BUILD / "examples" / name
    if not exe.exists():
        pytest.fail(f"{exe} was not built (for Fortran: install gfortran, then `make build`)")
    return [exe]


@pytest.fixture(scope="module")
def written(tmp_path_factory, python_binding):
    """(engine, writer language) -> the path that writer wrote."""
    out = tmp_path_factory.mktemp("matrix")
    paths = {}
    for engine in ENGINES:
        for language in LANGUAGES:
            path = out / (f"bands_{language}.nc" if engine == "collective" else f"bands_{language}")
            stdout = mpirun(2, *program(language), "write", path, engine)
            assert ": ok" in stdout, stdout
            paths[engine, language] = path
    return paths


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("writer", LANGUAGES)
@pytest.mark.parametrize("reader", LANGUAGES)
def test_reader_reads_what_writer_wrote(written, engine, writer, reader):
    stdout = mpirun(3, *program(reader), "read", written[engine, writer], engine)
    assert ": ok" in stdout and "WRONG" not in stdout, stdout
