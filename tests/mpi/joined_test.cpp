// Joined (local) arrays: each rank puts its own number of particles per step (0 included), and
// tapio places the blocks in rank order. Written with the subfile engine (and with the
// collective engine, as a CF ragged array in a NetCDF file) and read back whole, per writer
// block, as a range, and from a step outside begin_step; with perform_puts batches, in append
// mode, and the errors of bad counts and of engines that cannot store them.
#include <gtest/gtest.h>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kComponents = 3;  // positions are n x 3

// Particles of `r` at `step`: ranks take turns having none.
uint64_t count_of(int r, uint64_t step) {
  return (r + step) % 3 == 0 ? 0 : 5 + 7 * r + 11 * step;
}

// Value of component c of particle i (in its writer's block) of writer r at step s.
double particle(int r, uint64_t s, uint64_t i, uint64_t c) {
  return r * 1000.0 + s * 100000.0 + i + c * 0.25;
}

std::vector<double> my_positions(uint64_t step) {
  std::vector<double> out;
  for (uint64_t i = 0; i < count_of(rank(), step); ++i)
    for (uint64_t c = 0; c < kComponents; ++c) out.push_back(particle(rank(), step, i, c));
  return out;
}

// The step's whole array: every writer's block in rank order. `batches` puts per rank, each of
// a count_of(r, step) block, placed batch after batch.
std::vector<double> expected_positions(uint64_t step, int batches = 1) {
  std::vector<double> out;
  for (int b = 0; b < batches; ++b)
    for (int r = 0; r < size(); ++r)
      for (uint64_t i = 0; i < count_of(r, step); ++i)
        for (uint64_t c = 0; c < kComponents; ++c) out.push_back(particle(r, step, i, c) + b);
  return out;
}

uint64_t expected_length(uint64_t step) {
  uint64_t n = 0;
  for (int r = 0; r < size(); ++r) n += count_of(r, step);
  return n;
}

Variable define_positions(IO& io) {
  return io.define_variable<double>("pos", {0, kComponents}, {"particle", "component"},
                                    TAPIO_VAR_JOINED);
}

// Writes `steps` steps from `first` on: pos (n x 3) and id (n), with `batches` perform_puts
// batches per step (batch b adds b to every pos value; every batch puts the same ids).
void write_particles(const std::string& path, tapio_mode mode, uint64_t first, uint64_t steps,
                     int batches = 1, const std::string& engine = "subfile",
                     const std::string& reserve = "") {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("particles");
  io.set_engine(engine);
  if (!reserve.empty()) io.set_parameter("joined_reserve", reserve);
  Variable pos = define_positions(io);
  Variable id = io.define_variable<int64_t>("id", {0}, {"particle"}, TAPIO_VAR_JOINED);
  Engine out = io.open(path, mode);
  for (uint64_t s = first; s < first + steps; ++s) {
    out.begin_step();
    std::vector<std::vector<double>> data(batches, my_positions(s));
    std::vector<int64_t> ids(count_of(rank(), s));
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = rank() * 1000000 + s * 1000 + i;
    for (int b = 0; b < batches; ++b) {
      for (double& x : data[b]) x += b;
      pos.set_joined_count(count_of(rank(), s));
      out.put(pos, data[b]);
      id.set_joined_count(ids.size());
      out.put(id, ids);
      if (b + 1 < batches) out.perform_puts();
    }
    out.end_step();
  }
  out.close();
}

