// The benchmark patterns' decompositions, defined once: the variables of a pattern and each
// rank's part of them, for any rank count. tapio-bench (bench/patterns) writes these parts with
// its data and methods; `tapio sim` (src/sim/patterns.cpp) feeds them to its traffic model.
// Pure: no MPI, no I/O. Every variable is a double record variable, the same every step.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plan/selection.h"

namespace tapio::workload {

struct Var {
  std::string name;
  std::vector<uint64_t> shape;     // without the record dimension
  std::vector<std::string> dims;   // a name per dimension
};

struct Box {
  std::vector<uint64_t> start, count;
  uint64_t elements() const;
};

// A rank's part of one variable in one step: boxes (each written as its own put or block) or
// runs of the flattened variable, ascending, exactly as the pattern makes them: runs that touch
// are not merged (tapio-bench hands them to the peer libraries one by one).
struct Part {
  std::vector<Box> boxes;
  std::vector<plan::Run> runs;
};

// A pattern at a rank count. A rank's part of a variable depends only on the variable's shape,
// so variables of one shape share a part (the simulator describes it once).
class Pattern {
 public:
  virtual ~Pattern() = default;
  int ranks() const { return ranks_; }
  const std::vector<Var>& vars() const { return vars_; }
  virtual Part part(int rank, int var) const = 0;

 protected:
  explicit Pattern(int ranks) : ranks_(ranks) {}
  std::vector<Var> vars_;

 private:
  int ranks_;
};

// licom: seed 000's ocean history. `vars3d` depth x lat x lon variables, then `vars2d` lat x
// lon ones; each rank owns one block of a 2-D process grid over (lat, lon), every depth.
struct LicomOptions {
  uint64_t nx = 0, ny = 0, nz = 0;  // lon, lat, depth points
  uint64_t vars3d = 0, vars2d = 0;
};
// "NXxNYxNZ" with positive sizes into nx, ny, nz; false when it is not that.
bool parse_licom_grid(const std::string& text, LicomOptions* o);
std::unique_ptr<Pattern> licom(const LicomOptions& o, int ranks);
// The process grid of licom over n ranks: rows (over lat) x cols (over lon), what Open MPI's
// MPI_Dims_create(n, 2) gives, computed without MPI so it is the same under any MPI.
void process_grid(int n, int* rows, int* cols);

// hpio: HPIO's regions. One 1-D variable; each rank has `count` regions of `size` bytes, in
// the variable region i of rank r is slot i*P + r with `spacing` bytes after each slot
// (noncontig) or the rank's regions are back to back (contig). Sizes are multiples of 8.
struct HpioOptions {
  uint64_t count = 0, size = 0, spacing = 0;
  bool file_noncontig = true;
};
std::unique_ptr<Pattern> hpio(const HpioOptions& o, int ranks);

// matrix: seed 003 case IV, a rows x cols matrix by columns: one band per rank (block, a box)
// or blocks of nb columns dealt round-robin (cyclic, one run per row and block).
struct MatrixOptions {
  uint64_t rows = 0, cols = 0, nb = 0;
  bool cyclic = false;
};
std::unique_ptr<Pattern> matrix(const MatrixOptions& o, int ranks);

// metadata: PerfMetaData-like, `vars` 1-D variables; block b of rank r in every variable is
// elements [(b*P + r)*E, (b*P + r + 1)*E), each block its own box.
struct MetadataOptions {
  uint64_t vars = 0, blocks = 0, block_elements = 0;
};
std::unique_ptr<Pattern> metadata(const MetadataOptions& o, int ranks);

}  // namespace tapio::workload
