#include "workload/patterns.h"

#include <algorithm>
#include <cstdio>

namespace tapio::workload {
namespace {

// Part p of n elements split over `parts`: [n*p/parts, n*(p+1)/parts).
uint64_t part_start(uint64_t n, uint64_t parts, uint64_t p) { return n * p / parts; }
uint64_t part_count(uint64_t n, uint64_t parts, uint64_t p) {
  return part_start(n, parts, p + 1) - part_start(n, parts, p);
}

class Licom final : public Pattern {
 public:
  Licom(const LicomOptions& o, int ranks) : Pattern(ranks), o_(o) {
    process_grid(ranks, &prow_, &pcol_);
    for (uint64_t v = 0; v < o.vars3d; ++v)
      vars_.push_back({"var3d_" + std::to_string(v), {o.nz, o.ny, o.nx}, {"depth", "lat", "lon"}});
    for (uint64_t v = 0; v < o.vars2d; ++v)
      vars_.push_back({"var2d_" + std::to_string(v), {o.ny, o.nx}, {"lat", "lon"}});
  }
  Part part(int rank, int var) const override {
    const uint64_t pr = static_cast<uint64_t>(rank / pcol_), pc = static_cast<uint64_t>(rank % pcol_);
    const uint64_t r0 = part_start(o_.ny, prow_, pr), nr = part_count(o_.ny, prow_, pr);
    const uint64_t c0 = part_start(o_.nx, pcol_, pc), nc = part_count(o_.nx, pcol_, pc);
    if (static_cast<uint64_t>(var) < o_.vars3d) return Part{{Box{{0, r0, c0}, {o_.nz, nr, nc}}}, {}};
    return Part{{Box{{r0, c0}, {nr, nc}}}, {}};
  }

 private:
  LicomOptions o_;
  int prow_ = 1, pcol_ = 1;
};

class Hpio final : public Pattern {
 public:
  Hpio(const HpioOptions& o, int ranks) : Pattern(ranks), o_(o) {
    const uint64_t P = static_cast<uint64_t>(ranks);
    vars_.push_back({"hpio", {o.count * P * (o.file_noncontig ? slot() : o.size / 8)}, {"x"}});
  }
  Part part(int rank, int) const override {
    const uint64_t n = o_.size / 8, P = static_cast<uint64_t>(ranks()), r = static_cast<uint64_t>(rank);
    Part p;
    for (uint64_t i = 0; i < o_.count; ++i)
      p.runs.push_back(plan::Run{o_.file_noncontig ? (i * P + r) * slot() : (r * o_.count + i) * n, n});
    return p;
  }

 private:
  uint64_t slot() const { return o_.size / 8 + o_.spacing / 8; }  // a region and its gap
  HpioOptions o_;
};

class Matrix final : public Pattern {
 public:
  Matrix(const MatrixOptions& o, int ranks) : Pattern(ranks), o_(o) {
    vars_.push_back({"matrix", {o.rows, o.cols}, {"row", "col"}});
  }
  Part part(int rank, int) const override {
    const uint64_t P = static_cast<uint64_t>(ranks()), r = static_cast<uint64_t>(rank);
    Part p;
    if (!o_.cyclic) {
      p.boxes.push_back(Box{{0, part_start(o_.cols, P, r)}, {o_.rows, part_count(o_.cols, P, r)}});
      return p;
    }
    const uint64_t nblocks = (o_.cols + o_.nb - 1) / o_.nb;
    for (uint64_t row = 0; row < o_.rows; ++row)
      for (uint64_t b = r; b < nblocks; b += P)
        p.runs.push_back(plan::Run{row * o_.cols + b * o_.nb, std::min(o_.nb, o_.cols - b * o_.nb)});
    return p;
  }

 private:
  MatrixOptions o_;
};

class Metadata final : public Pattern {
 public:
  Metadata(const MetadataOptions& o, int ranks) : Pattern(ranks), o_(o) {
    const uint64_t P = static_cast<uint64_t>(ranks);
    for (uint64_t v = 0; v < o.vars; ++v)
      vars_.push_back({"v" + std::to_string(v), {P * o.blocks * o.block_elements}, {"n"}});
  }
  Part part(int rank, int) const override {
    const uint64_t P = static_cast<uint64_t>(ranks()), E = o_.block_elements;
    Part p;
    for (uint64_t b = 0; b < o_.blocks; ++b)
      p.boxes.push_back(Box{{(b * P + static_cast<uint64_t>(rank)) * E}, {E}});
    return p;
  }

 private:
  MetadataOptions o_;
};

}  // namespace

uint64_t Box::elements() const {
  uint64_t n = 1;
  for (uint64_t c : count) n *= c;
  return n;
}

bool parse_licom_grid(const std::string& text, LicomOptions* o) {
  unsigned long long nx = 0, ny = 0, nz = 0;
  char tail;
  if (std::sscanf(text.c_str(), "%llux%llux%llu%c", &nx, &ny, &nz, &tail) != 3 || !nx || !ny || !nz)
    return false;
  o->nx = nx;
  o->ny = ny;
  o->nz = nz;
  return true;
}

void process_grid(int n, int* rows, int* cols) {
  // Open MPI's algorithm: the prime factors of n, largest first, each multiplying the smaller
  // dimension (the first on a tie). Not always the most balanced pair (72: 12 x 6, not 9 x 8).
  std::vector<int> primes;
  for (int m = n, f = 2; m > 1; ++f) {
    if (static_cast<int64_t>(f) * f > m) f = m;
    for (; m % f == 0; m /= f) primes.push_back(f);
  }
  int d[2] = {1, 1};
  for (auto f = primes.rbegin(); f != primes.rend(); ++f) d[d[1] < d[0] ? 1 : 0] *= *f;
  *rows = std::max(d[0], d[1]);
  *cols = std::min(d[0], d[1]);
}

std::unique_ptr<Pattern> licom(const LicomOptions& o, int ranks) { return std::make_unique<Licom>(o, ranks); }
std::unique_ptr<Pattern> hpio(const HpioOptions& o, int ranks) { return std::make_unique<Hpio>(o, ranks); }
std::unique_ptr<Pattern> matrix(const MatrixOptions& o, int ranks) { return std::make_unique<Matrix>(o, ranks); }
std::unique_ptr<Pattern> metadata(const MetadataOptions& o, int ranks) {
  return std::make_unique<Metadata>(o, ranks);
}

}  // namespace tapio::workload