// Reads every step back whole, by writer block and as a range. A NetCDF file stores a step's
// rows as one block (`writer_blocks` false); a subfile dataset keeps each writer's.
void expect_particles(const std::string& path, uint64_t steps, int batches = 1,
                      const std::string& engine = "", bool writer_blocks = true) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("read");
  if (!engine.empty()) io.set_engine(engine);
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable pos = io.inquire_variable("pos");
  ASSERT_TRUE(pos.is_joined());
  ASSERT_EQ(in.steps(), steps);
  for (uint64_t s = 0; s < steps; ++s) {
    ASSERT_EQ(in.begin_step(), TAPIO_STEP_OK);
    const uint64_t n = expected_length(s) * batches;
    ASSERT_EQ(pos.shape(), (Dims{n, kComponents})) << "step " << s;
    const std::vector<double> want = expected_positions(s, batches);
    std::vector<double> whole(n * kComponents);
    if (s > 0) {  // the first get has no selection: the step's whole array
      pos.set_selection({0, 0}, {n, kComponents});
      pos.set_step_selection(s, 1);
    }
    in.get(pos, whole);
    // Writer blocks: each rank's, in rank order, with its count.
    uint64_t at = 0, nonempty = 0;
    for (const auto& [start, count] : in.blocks(pos, s)) {  // in placement order
      if (count[0] == 0) continue;
      EXPECT_EQ(start[0], at) << "step " << s;
      EXPECT_EQ(count[1], kComponents);
      at += count[0];
      ++nonempty;
    }
    EXPECT_EQ(at, n) << "step " << s;
    uint64_t writers = 0;
    for (int r = 0; r < size(); ++r) writers += count_of(r, s) > 0;
    EXPECT_EQ(nonempty, writer_blocks ? writers * batches : n > 0) << "step " << s;
    in.end_step();
    ASSERT_EQ(whole, want) << "step " << s;
    // A range, this rank's share, read outside a step: the step's own length bounds it.
    uint64_t start, count;
    split(n, size(), rank(), &start, &count);
    std::vector<double> part(count * kComponents);
    pos.set_selection({start, 0}, {count, kComponents});
    pos.set_step_selection(s, 1);
    in.get(pos, part);
    in.perform_gets();
    ASSERT_TRUE(std::equal(part.begin(), part.end(), want.begin() + start * kComponents))
        << "step " << s;
  }
  EXPECT_EQ(in.begin_step(), TAPIO_STEP_END_OF_STREAM);
  uint64_t rows = 0;  // every step's
  for (uint64_t s = 0; s < steps; ++s) rows += expected_length(s) * batches;
  EXPECT_EQ(in.stored_bytes(pos).first, rows * kComponents * sizeof(double));
  Variable id = io.inquire_variable("id");
  id.set_selection({0}, {expected_length(0)});
  id.set_step_selection(0, 1);
  std::vector<int64_t> ids(expected_length(0));
  in.get(id, ids);
  in.perform_gets();
  size_t k = 0;
  for (int r = 0; r < size(); ++r)
    for (uint64_t i = 0; i < count_of(r, 0); ++i) ASSERT_EQ(ids[k++], r * 1000000 + i);
  in.close();
}

TEST(Joined, SubfileRoundTripWithEmptyRanks) {
  TempDir dir;
  const std::string path = dir.file("particles.tapio");
  write_particles(path, TAPIO_MODE_WRITE, 0, 4);
  expect_particles(path, 4);
}

TEST(Joined, PerformPutsBatchesFollowOneAnother) {
  TempDir dir;
  const std::string path = dir.file("batches.tapio");
  write_particles(path, TAPIO_MODE_WRITE, 0, 2, 2);
  expect_particles(path, 2, 2);
}

TEST(Joined, AppendAddsSteps) {
  TempDir dir;
  const std::string path = dir.file("append.tapio");
  write_particles(path, TAPIO_MODE_WRITE, 0, 2);
  write_particles(path, TAPIO_MODE_APPEND, 2, 2);
  expect_particles(path, 4);
}

TEST(Joined, ARangeBeyondTheStepIsAShapeError) {
  TempDir dir;
  const std::string path = dir.file("range.tapio");
  write_particles(path, TAPIO_MODE_WRITE, 0, 1);
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  Variable pos = io.inquire_variable("pos");
  in.begin_step();
  const uint64_t n = expected_length(0);
  pos.set_selection({n, 0}, {1, kComponents});  // checked by the get, against its step
  std::vector<double> row(kComponents);
  const Outcome o = attempt([&] { in.get(pos, row); });
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
  EXPECT_TRUE(contains(o.message, "particle") && contains(o.message, "step 0")) << o.message;
  in.end_step();
  in.close();
}

