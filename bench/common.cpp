// Pieces, the contract's data values, and byte totals shared by every pattern and method.
#include <cstring>
#include <functional>

#include "bench.h"

namespace bench {

uint64_t Var::elements() const {
  uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

void Piece::add_run(uint64_t offset, uint64_t length, uint64_t mem_gap) {
  if (length == 0) return;
  if (!offsets.empty()) mem_elements += mem_gap;
  offsets.push_back(offset);
  lengths.push_back(length);
  mem_offsets.push_back(mem_elements);
  mem_elements += length;
  elements += length;
}

Piece Piece::from_box(const Dims& shape, const Dims& start, const Dims& count) {
  Piece p;
  p.box = {start, count};
  const size_t nd = shape.size();
  for (auto c : count)
    if (c == 0) return p;
  // Trailing dimensions selected whole merge into one run.
  size_t inner = nd - 1;
  uint64_t run = count[nd - 1];
  while (inner > 0 && count[inner] == shape[inner]) {
    run *= count[inner - 1];
    --inner;
  }
  // Iterate over the outer index space [0, inner).
  Dims idx(nd, 0);
  std::function<void(size_t)> rec = [&](size_t d) {
    if (d == inner) {
      uint64_t off = 0;
      for (size_t k = 0; k < nd; ++k) off = off * shape[k] + (k < inner ? start[k] + idx[k] : start[k]);
      p.add_run(off, run);
      return;
    }
    for (uint64_t i = 0; i < count[d]; ++i) {
      idx[d] = i;
      rec(d + 1);
    }
  };
  rec(0);
  return p;
}

void fill(const Piece& p, int v, uint64_t s, double* buf) {
  for (size_t r = 0; r < p.offsets.size(); ++r) {
    double* out = buf + p.mem_offsets[r];
    const uint64_t g0 = p.offsets[r];
    for (uint64_t i = 0; i < p.lengths[r]; ++i) out[i] = value(v, s, g0 + i);
  }
}

uint64_t count_wrong(const Piece& p, int v, uint64_t s, const double* buf) {
  uint64_t bad = 0;
  for (size_t r = 0; r < p.offsets.size(); ++r) {
    const double* in = buf + p.mem_offsets[r];
    const uint64_t g0 = p.offsets[r];
    for (uint64_t i = 0; i < p.lengths[r]; ++i) bad += in[i] != value(v, s, g0 + i);
  }
  return bad;
}

void pack(const Piece& p, const double* buf, double* out) {
  for (size_t r = 0; r < p.offsets.size(); ++r) {
    std::memcpy(out, buf + p.mem_offsets[r], p.lengths[r] * sizeof(double));
    out += p.lengths[r];
  }
}

static uint64_t total(MPI_Comm comm, uint64_t mine) {
  uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, comm);
  return all;
}

uint64_t Pattern::write_bytes(MPI_Comm comm) const {
  uint64_t n = 0;
  for (size_t v = 0; v < vars().size(); ++v) n += write_piece(static_cast<int>(v)).elements;
  return total(comm, n * sizeof(double) * steps());
}

uint64_t Pattern::read_bytes(MPI_Comm comm) const {
  uint64_t n = 0;
  for (size_t v = 0; v < vars().size(); ++v) n += read_piece(static_cast<int>(v)).elements;
  return total(comm, n * sizeof(double) * steps());
}

}  // namespace bench

namespace bench {

Piece packed(const Piece& p) {
  Piece q = p;
  uint64_t m = 0;
  for (size_t r = 0; r < q.offsets.size(); ++r) {
    q.mem_offsets[r] = m;
    m += q.lengths[r];
  }
  q.mem_elements = m;
  return q;
}

void run_boxes(const Dims& shape, uint64_t offset, uint64_t length,
               const std::function<void(const Dims&, const Dims&)>& each) {
  const size_t nd = shape.size();
  const uint64_t row = shape.back();
  while (length > 0) {
    const uint64_t n = std::min(length, row - offset % row);
    Dims start(nd), count(nd, 1);
    uint64_t rest = offset;
    for (size_t k = nd; k-- > 0;) {
      start[k] = rest % shape[k];
      rest /= shape[k];
    }
    count[nd - 1] = n;
    each(start, count);
    offset += n;
    length -= n;
  }
}

double sum_over_ranks(MPI_Comm comm, double mine) {
  double all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, comm);
  return all;
}

}  // namespace bench
