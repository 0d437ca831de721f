#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

namespace tapio::test {

int rank() {
  int r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int size() {
  int s;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

TempDir::TempDir() {
  char buf[4096] = {0};
  if (rank() == 0) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/tapio_test_XXXXXX";
    std::snprintf(buf, sizeof buf, "%s", tmpl.c_str());
    if (!mkdtemp(buf)) buf[0] = 0;
  }
  MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, MPI_COMM_WORLD);
  path_ = buf;
}

TempDir::~TempDir() {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0 && !path_.empty()) std::filesystem::remove_all(path_);
}

void split(uint64_t n, int parts, int p, uint64_t* start, uint64_t* count) {
  *start = n * p / parts;
  *count = n * (p + 1) / parts - *start;
}

ElementRuns element_runs(uint64_t n, const std::function<bool(uint64_t)>& mine) {
  ElementRuns r;
  for (uint64_t g = 0; g < n; ++g) {
    if (!mine(g)) continue;
    if (!r.offsets.empty() && r.offsets.back() + r.lengths.back() == g)
      ++r.lengths.back();
    else
      r.offsets.push_back(g), r.lengths.push_back(1);
    r.elements.push_back(g);
  }
  return r;
}

void write_run_steps(Engine& out, std::vector<Variable>& vars, uint64_t steps,
                     const std::function<ElementRuns(int var, uint64_t step)>& runs_of) {
  std::vector<std::vector<double>> data(vars.size());  // each held until its step ends
  for (uint64_t s = 0; s < steps; ++s) {
    out.begin_step();
    for (size_t v = 0; v < vars.size(); ++v) {
      const ElementRuns r = runs_of(static_cast<int>(v), s);
      data[v].clear();
      for (uint64_t g : r.elements) data[v].push_back(value(static_cast<int>(v), s, g));
      vars[v].set_runs(r.offsets, r.lengths);
      out.put(vars[v], data[v]);
    }
    out.end_step();
  }
}

std::vector<uint64_t> box_indices(const Dims& shape, const Dims& start, const Dims& count) {
  std::vector<uint64_t> out;
  uint64_t n = 1;
  for (auto c : count) n *= c;
  out.reserve(n);
  if (n == 0) return out;
  const size_t nd = shape.size();
  std::vector<uint64_t> idx(nd, 0);
  while (true) {
    uint64_t g = 0;
    for (size_t d = 0; d < nd; ++d) g = g * shape[d] + start[d] + idx[d];
    out.push_back(g);
    size_t d = nd;
    while (d > 0) {
      --d;
      if (++idx[d] < count[d]) break;
      idx[d] = 0;
      if (d == 0) return out;
    }
    if (nd == 0) return out;
  }
}

Outcome outcome(int code) { return Outcome{code, code == TAPIO_OK ? "" : tapio_last_error()}; }

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

Dims block_start(uint64_t per_rank) { return {per_rank * static_cast<uint64_t>(rank())}; }

std::vector<double> block_values(uint64_t per_rank, uint64_t step) {
  std::vector<double> v(per_rank);
  const uint64_t start = block_start(per_rank)[0];
  for (uint64_t i = 0; i < per_rank; ++i) v[i] = value(0, step, start + i);
  return v;
}

void expect_block_steps(const std::string& engine, const std::string& path, uint64_t per_rank,
                        uint64_t steps, const std::string& what) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("check");
  io.set_engine(engine);
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), steps) << what;
  Variable x = io.inquire_variable("x");
  x.set_selection(block_start(per_rank), {per_rank});
  std::vector<double> got(per_rank);
  for (uint64_t s = 0; s < steps; ++s) {
    in.begin_step();
    in.get(x, got);
    in.end_step();
    ASSERT_EQ(got, block_values(per_rank, s)) << what << ", step " << s;
  }
  in.close();
}

void expect_same_everywhere(int code) {
  int lo = code, hi = code;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(lo, hi) << "ranks disagree on the status of a collective call";
}

}  // namespace tapio::test