TEST(Joined, BadDefinitionsAndCountsAreClearErrors) {
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("bad");
  Outcome o = attempt([&] { io.define_variable<double>("x", {5}, {}, TAPIO_VAR_JOINED); });
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE);
  EXPECT_TRUE(contains(o.message, "shape[0] = 0")) << o.message;
  o = attempt([&] {
    io.define_variable<double>("f", {0}, {}, TAPIO_VAR_JOINED | TAPIO_VAR_FIXED);
  });
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE);
  o = attempt([&] { io.define_variable<double>("s", {}, {}, TAPIO_VAR_JOINED); });
  EXPECT_EQ(o.code, TAPIO_ERR_SHAPE);
  Variable pos = define_positions(io);
  // A negative count, as a Fortran or Python caller's signed -5 arrives.
  o = outcome(tapio_var_set_joined_count(pos.get(), static_cast<uint64_t>(int64_t{-5})));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_TRUE(contains(o.message, "-5") && contains(o.message, "negative")) << o.message;
  EXPECT_TRUE(contains(o.message, "variable 'pos'")) << o.message;
  // A write selection instead of a count.
  o = attempt([&] { pos.set_selection({0, 0}, {4, kComponents}); });
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_TRUE(contains(o.message, "tapio_var_set_joined_count")) << o.message;
  // A count on a variable that is not joined.
  Variable grid = io.define_variable<double>("grid", {4});
  o = outcome(tapio_var_set_joined_count(grid.get(), 3));
  EXPECT_EQ(o.code, TAPIO_ERR_ARG);
  EXPECT_TRUE(contains(o.message, "not a joined array")) << o.message;
}

TEST(Joined, APutWithoutACountFailsTheStepEverywhere) {
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("nocount");
  io.set_engine("subfile");
  Variable pos = define_positions(io);
  Engine out = io.open(dir.file("nocount.tapio"), TAPIO_MODE_WRITE);
  out.begin_step();
  std::vector<double> data = my_positions(0);
  if (rank() == size() - 1) {
    const Outcome o = attempt([&] { out.put(pos, data); });
    EXPECT_EQ(o.code, TAPIO_ERR_ARG);
    EXPECT_TRUE(contains(o.message, "no count on rank")) << o.message;
  } else {
    pos.set_joined_count(count_of(rank(), 0));
    out.put(pos, data);
  }
  const Outcome ended = attempt([&] { out.end_step(); });
  EXPECT_EQ(ended.code, TAPIO_ERR_ARG) << ended.message;
  expect_same_everywhere(ended.code);
  out.close();
}

// The collective engine writes a CF ragged array; every NetCDF engine reads it back as a
// joined variable, one block per step.
TEST(Joined, CollectiveRoundTripWithEmptyRanks) {
  TempDir dir;
  const std::string path = dir.file("particles.nc");
  write_particles(path, TAPIO_MODE_WRITE, 0, 4, 1, "collective");
  for (const char* engine : {"collective", "serial", "mpiio"}) {
    SCOPED_TRACE(engine);
    expect_particles(path, 4, 1, engine, false);
  }
}

TEST(Joined, CollectivePerformPutsBatchesFollowOneAnother) {
  TempDir dir;
  const std::string path = dir.file("batches.nc");
  write_particles(path, TAPIO_MODE_WRITE, 0, 2, 2, "collective");
  expect_particles(path, 2, 2, "collective", false);
}

// A reservation of a few rows: the steps outgrow it and the record section moves.
TEST(Joined, CollectiveOutgrowsItsReservation) {
  TempDir dir;
  const std::string path = dir.file("grow.nc");
  write_particles(path, TAPIO_MODE_WRITE, 0, 5, 1, "collective", "64");
  expect_particles(path, 5, 1, "collective", false);
}

