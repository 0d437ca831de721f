// The mpiio engine writes exactly the file the serial engine writes: every case writes the
// same data with engine "serial" and engine "mpiio" to two files, rank 0 compares their bytes,
// and the mpiio engine reads the file back with another decomposition. Runs under whichever
// MPI-IO component Open MPI picks (OMPI_MCA_io=ompio by default, or romio321).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <random>

#include "test_util.h"

namespace tapio::test {
namespace {

using Params = std::map<std::string, std::string>;
// Defines variables in `io`, opens `path` for writing and writes it.
using Body = std::function<void(IO& io, const std::string& path)>;

void write_with(const std::string& engine, const std::string& path, const Params& params,
                const Body& body) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("mpiio_case");
  io.set_engine(engine);
  for (const auto& [k, v] : params) io.set_parameter(k, v);
  body(io, path);
}

std::vector<char> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

// Collective: writes `body` with both engines and expects byte-identical files.
void expect_same_file(const TempDir& dir, const std::string& name, const Body& body,
                      const Params& params = {}) {
  const std::string serial = dir.file(name + ".serial.nc"), mpiio = dir.file(name + ".mpiio.nc");
  write_with("serial", serial, params, body);
  write_with("mpiio", mpiio, params, body);
  MPI_Barrier(MPI_COMM_WORLD);
  long long first_diff = -2;  // -2: identical
  if (rank() == 0) {
    const auto a = file_bytes(serial), b = file_bytes(mpiio);
    if (a.empty()) first_diff = -1;
    auto m = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (m.first != a.end() || m.second != b.end()) first_diff = m.first - a.begin();
    if (a.size() != b.size())
      ADD_FAILURE() << name << ": serial file has " << a.size() << " bytes, mpiio " << b.size();
  }
  MPI_Bcast(&first_diff, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  EXPECT_EQ(first_diff, -2) << name << ": files differ from byte " << first_diff;
}

template <typename T>
T typed(int v, uint64_t s, uint64_t g) {
  return static_cast<T>(static_cast<int64_t>(value(v, s, g) * 4) & 0x7f);
}
template <> double typed<double>(int v, uint64_t s, uint64_t g) { return value(v, s, g); }
template <> float typed<float>(int v, uint64_t s, uint64_t g) {
  return static_cast<float>(g) + v / 4.0f + static_cast<float>(s);
}

template <typename T>
std::vector<T> values_at(int v, uint64_t s, const std::vector<uint64_t>& idx) {
  std::vector<T> out;
  out.reserve(idx.size());
  for (uint64_t g : idx) out.push_back(typed<T>(v, s, g));
  return out;
}

// A 2-D process grid.
void grid(int* py, int* px) {
  int dims[2] = {0, 0};
  MPI_Dims_create(size(), 2, dims);
  *py = dims[0];
  *px = dims[1];
}

constexpr uint64_t kZ = 3;
constexpr int kSteps = 3;
Dims plane() {  // uneven over any grid
  int py, px;
  grid(&py, &px);
  return {static_cast<uint64_t>(2 * py + 1), static_cast<uint64_t>(3 * px + 2)};
}

// 2-D blocks on a process grid: record double (y,x), float (z,y,x), int16 (y,x), a record
// 0-d int32 and fixed int32 (y,x), uint8 (z,y,x), 0-d double.
void blocks_body(IO& io, const std::string& path) {
  const Dims p = plane(), vol = {kZ, p[0], p[1]};
  auto t = io.define_variable<double>("T", p, {"y", "x"}, 0);
  auto s = io.define_variable<float>("S", vol, {"z", "y", "x"}, 0);
  auto h = io.define_variable<int16_t>("H", p, {"y", "x"}, 0);
  auto n = io.define_variable<int32_t>("n", {}, {}, 0);
  auto mask = io.define_variable<int32_t>("mask", p, {"y", "x"}, TAPIO_VAR_FIXED);
  auto depth = io.define_variable<uint8_t>("depth", vol, {"z", "y", "x"}, TAPIO_VAR_FIXED);
  auto scale = io.define_variable<double>("scale", {}, {}, TAPIO_VAR_FIXED);
  io.define_attribute("title", std::string("mpiio blocks"));
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  int py, px;
  grid(&py, &px);
  uint64_t y0, ny, x0, nx;
  split(p[0], py, rank() / px, &y0, &ny);
  split(p[1], px, rank() % px, &x0, &nx);
  const auto idx2 = box_indices(p, {y0, x0}, {ny, nx});
  const auto idx3 = box_indices(vol, {0, y0, x0}, {kZ, ny, nx});
  for (uint64_t st = 0; st < kSteps; ++st) {
    out.begin_step();
    auto tv = values_at<double>(0, st, idx2);
    auto sv = values_at<float>(1, st, idx3);
    auto hv = values_at<int16_t>(2, st, idx2);
    auto nv = values_at<int32_t>(3, st, {0});
    t.set_selection({y0, x0}, {ny, nx});
    out.put(t, tv);
    s.set_selection({0, y0, x0}, {kZ, ny, nx});
    out.put(s, sv);
    h.set_selection({y0, x0}, {ny, nx});
    out.put(h, hv);
    if (rank() == size() - 1) {
      n.set_selection({}, {});
      out.put(n, nv);
    }
    std::vector<int32_t> mv;
    std::vector<uint8_t> dv;
    std::vector<double> cv;
    if (st == 0) {
      mv = values_at<int32_t>(4, 0, idx2);
      dv = values_at<uint8_t>(5, 0, idx3);
      cv = values_at<double>(6, 0, {0});
      mask.set_selection({y0, x0}, {ny, nx});
      out.put(mask, mv);
      depth.set_selection({0, y0, x0}, {kZ, ny, nx});
      out.put(depth, dv);
      if (rank() == 0) {
        scale.set_selection({}, {});
        out.put(scale, cv);
      }
    }
    out.end_step();
  }
  out.close();
}

TEST(Mpiio, BlocksOnAProcessGridMatchSerialAndReadBack) {
  TempDir dir;
  expect_same_file(dir, "blocks", blocks_body);
  // Read back with engine mpiio: columns split over ranks, all steps at once, plus a second,
  // overlapping get of the same variable.
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("blocks_read");
  io.set_engine("mpiio");
  Engine in = io.open(dir.file("blocks.mpiio.nc"), TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), static_cast<uint64_t>(kSteps));
  const Dims p = plane(), vol = {kZ, p[0], p[1]};
  uint64_t x0, nx;
  split(p[1], size(), rank(), &x0, &nx);
  const auto idx2 = box_indices(p, {0, x0}, {p[0], nx});
  const auto idx3 = box_indices(vol, {0, 0, x0}, {kZ, p[0], nx});
  Variable t = io.inquire_variable("T"), s = io.inquire_variable("S"),
           h = io.inquire_variable("H"), n = io.inquire_variable("n"),
           mask = io.inquire_variable("mask"), depth = io.inquire_variable("depth"),
           scale = io.inquire_variable("scale");
  t.set_selection({0, x0}, {p[0], nx});
  t.set_step_selection(0, kSteps);
  s.set_selection({0, 0, x0}, {kZ, p[0], nx});
  s.set_step_selection(0, kSteps);
  h.set_selection({0, x0}, {p[0], nx});
  h.set_step_selection(1, 2);
  n.set_selection({}, {});
  n.set_step_selection(0, kSteps);
  mask.set_selection({0, x0}, {p[0], nx});
  depth.set_selection({0, 0, x0}, {kZ, p[0], nx});
  scale.set_selection({}, {});
  std::vector<double> tg(kSteps * idx2.size()), cg(1);
  std::vector<float> sg(kSteps * idx3.size());
  std::vector<int16_t> hg(2 * idx2.size());
  std::vector<int32_t> ng(kSteps), mg(idx2.size());
  std::vector<uint8_t> dg(idx3.size());
  in.get(t, tg);
  in.get(s, sg);
  in.get(h, hg);
  in.get(n, ng);
  in.get(mask, mg);
  in.get(depth, dg);
  in.get(scale, cg);
  // The same elements of T at step 2 again, into another buffer.
  t.set_step_selection(2, 1);
  std::vector<double> tg2(idx2.size());
  in.get(t, tg2);
  in.perform_gets();
  for (uint64_t st = 0; st < kSteps; ++st) {
    for (size_t k = 0; k < idx2.size(); ++k)
      ASSERT_EQ(tg[st * idx2.size() + k], typed<double>(0, st, idx2[k])) << "T step " << st;
    for (size_t k = 0; k < idx3.size(); ++k)
      ASSERT_EQ(sg[st * idx3.size() + k], typed<float>(1, st, idx3[k])) << "S step " << st;
    EXPECT_EQ(ng[st], typed<int32_t>(3, st, 0));
  }
  for (uint64_t st = 1; st < 3; ++st)
    for (size_t k = 0; k < idx2.size(); ++k)
      ASSERT_EQ(hg[(st - 1) * idx2.size() + k], typed<int16_t>(2, st, idx2[k])) << "H";
  for (size_t k = 0; k < idx2.size(); ++k) {
    ASSERT_EQ(mg[k], typed<int32_t>(4, 0, idx2[k]));
    ASSERT_EQ(tg2[k], typed<double>(0, 2, idx2[k]));
  }
  for (size_t k = 0; k < idx3.size(); ++k) ASSERT_EQ(dg[k], typed<uint8_t>(5, 0, idx3[k]));
  EXPECT_EQ(cg[0], typed<double>(6, 0, 0));
  in.close();
}

// Shuffled irregular offsets (PIO-style maps), a rank putting one variable in several puts,
// and perform_puts in the middle of a step.
constexpr uint64_t kIrregular = 997;

std::vector<uint64_t> shuffled() {
  std::vector<uint64_t> perm(kIrregular);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 rng(42);
  std::shuffle(perm.begin(), perm.end(), rng);
  return perm;
}

void irregular_body(IO& io, const std::string& path) {
  auto a = io.define_variable<double>("a", {kIrregular}, {"n"}, 0);
  auto b = io.define_variable<int64_t>("b", {kIrregular}, {"n"}, 0);
  auto c = io.define_variable<float>("c", {kIrregular}, {"n"}, TAPIO_VAR_FIXED);
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  const auto perm = shuffled();
  uint64_t s0, ns;
  split(kIrregular, size(), rank(), &s0, &ns);
  const std::vector<uint64_t> mine(perm.begin() + s0, perm.begin() + s0 + ns);
  const std::vector<uint64_t> first(mine.begin(), mine.begin() + ns / 2),
      second(mine.begin() + ns / 2, mine.end());
  for (uint64_t st = 0; st < 2; ++st) {
    out.begin_step();
    auto av = values_at<double>(0, st, mine);
    a.set_offsets(mine);
    out.put(a, av);
    out.perform_puts();  // a is written; b follows in two puts of the same batch
    auto b1 = values_at<int64_t>(1, st, first), b2 = values_at<int64_t>(1, st, second);
    b.set_offsets(first);
    out.put(b, b1);
    b.set_offsets(second);
    out.put(b, b2);
    std::vector<float> cv;
    if (st == 1) {
      cv = values_at<float>(2, 0, mine);
      c.set_offsets(mine);
      out.put(c, cv);
    }
    out.end_step();
  }
  out.close();
}

TEST(Mpiio, ShuffledIrregularOffsetsMatchSerialAndReadBack) {
  TempDir dir;
  expect_same_file(dir, "irregular", irregular_body);
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("irregular_read");
  io.set_engine("mpiio");
  Engine in = io.open(dir.file("irregular.mpiio.nc"), TAPIO_MODE_READ);
  // Read a strided, reversed map: every size()-th element from the end.
  std::vector<uint64_t> want;
  for (uint64_t g = kIrregular - 1 - rank(); g < kIrregular; g -= size()) {
    want.push_back(g);
    if (g < static_cast<uint64_t>(size())) break;
  }
  Variable a = io.inquire_variable("a"), b = io.inquire_variable("b"),
           c = io.inquire_variable("c");
  a.set_offsets(want);
  a.set_step_selection(0, 2);
  b.set_offsets(want);
  b.set_step_selection(0, 2);
  c.set_offsets(want);
  std::vector<double> ag(2 * want.size());
  std::vector<int64_t> bg(2 * want.size());
  std::vector<float> cg(want.size());
  in.get(a, ag);
  in.get(b, bg);
  in.get(c, cg);
  in.perform_gets();
  for (uint64_t st = 0; st < 2; ++st)
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_EQ(ag[st * want.size() + k], typed<double>(0, st, want[k]));
      ASSERT_EQ(bg[st * want.size() + k], typed<int64_t>(1, st, want[k]));
    }
  for (size_t k = 0; k < want.size(); ++k) ASSERT_EQ(cg[k], typed<float>(2, 0, want[k]));
  in.close();
}

