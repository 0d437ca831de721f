// Pieces, the contract's data values, and byte totals shared by every pattern and method.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "bench.h"

namespace bench {

uint64_t Var::elements() const {
  uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

uint64_t Var::row_elements() const {
  uint64_t n = 1;
  for (size_t k = 1; k < shape.size(); ++k) n *= shape[k];
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

uint64_t Box::elements() const {
  uint64_t n = 1;
  for (auto c : count) n *= c;
  return n;
}

// Append the runs of one box in C order (trailing dimensions selected whole merge into one run),
// its elements next in the buffer.
static void add_box_runs(Piece& p, const Dims& shape, const Box& b) {
  const size_t nd = shape.size();
  if (nd == 0) {  // a scalar
    p.add_run(0, 1);
    return;
  }
  size_t inner = nd - 1;
  uint64_t run = b.count[inner];
  while (inner > 0 && b.count[inner] == shape[inner]) {
    run *= b.count[inner - 1];
    --inner;
  }
  Dims idx(inner, 0);  // odometer over the outer dimensions [0, inner)
  for (;;) {
    uint64_t off = 0;
    for (size_t k = 0; k < nd; ++k) off = off * shape[k] + b.start[k] + (k < inner ? idx[k] : 0);
    p.add_run(off, run);
    size_t k = inner;
    while (k > 0 && ++idx[k - 1] == b.count[k - 1]) idx[--k] = 0;
    if (k == 0) return;
  }
}

Piece Piece::from_box(const Dims& shape, const Dims& start, const Dims& count) {
  return from_boxes(shape, {Box{start, count}});
}

Piece Piece::from_boxes(const Dims& shape, const std::vector<Box>& boxes) {
  Piece p;
  for (const Box& b : boxes)
    if (b.elements() > 0) {
      p.boxes.push_back(b);
      add_box_runs(p, shape, b);
    }
  // Runs ascend in the variable (a Piece's contract); boxes side by side interleave theirs.
  std::vector<size_t> order(p.offsets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p.offsets[a] < p.offsets[b]; });
  Piece sorted = p;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted.offsets[i] = p.offsets[order[i]];
    sorted.lengths[i] = p.lengths[order[i]];
    sorted.mem_offsets[i] = p.mem_offsets[order[i]];
    if (i > 0 && sorted.mem_offsets[i] < sorted.mem_offsets[i - 1]) sorted.mem_in_run_order = false;
  }
  return sorted;
}

namespace {

// Temperature-like: warm at the surface, decaying with depth, colder towards the poles, with
// mesoscale waves that drift with the step and differ per variable:
//   2 + 26 e^(-k/8) cos(lat) + 1.5 sin(5 lon + s/10 + v) cos(3 lat)
//     + 0.3 sin(17 lon - 11 lat + v) e^(-k/20)
// The sines and cosines of each axis are tabulated (the sums by angle addition), so checking
// a read costs a few multiplications per value, not the transcendental functions the timed
// read would otherwise measure.
struct SmoothField {
  bool on = false;
  uint64_t nx = 1, ny = 1;
  double tolerance = 0;
  std::vector<double> s5, c5, s17, c17;  // per lon: sin/cos of 5 lon and 17 lon
  std::vector<double> cl, c3, s11, c11;  // per lat: cos lat, cos 3 lat, sin/cos 11 lat
  std::vector<double> e8, e20;           // per depth: e^(-k/8), e^(-k/20)
  int v = -1;                            // the (variable, step) of the terms below
  uint64_t s = 0;
  double sb = 0, cb = 0, sv = 0, cv = 0;  // sin/cos of s/10 + v and of v
};
SmoothField field;
double worst = 0;  // since reset_max_error()

double smooth_value(int v, uint64_t s, uint64_t g) {
  const uint64_t i = g % field.nx, j = (g / field.nx) % field.ny, k = g / (field.nx * field.ny);
  if (k >= field.e8.size()) {  // tabulated up to the depths a pattern uses
    for (uint64_t d = field.e8.size(); d <= k; ++d) {
      field.e8.push_back(std::exp(-double(d) / 8));
      field.e20.push_back(std::exp(-double(d) / 20));
    }
  }
  if (v != field.v || s != field.s) {
    const double b = 0.1 * double(s) + v;
    field.v = v;
    field.s = s;
    field.sb = std::sin(b), field.cb = std::cos(b);
    field.sv = std::sin(double(v)), field.cv = std::cos(double(v));
  }
  const double sb = field.sb, cb = field.cb, sv = field.sv, cv = field.cv;
  const double wave5 = field.s5[i] * cb + field.c5[i] * sb;        // sin(5 lon + b)
  const double sp = field.s17[i] * cv + field.c17[i] * sv;         // sin(17 lon + v)
  const double cp = field.c17[i] * cv - field.s17[i] * sv;         // cos(17 lon + v)
  const double wave17 = sp * field.c11[j] - cp * field.s11[j];     // sin(17 lon + v - 11 lat)
  return 2 + 26 * field.e8[k] * field.cl[j] + 1.5 * wave5 * field.c3[j] +
         0.3 * wave17 * field.e20[k];
}

}  // namespace

double value(int v, uint64_t s, uint64_t g) {
  if (field.on) return smooth_value(v, s, g);
  return static_cast<double>(g) + v / 4.0 + static_cast<double>(s) * 1048576.0;
}

void use_smooth_field(uint64_t nx, uint64_t ny, double tolerance) {
  field = SmoothField{};
  field.on = true;
  field.nx = nx;
  field.ny = ny;
  field.tolerance = tolerance;
  for (uint64_t i = 0; i < nx; ++i) {
    const double lon = 2 * M_PI * double(i) / double(nx);
    field.s5.push_back(std::sin(5 * lon));
    field.c5.push_back(std::cos(5 * lon));
    field.s17.push_back(std::sin(17 * lon));
    field.c17.push_back(std::cos(17 * lon));
  }
  for (uint64_t j = 0; j < ny; ++j) {
    const double lat = M_PI * (double(j) / double(ny) - 0.5);
    field.cl.push_back(std::cos(lat));
    field.c3.push_back(std::cos(3 * lat));
    field.s11.push_back(std::sin(11 * lat));
    field.c11.push_back(std::cos(11 * lat));
  }
}

void reset_max_error() { worst = 0; }
double max_error() { return worst; }

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
    for (uint64_t i = 0; i < p.lengths[r]; ++i) {
      const double err = std::abs(in[i] - value(v, s, g0 + i));
      worst = std::max(worst, err);
      bad += !(err <= field.tolerance);  // NaN is wrong too
    }
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
  for (uint64_t s = 0; s < steps(); ++s)
    for (size_t v = 0; v < vars().size(); ++v)
      n += step_write_piece(static_cast<int>(v), s).elements;
  return total(comm, n * sizeof(double));
}