// Every kind of data the growth moves, mid-step: a fixed variable and a second sample
// dimension laid out after the grown one, the record section, and rows an earlier batch of
// the step wrote; then read back whole, with ncdump's reader checked in tests/py.
TEST(Joined, CollectiveGrowthMovesEverythingAfterIt) {
  TempDir dir;
  const std::string path = dir.file("moves.nc");
  constexpr uint64_t kSteps = 6;
  const uint64_t P = static_cast<uint64_t>(size());
  auto ion_count = [](int r, uint64_t s) { return (r + s) % 2 ? 2 * s + 1 : 0; };
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("moves");
    io.set_engine("collective");
    io.set_parameter("joined_reserve", "100");
    Variable grid = io.define_variable<int32_t>("grid", {P}, {}, TAPIO_VAR_FIXED);
    Variable pos = define_positions(io);
    Variable temp = io.define_variable<double>("temp", {P});
    Variable mask = io.define_variable<int32_t>("mask", {P, 2}, {}, TAPIO_VAR_FIXED);
    Variable ion = io.define_variable<float>("ion", {0}, {"ion_sample"}, TAPIO_VAR_JOINED);
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    const int32_t g = 10 * rank();
    const std::vector<int32_t> m = {rank(), -rank()};
    for (uint64_t s = 0; s < kSteps; ++s) {
      out.begin_step();
      if (s == 0) {
        grid.set_selection({static_cast<uint64_t>(rank())}, {1});
        out.put(grid, &g);
        mask.set_selection({static_cast<uint64_t>(rank()), 0}, {1, 2});
        out.put(mask, m);
      }
      std::vector<double> first = my_positions(s), second = first;
      for (double& x : second) x += 1;
      pos.set_joined_count(count_of(rank(), s));
      out.put(pos, first);
      std::vector<float> ions(ion_count(rank(), s), static_cast<float>(rank() + s));
      ion.set_joined_count(ions.size());
      out.put(ion, ions);
      out.perform_puts();
      pos.set_joined_count(count_of(rank(), s));
      out.put(pos, second);
      const double t = rank() + 0.5 * s;
      temp.set_selection({static_cast<uint64_t>(rank())}, {1});
      out.put(temp, &t);
      out.end_step();
    }
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  ASSERT_EQ(in.steps(), kSteps);
  Variable pos = io.inquire_variable("pos"), ion = io.inquire_variable("ion");
  Variable temp = io.inquire_variable("temp");
  for (uint64_t s = 0; s < kSteps; ++s) {
    ASSERT_EQ(in.begin_step(), TAPIO_STEP_OK);
    const uint64_t n = 2 * expected_length(s);
    ASSERT_EQ(pos.shape(), (Dims{n, kComponents})) << "step " << s;
    std::vector<double> whole(n * kComponents), temps(P);
    in.get(pos, whole);
    in.get(temp, temps);
    uint64_t ions = 0;
    for (int r = 0; r < size(); ++r) ions += ion_count(r, s);
    ASSERT_EQ(ion.shape(), (Dims{ions})) << "step " << s;
    std::vector<float> ion_values(ions);
    in.get(ion, ion_values);
    in.end_step();
    EXPECT_EQ(whole, expected_positions(s, 2)) << "step " << s;
    for (uint64_t r = 0; r < P; ++r) EXPECT_EQ(temps[r], r + 0.5 * s) << "step " << s;
    std::vector<float> want_ions;
    for (int r = 0; r < size(); ++r)
      want_ions.insert(want_ions.end(), ion_count(r, s), static_cast<float>(r + s));
    EXPECT_EQ(ion_values, want_ions) << "step " << s;
  }
  std::vector<int32_t> grid(P), mask(2 * P);
  Variable grid_var = io.inquire_variable("grid"), mask_var = io.inquire_variable("mask");
  in.get(grid_var, grid);
  in.get(mask_var, mask);
  in.perform_gets();
  for (uint64_t r = 0; r < P; ++r) {
    EXPECT_EQ(grid[r], 10 * static_cast<int32_t>(r));
    EXPECT_EQ(mask[2 * r], static_cast<int32_t>(r));
    EXPECT_EQ(mask[2 * r + 1], -static_cast<int32_t>(r));
  }
  in.close();
}

