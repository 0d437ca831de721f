// tapio: inspect NetCDF classic files (CDF-1, CDF-2, CDF-5), whoever wrote them, and tapio
// datasets (subfile engine directories); convert datasets to NetCDF.
//   tapio ls PATH [--json]
//   tapio dump PATH VAR [--step S] [--start a,b,..] [--count a,b,..] [--json]
//   [mpiexec -n N] tapio convert DATASET OUT.nc [--engine E]
//   tapio --version
// NetCDF files are read directly, without MPI; datasets and convert go through the tapio API
// (MPI is started on demand, so one rank needs no mpiexec).
// Exit codes: 0 ok, 1 error (message on stderr), 2 bad command line.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "commands.h"
#include "mpi_session.h"

namespace tapio::cli {

int fail(const std::string& message) {
  std::fflush(stdout);
  if (!is_root()) return 1;
  std::fprintf(stderr, "tapio: %s\n", message.c_str());
  return 1;
}

namespace {

void add_ls(CLI::App& app, LsOptions& o) {
  CLI::App* ls = app.add_subcommand("ls", "List dimensions, attributes and variables");
  ls->add_option("PATH", o.path, "NetCDF file or tapio dataset directory")->required();
  ls->add_flag("--json", o.json, "Print as JSON");
}

void add_dump(CLI::App& app, DumpOptions& o) {
  CLI::App* dump = app.add_subcommand("dump", "Print the values of a variable");
  dump->add_option("PATH", o.path, "NetCDF file or tapio dataset directory")->required();
  dump->add_option("VAR", o.var, "Variable name")->required();
  dump->add_option("--step", o.step, "Record (0-based) of a record variable; default: all");
  dump->add_option("--start", o.start, "First index per dimension, comma-separated, without "
                   "the record dimension");
  dump->add_option("--count", o.count, "Elements per dimension, comma-separated, without the "
                   "record dimension; default: to the end");
  dump->add_flag("--json", o.json, "Print as JSON");
}

void add_convert(CLI::App& app, ConvertOptions& o) {
  CLI::App* convert = app.add_subcommand(
      "convert", "Convert a tapio dataset to a NetCDF CDF-5 file (parallel under mpiexec)");
  convert->add_option("DATASET", o.input, "tapio dataset directory (subfile engine)")->required();
  convert->add_option("OUT", o.output, "NetCDF file to write")->required();
  convert->add_option("--engine", o.engine, "Engine that writes OUT (a config rule overrides "
                      "it)")->capture_default_str();
}

int run(int argc, char** argv) {
  CLI::App app{"Inspect NetCDF classic files (CDF-1, CDF-2, CDF-5) and tapio datasets; convert "
               "datasets to NetCDF", "tapio"};
  app.set_version_flag("--version", "tapio " TAPIO_VERSION);
  app.require_subcommand(1);
  LsOptions ls;
  DumpOptions dump;
  ConvertOptions convert;
  add_ls(app, ls);
  add_dump(app, dump);
  add_convert(app, convert);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (app.got_subcommand("ls")) return run_ls(ls);
  if (app.got_subcommand("convert")) return run_convert(convert);
  return run_dump(dump);
}

}  // namespace
}  // namespace tapio::cli

int main(int argc, char** argv) {
  int code = 0;
  try {
    code = tapio::cli::run(argc, argv);
  } catch (const std::exception& e) {
    code = tapio::cli::fail(std::string("internal error: ") + e.what());
  }
  std::fflush(stdout);
  tapio::cli::finish_mpi();
  return code;
}