// Partial coverage: only even rows of `p` are written, `q` is skipped in step 1, `never` is
// never written; fill values (or, with fill = false, what the file holds) elsewhere.
void partial_body(IO& io, const std::string& path) {
  const Dims shape = {static_cast<uint64_t>(2 * size() + 3), 7};
  auto p = io.define_variable<double>("p", shape, {"y", "x"}, 0);
  auto q = io.define_variable<int32_t>("q", shape, {"y", "x"}, 0);
  auto half = io.define_variable<int16_t>("half", shape, {"y", "x"}, TAPIO_VAR_FIXED);
  io.define_variable<float>("never", shape, {"y", "x"}, TAPIO_VAR_FIXED);
  Engine out = io.open(path, TAPIO_MODE_WRITE);
  for (uint64_t st = 0; st < 2; ++st) {
    out.begin_step();
    std::vector<std::vector<double>> keep;
    for (uint64_t row = 2 * rank(); row < shape[0]; row += 2 * size()) {
      keep.push_back(values_at<double>(0, st, box_indices(shape, {row, 0}, {1, shape[1]})));
      p.set_selection({row, 0}, {1, shape[1]});
      out.put(p, keep.back());
    }
    uint64_t r0, nr;
    split(shape[0], size(), rank(), &r0, &nr);
    auto qv = values_at<int32_t>(1, st, box_indices(shape, {r0, 0}, {nr, shape[1]}));
    if (st == 0) {
      q.set_selection({r0, 0}, {nr, shape[1]});
      out.put(q, qv);
    }
    std::vector<int16_t> hv;
    if (st == 1 && rank() % 2 == 0) {
      hv = values_at<int16_t>(2, 0, box_indices(shape, {r0, 0}, {nr, 3}));
      half.set_selection({r0, 0}, {nr, 3});
      out.put(half, hv);
    }
    out.end_step();
  }
  out.close();
}

