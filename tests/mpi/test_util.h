// Helpers shared by the MPI tests.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tapio/tapio.hpp"

namespace tapio::test {

int rank();
int size();

// A fresh directory for this test, the same path on every rank (collective); removed with
// its files when the object goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The benchmark contract's value: element g of variable v at step s.
inline double value(int v, uint64_t s, uint64_t g) {
  return static_cast<double>(g) + v / 4.0 + static_cast<double>(s) * 1048576.0;
}

// Split n into `parts` nearly equal pieces; piece p is [start, start + count).
void split(uint64_t n, int parts, int p, uint64_t* start, uint64_t* count);

// The global linear indices (C order) of a box of `shape`.
std::vector<uint64_t> box_indices(const Dims& shape, const Dims& start, const Dims& count);

// The elements g in [0, n) for which mine(g) holds, as runs (offsets and lengths, touching
// elements merged) and one by one in the same order: an irregular map as PIO's callers give it.
struct ElementRuns {
  std::vector<uint64_t> offsets, lengths, elements;
};
ElementRuns element_runs(uint64_t n, const std::function<bool(uint64_t)>& mine);

// Writes `steps` steps into `out`: in each, variable v puts the runs runs_of(v, step), its
// elements g holding value(v, step, g).
void write_run_steps(Engine& out, std::vector<Variable>& vars, uint64_t steps,
                     const std::function<ElementRuns(int var, uint64_t step)>& runs_of);

// Call the C API and return its status and message (for error tests).
struct Outcome {
  int code;
  std::string message;
};
Outcome outcome(int code);

bool contains(const std::string& s, const std::string& part);

// The outcome of a call of the C++ API: OK, or the error's code and message.
template <typename F>
Outcome attempt(F&& call) {
  try {
    call();
  } catch (const Error& e) {
    return Outcome{e.code(), e.what()};
  }
  return Outcome{TAPIO_OK, ""};
}

// This rank's block of a 1-D variable of `per_rank` elements per rank: where it starts, and
// its values at `step` (element g holds value(0, step, g)).
Dims block_start(uint64_t per_rank);
std::vector<double> block_values(uint64_t per_rank, uint64_t step);
// Collective: the file at `path` holds exactly `steps` steps of a 1-D double variable "x",
// each rank's block holding block_values (asserted, `what` naming the case).
void expect_block_steps(const std::string& engine, const std::string& path, uint64_t per_rank,
                        uint64_t steps, const std::string& what);

// Collective: every rank saw the same status code.
void expect_same_everywhere(int code);

}  // namespace tapio::test
