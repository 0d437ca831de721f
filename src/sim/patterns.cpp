#include "sim/patterns.h"

#include <cstdio>

#include "sim/e3sm.h"

namespace tapio::sim {
namespace {

uint64_t part_start(uint64_t n, uint64_t parts, uint64_t p) { return n * p / parts; }
uint64_t part_count(uint64_t n, uint64_t parts, uint64_t p) {
  return n * (p + 1) / parts - n * p / parts;
}

// seed 000's ocean history: 3-D (depth x lat x lon) and 2-D (lat x lon), one block of a 2-D
// process grid over (lat, lon) per rank.
class Licom final : public Pattern {
 public:
  Licom(const PatternOptions& o, uint64_t nx, uint64_t ny, uint64_t nz, int ranks)
      : Pattern(ranks, o.steps ? o.steps : 3), nx_(nx), ny_(ny), nz_(nz), vars3d_(o.vars3d) {
    balanced_grid(ranks, &prow_, &pcol_);
    for (uint64_t v = 0; v < o.vars3d; ++v)
      add_var("var3d_" + std::to_string(v), {nz, ny, nx}, {"depth", "lat", "lon"});
    for (uint64_t v = 0; v < o.vars2d; ++v)
      add_var("var2d_" + std::to_string(v), {ny, nx}, {"lat", "lon"});
  }
  void for_each_put(int rank, const Put& put) const override {
    const uint64_t pr = static_cast<uint64_t>(rank / pcol_), pc = static_cast<uint64_t>(rank % pcol_);
    const uint64_t r0 = part_start(ny_, prow_, pr), nr = part_count(ny_, prow_, pr);
    const uint64_t c0 = part_start(nx_, pcol_, pc), nc = part_count(nx_, pcol_, pc);
    if (nr == 0 || nc == 0) return;
    const auto n = static_cast<int>(io().vars.size());
    for (int v = 0; v < n; ++v)
      put(v, static_cast<uint64_t>(v) < vars3d_ ? plan::Selection::box({0, r0, c0}, {nz_, nr, nc})
                                                : plan::Selection::box({r0, c0}, {nr, nc}),
          static_cast<uint64_t>(v) < vars3d_ ? 0 : 1);
  }

 private:
  uint64_t nx_, ny_, nz_, vars3d_;
  int prow_ = 1, pcol_ = 1;
};

// HPIO's regions: region i of rank r in slot i*P + r (noncontig) or back to back per rank.
class Hpio final : public Pattern {
 public:
  Hpio(const PatternOptions& o, int ranks) : Pattern(ranks, o.steps ? o.steps : 1), o_(o) {
    const uint64_t n = o.size / 8, gap = o.spacing / 8, P = static_cast<uint64_t>(ranks);
    add_var("hpio", {o.file == "noncontig" ? o.count * P * (n + gap) : o.count * P * n}, {"x"});
  }
  void for_each_put(int rank, const Put& put) const override {
    const uint64_t n = o_.size / 8, gap = o_.spacing / 8, P = static_cast<uint64_t>(ranks());
    const uint64_t r = static_cast<uint64_t>(rank);
    std::vector<plan::Run> runs(o_.count);
    for (uint64_t i = 0; i < o_.count; ++i)
      runs[i] = plan::Run{o_.file == "noncontig" ? (i * P + r) * (n + gap) : (r * o_.count + i) * n, n};
    put(0, plan::Selection::from_runs(std::move(runs)), -1);
  }