TEST(Mpiio, PartialCoverageFillsLikeSerial) {
  TempDir dir;
  expect_same_file(dir, "partial", partial_body);
  expect_same_file(dir, "partial_nofill", partial_body, {{"fill", "false"}});
  // The fill value reads back through the mpiio engine.
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("partial_read");
  io.set_engine("mpiio");
  Engine in = io.open(dir.file("partial.mpiio.nc"), TAPIO_MODE_READ);
  Variable p = io.inquire_variable("p");
  const Dims shape = p.shape();
  p.set_selection({0, 0}, shape);
  p.set_step_selection(1, 1);
  std::vector<double> got(shape[0] * shape[1]);
  in.get(p, got);
  in.perform_gets();
  for (uint64_t row = 0; row < shape[0]; ++row)
    for (uint64_t col = 0; col < shape[1]; ++col) {
      const uint64_t g = row * shape[1] + col;
      const double want = row % 2 == 0 ? typed<double>(0, 1, g) : 9.9692099683868690e+36;
      ASSERT_EQ(got[g], want) << "row " << row << " col " << col;
    }
  in.close();
}

// Hints reach MPI_File_open (ROMIO and OMPIO ignore the ones they do not know); the file is
// still the serial one. fsync = step takes the commit path, and blocks still match.
TEST(Mpiio, HintsAndFsyncKeepTheFileIdentical) {
  TempDir dir;
  expect_same_file(dir, "hints", blocks_body,
                   {{"mpiio_hints", " cb_buffer_size=1048576 , romio_cb_write=enable,"}});
  expect_same_file(dir, "fsync_step", irregular_body, {{"fsync", "step"}});
  expect_same_file(dir, "fsync_never", irregular_body, {{"fsync", "never"}});
}

