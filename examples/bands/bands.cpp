// bands in C++ (tapio.hpp): the program of bands.c — write a file, or read one that the C,
// C++, Fortran or Python version wrote and check every value.
//   mpiexec -n N bands_cpp write|read PATH [ENGINE]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "tapio/tapio.hpp"

namespace {

constexpr uint64_t kNy = 8, kNx = 6, kCells = 12, kSteps = 3;
int rank, size;

// This rank's part [first, first + n) of total.
std::pair<uint64_t, uint64_t> band(uint64_t total) {
  const uint64_t first = total * rank / size;
  return {first, total * (rank + 1) / size - first};
}

// The cells this rank owns: descending when writing, ascending when reading.
std::vector<uint64_t> my_cells(bool descending) {
  std::vector<uint64_t> cells;
  for (uint64_t g = 0; g < kCells; ++g)
    if (static_cast<int>(g % size) == rank) cells.push_back(g);
  if (descending) std::reverse(cells.begin(), cells.end());
  return cells;
}

void write_file(tapio::Context& ctx, const std::string& path, const std::string& engine) {
  tapio::IO io = ctx.declare_io("bands");
  io.set_engine(engine);
  io.define_attribute("title", std::string("tapio bands"));
  tapio::Variable t = io.define_variable<double>("t", {kNy, kNx}, {"y", "x"});
  io.define_attribute("units", std::string("K"), "t");
  tapio::Variable c = io.define_variable<int32_t>("cells", {kCells}, {"cell"});
  const auto [r0, nr] = band(kNy);
  const std::vector<uint64_t> cells = my_cells(true);
  std::vector<double> rows(nr * kNx);
  std::vector<int32_t> values(cells.size());
  tapio::Engine out = io.open(path, TAPIO_MODE_WRITE);
  for (uint64_t s = 0; s < kSteps; ++s) {
    out.begin_step();
    for (uint64_t i = 0; i < rows.size(); ++i) rows[i] = 1000.0 * s + double(r0 * kNx + i);
    for (size_t i = 0; i < cells.size(); ++i) values[i] = int32_t(100 * s + cells[i]);
    t.set_selection({r0, 0}, {nr, kNx});
    out.put(t, rows);  // deferred: rows must not change before end_step
    c.set_offsets(cells);
    out.put(c, values);
    out.end_step();
  }
  out.close();
}

long read_file(tapio::Context& ctx, const std::string& path, const std::string& engine) {
  tapio::IO io = ctx.declare_io("bands");
  io.set_engine(engine);
  tapio::Engine in = io.open(path, TAPIO_MODE_READ);
  long bad = io.read_string_attribute("title") != "tapio bands";
  bad += io.read_string_attribute("units", "t") != "K";
  tapio::Variable t = io.inquire_variable("t");
  tapio::Variable c = io.inquire_variable("cells");
  const auto [c0, nc] = band(kNx);
  const std::vector<uint64_t> cells = my_cells(false);
  t.set_selection({0, c0}, {kNy, nc});
  c.set_offsets(cells);
  std::vector<double> cols(kNy * nc);
  std::vector<int32_t> values(cells.size());
  for (tapio_step_status st; (st = in.begin_step()) != TAPIO_STEP_END_OF_STREAM;) {
    if (st == TAPIO_STEP_NOT_READY) continue;  // a subfile writer has not committed it yet
    if (st == TAPIO_STEP_WRITER_GONE) {        // its writer was killed: in.steps() committed
      std::fprintf(stderr, "rank %d: the writer did not close the file\n", rank);
      ++bad;
      break;
    }
    const uint64_t s = in.current_step();
    in.get(t, cols);
    in.get(c, values);
    in.end_step();
    for (uint64_t j = 0; j < kNy; ++j)
      for (uint64_t i = 0; i < nc; ++i) bad += cols[j * nc + i] != 1000.0 * s + j * kNx + c0 + i;
    for (size_t i = 0; i < cells.size(); ++i) bad += values[i] != int32_t(100 * s + cells[i]);
  }
  bad += in.steps() != kSteps;
  in.close();
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string mode = argc > 2 ? argv[1] : "";
  if (mode != "write" && mode != "read") {
    if (rank == 0) std::fprintf(stderr, "usage: bands_cpp write|read PATH [ENGINE]\n");
    MPI_Finalize();
    return 2;
  }
  const std::string engine = argc > 3 ? argv[3] : "";
  long bad = 0;
  try {
    tapio::Context ctx(MPI_COMM_WORLD);  // finalized at the end of this block
    if (mode == "write") {
      write_file(ctx, argv[2], engine);
    } else {
      bad = read_file(ctx, argv[2], engine);
    }
  } catch (const tapio::Error& e) {
    std::fprintf(stderr, "bands_cpp: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("bands (C++): %s %s: %s\n", mode.c_str(), argv[2], bad ? "WRONG VALUES" : "ok");
  MPI_Finalize();
  return bad != 0;
}