 private:
  PatternOptions o_;
};

// seed 003's matrix, by bands of columns (block) or blocks of nb columns dealt round-robin.
class Matrix final : public Pattern {
 public:
  Matrix(const PatternOptions& o, int ranks) : Pattern(ranks, o.steps ? o.steps : 1), o_(o) {
    add_var("matrix", {o.rows, o.cols}, {"row", "col"});
  }
  void for_each_put(int rank, const Put& put) const override {
    const uint64_t P = static_cast<uint64_t>(ranks()), r = static_cast<uint64_t>(rank);
    if (o_.dist == "block") {
      const uint64_t c0 = part_start(o_.cols, P, r), nc = part_count(o_.cols, P, r);
      if (nc) put(0, plan::Selection::box({0, c0}, {o_.rows, nc}), -1);
      return;
    }
    std::vector<plan::Run> runs;
    const uint64_t nblocks = (o_.cols + o_.nb - 1) / o_.nb;
    for (uint64_t row = 0; row < o_.rows; ++row)
      for (uint64_t b = r; b < nblocks; b += P)
        runs.push_back(plan::Run{row * o_.cols + b * o_.nb, std::min(o_.nb, o_.cols - b * o_.nb)});
    if (!runs.empty()) put(0, plan::Selection::from_runs(std::move(runs)), -1);
  }

 private:
  PatternOptions o_;
};

// PerfMetaData-like: many 1-D variables, `blocks` small blocks per rank each its own put.
class Metadata final : public Pattern {
 public:
  Metadata(const PatternOptions& o, int ranks) : Pattern(ranks, o.steps ? o.steps : 10), o_(o) {
    const uint64_t P = static_cast<uint64_t>(ranks);
    for (uint64_t v = 0; v < o.vars; ++v)
      add_var("v" + std::to_string(v), {P * o.blocks * o.block_elements}, {"n"});
  }
  void for_each_put(int rank, const Put& put) const override {
    const uint64_t P = static_cast<uint64_t>(ranks()), E = o_.block_elements;
    for (int v = 0; v < static_cast<int>(o_.vars); ++v)
      for (uint64_t b = 0; b < o_.blocks; ++b)
        put(v, plan::Selection::box({(b * P + static_cast<uint64_t>(rank)) * E}, {E}),
            static_cast<int>(b));
  }

 private:
  PatternOptions o_;
};

}  // namespace

void Pattern::add_var(std::string name, std::vector<uint64_t> shape,
                      std::vector<std::string> dims) {
  VariableDef v;
  v.name = std::move(name);
  v.type = TAPIO_FLOAT64;
  v.shape = std::move(shape);
  v.dim_names = std::move(dims);
  v.record = true;
  io_.vars.push_back(std::move(v));
}

void balanced_grid(int n, int* rows, int* cols) {
  // The factor pair closest to sqrt(n), larger first, as MPI_Dims_create gives for 2 dims.
  int c = 1;
  for (int d = 1; static_cast<int64_t>(d) * d <= n; ++d)
    if (n % d == 0) c = d;
  *rows = n / c;
  *cols = c;
}

Result<std::unique_ptr<Pattern>> make_pattern(const PatternOptions& o, int ranks) {
  if (o.name == "licom") {
    unsigned long long nx = 0, ny = 0, nz = 0;
    char tail;
    if (std::sscanf(o.grid.c_str(), "%llux%llux%llu%c", &nx, &ny, &nz, &tail) != 3 || !nx || !ny || !nz)
      return error(TAPIO_ERR_CONFIG, "pattern.grid must be NXxNYxNZ with positive sizes (got '{}')",
                   o.grid);
    if (o.vars3d + o.vars2d == 0) return error(TAPIO_ERR_CONFIG, "licom needs at least one variable");
    return std::unique_ptr<Pattern>(new Licom(o, nx, ny, nz, ranks));
  }
  if (o.name == "hpio") {
    if (o.size % 8 || o.spacing % 8)
      return error(TAPIO_ERR_CONFIG, "hpio: pattern.size and pattern.spacing must be multiples of 8");
    return std::unique_ptr<Pattern>(new Hpio(o, ranks));
  }
  if (o.name == "matrix") return std::unique_ptr<Pattern>(new Matrix(o, ranks));
  if (o.name == "metadata") return std::unique_ptr<Pattern>(new Metadata(o, ranks));
  return make_e3sm(o, ranks);
}

}  // namespace tapio::sim