// The serial and mpiio engines refuse to write a joined variable at open, on every rank,
// naming it and the way out; the collective engine refuses it with async.
TEST(Joined, OtherNetcdfEnginesSayToUseCollectiveOrSubfile) {
  TempDir dir;
  for (const char* engine : {"serial", "mpiio", "collective"}) {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io(engine);
    io.set_engine(engine);
    const bool collective = std::string(engine) == "collective";
    if (collective) io.set_parameter("async", "true");
    define_positions(io);
    const std::string path = dir.file(std::string(engine) + ".nc");
    const Outcome o = attempt([&] { io.open(path, TAPIO_MODE_WRITE); });
    EXPECT_EQ(o.code, TAPIO_ERR_UNSUPPORTED) << engine << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "'pos'") &&
                contains(o.message, collective ? "async = false" : "collective engine"))
        << o.message;
    expect_same_everywhere(o.code);
  }
}

// The collective engine appends steps to a ragged NetCDF file: into the room the file kept,
// or, with none left (a 64-byte room, full after the first steps), growing it; the serial
// engine refuses to append to one, on every rank, naming the file, and leaves it readable.
TEST(Joined, CollectiveAppendsToARaggedFile) {
  TempDir dir;
  for (const char* reserve : {"", "64"}) {
    SCOPED_TRACE(std::string("joined_reserve ") + reserve);
    const std::string path = dir.file(std::string("append") + reserve + ".nc");
    write_particles(path, TAPIO_MODE_WRITE, 0, 2, 1, "collective", reserve);
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("serial");
      io.set_engine("serial");
      define_positions(io);
      const Outcome o = attempt([&] { io.open(path, TAPIO_MODE_APPEND); });
      EXPECT_EQ(o.code, TAPIO_ERR_UNSUPPORTED) << o.message;
      EXPECT_TRUE(contains(o.message, path) && contains(o.message, "collective engine"))
          << o.message;
      expect_same_everywhere(o.code);
    }
    write_particles(path, TAPIO_MODE_APPEND, 2, 3, 1, "collective");
    expect_particles(path, 5, 1, "collective", false);
  }
}

// Variables over one sample dimension share its count variable: a step where they hold
// different rows fails on every rank, and the steps before stay readable.
TEST(Joined, CollectiveSharedSampleDimensionMustAgree) {
  TempDir dir;
  const std::string path = dir.file("disagree.nc");
  {
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("disagree");
    io.set_engine("collective");
    Variable pos = define_positions(io);
    Variable id = io.define_variable<int64_t>("id", {0}, {"particle"}, TAPIO_VAR_JOINED);
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < 2; ++s) {
      out.begin_step();
      std::vector<double> data = my_positions(s);
      std::vector<int64_t> ids(count_of(rank(), s) + (s == 1 ? 1 : 0), 7);
      pos.set_joined_count(count_of(rank(), s));
      out.put(pos, data);
      id.set_joined_count(ids.size());
      out.put(id, ids);
      const Outcome o = attempt([&] { out.end_step(); });
      if (s == 0) {
        EXPECT_EQ(o.code, TAPIO_OK) << o.message;
      } else {
        EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << o.message;
        EXPECT_TRUE(contains(o.message, "'pos' and 'id'") && contains(o.message, "step 1"))
            << o.message;
        expect_same_everywhere(o.code);
      }
    }
    out.close();
  }
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("read");
  Engine in = io.open(path, TAPIO_MODE_READ);
  EXPECT_EQ(in.steps(), 1u);
  ASSERT_EQ(in.begin_step(), TAPIO_STEP_OK);
  Variable pos = io.inquire_variable("pos");
  EXPECT_EQ(pos.shape(), (Dims{expected_length(0), kComponents}));
  std::vector<double> whole(expected_length(0) * kComponents);
  in.get(pos, whole);
  in.end_step();
  EXPECT_EQ(whole, expected_positions(0));
  in.close();
}

}  // namespace
}  // namespace tapio::test