std::vector<uint64_t> Pattern::read_steps() const {
  std::vector<uint64_t> all(steps());
  for (uint64_t s = 0; s < all.size(); ++s) all[s] = s;
  return all;
}

uint64_t Pattern::read_bytes(MPI_Comm comm) const {
  uint64_t n = 0;
  for (uint64_t s : read_steps())
    for (size_t v = 0; v < vars().size(); ++v)
      n += step_read_piece(static_cast<int>(v), s).elements;
  return total(comm, n * sizeof(double));
}

bool Pattern::joined() const {
  const auto n =
      std::count_if(vars().begin(), vars().end(), [](const Var& v) { return v.joined; });
  if (n > 0 && static_cast<size_t>(n) < vars().size())  // the methods' joined layouts assume it
    throw BenchError(name() + ": variables are all joined or none");
  return n > 0;
}

JoinedRows joined_rows(MPI_Comm comm, const Pattern& p, uint64_t s) {
  const size_t nv = p.vars().size();
  JoinedRows j{std::vector<uint64_t>(nv), std::vector<uint64_t>(nv), std::vector<uint64_t>(nv)};
  for (size_t v = 0; v < nv; ++v)
    j.count[v] = p.step_write_piece(static_cast<int>(v), s).elements / p.vars()[v].row_elements();
  const int n = static_cast<int>(nv);
  MPI_Exscan(j.count.data(), j.offset.data(), n, MPI_UINT64_T, MPI_SUM, comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) std::fill(j.offset.begin(), j.offset.end(), 0);  // Exscan leaves it undefined
  MPI_Allreduce(j.count.data(), j.total.data(), n, MPI_UINT64_T, MPI_SUM, comm);
  return j;
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
  // Boxes whose rows interleave are no longer back to back in the buffer: runs only.
  if (!q.mem_in_run_order) q.boxes.clear();
  q.mem_in_run_order = true;
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