TEST(Mpiio, InvalidHintsAreAConfigErrorNamingTheParameter) {
  TempDir dir;
  for (const std::string hints : {"nokeyvalue", "cb_nodes=2,=4", "cb_nodes="}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("bad_hints");
    io.set_engine("mpiio");
    io.set_parameter("mpiio_hints", hints);
    io.define_variable<double>("x", {4});
    try {
      Engine e = io.open(dir.file("bad.nc"), TAPIO_MODE_WRITE);
      ADD_FAILURE() << "hints '" << hints << "' were accepted";
    } catch (const Error& err) {
      EXPECT_EQ(err.code(), TAPIO_ERR_CONFIG) << err.what();
      EXPECT_NE(std::string(err.what()).find("mpiio_hints"), std::string::npos) << err.what();
    }
  }
}

// Appending with mpiio to a serial file gives the file serial would have written.
TEST(Mpiio, AppendMatchesSerial) {
  TempDir dir;
  const Dims shape = {static_cast<uint64_t>(size() + 2), 5};
  auto write_steps = [&](const std::string& engine, const std::string& path, tapio_mode mode,
                         uint64_t from, uint64_t to) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("append");
    io.set_engine(engine);
    auto v = io.define_variable<double>("v", shape, {"y", "x"}, 0);
    Engine out = io.open(path, mode);
    uint64_t r0, nr;
    split(shape[0], size(), rank(), &r0, &nr);
    for (uint64_t st = from; st < to; ++st) {
      out.begin_step();
      auto data = values_at<double>(0, st, box_indices(shape, {r0, 0}, {nr, shape[1]}));
      v.set_selection({r0, 0}, {nr, shape[1]});
      out.put(v, data);
      out.end_step();
    }
    out.close();
  };
  write_steps("serial", dir.file("a.nc"), TAPIO_MODE_WRITE, 0, 3);
  write_steps("serial", dir.file("b.nc"), TAPIO_MODE_WRITE, 0, 2);
  write_steps("mpiio", dir.file("b.nc"), TAPIO_MODE_APPEND, 2, 3);
  MPI_Barrier(MPI_COMM_WORLD);
  int same = 1;
  if (rank() == 0) same = file_bytes(dir.file("a.nc")) == file_bytes(dir.file("b.nc"));
  MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
  EXPECT_TRUE(same);
}

// A rank's own overlapping puts fail on every rank, and the next step still works.
TEST(Mpiio, OverlappingPutsFailEverywhere) {
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("overlap");
  io.set_engine("mpiio");
  const uint64_t n = 4 * size();
  auto v = io.define_variable<double>("v", {n}, {"n"}, 0);
  Engine out = io.open(dir.file("overlap.nc"), TAPIO_MODE_WRITE);
  std::vector<double> data(4, 1.0);
  out.begin_step();
  v.set_selection({4 * static_cast<uint64_t>(rank())}, {4});
  out.put(v, data);
  if (rank() == size() - 1) out.put(v, data);  // the same block twice
  int code = TAPIO_OK;
  try {
    out.end_step();
  } catch (const Error& e) {
    code = e.code();
  }
  EXPECT_EQ(code, TAPIO_ERR_SHAPE);
  out.begin_step();
  out.put(v, data);
  out.end_step();
  EXPECT_EQ(out.steps(), 1u);
  out.close();
}

}  // namespace
}  // namespace tapio::test
