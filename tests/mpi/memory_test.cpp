// Memory bounded by what is written (issue 29 item 1): a variable of 2^40 doubles (8 TiB, a
// sparse file) where each rank writes a small block writes and reads back exactly in the
// mpiio, collective and subfile engines while each rank's peak resident memory stays under
// 200 MiB; the serial engine, whose rank 0 holds a whole record, refuses it at open on every
// rank, naming the variable, its size and the limit; fill values of a large variable are
// written from a bounded pattern.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kHuge = uint64_t{1} << 40;  // elements
constexpr uint64_t kBlock = 1024;              // elements each rank writes
// What is written is a few KiB a rank: 200 MiB is the process (MPI, the library) around it.
// AddressSanitizer and ThreadSanitizer add their shadow memory (and ASan its quarantine:
// TSan measured 381 MiB); still far below the 2^40 elements' 8 TiB, or a bitmap of them
// (128 GiB).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr uint64_t kMaxPeakKiB = 1024 * 1024;
#else
constexpr uint64_t kMaxPeakKiB = 200 * 1024;
#endif

// Rank r's block starts in the r-th of `size()` equal parts, so that every owner of the
// overlap check's domains and every aggregator's file domain gets a piece.
uint64_t block_of(int r) {
  return kHuge / static_cast<uint64_t>(size()) * static_cast<uint64_t>(r) + 4096 * (r + 1);
}

// This process's peak resident memory since the last reset_peak(), from /proc/self/status.
uint64_t peak_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kib = 0;
  while (status >> key) {
    if (key == "VmHWM:") {
      status >> kib;
      break;
    }
  }
  return kib;
}

void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

TEST(Memory, SmallBlocksOfATwoToThe40ElementVariable) {
  for (const char* engine : {"mpiio", "collective", "subfile"}) {
    TempDir dir;
    const std::string path = dir.file(std::string(engine) + ".out");
    reset_peak();
    std::vector<double> data(kBlock);
    for (uint64_t i = 0; i < kBlock; ++i) data[i] = value(0, 0, block_of(rank()) + i);
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("huge");
      io.set_engine(engine);
      io.set_parameter("fill", "false");  // 8 TiB of fill values is not the point
      Variable x = io.define_variable<double>("x", {kHuge}, {"n"});
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      out.begin_step();
      x.set_selection({block_of(rank())}, {kBlock});
      out.put(x, data);
      out.end_step();
      out.close();
    }
    // Read by another decomposition: rank r reads the block rank (r + 1) mod P wrote.
    const int next = (rank() + 1) % size();
    std::vector<double> got(kBlock, -1.0);
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("check");
      io.set_engine(engine);
      Engine in = io.open(path, TAPIO_MODE_READ);
      Variable x = io.inquire_variable("x");
      ASSERT_EQ(x.shape(), Dims{kHuge}) << engine;
      in.begin_step();
      x.set_selection({block_of(next)}, {kBlock});
      in.get(x, got);
      in.end_step();
      in.close();
    }
    for (uint64_t i = 0; i < kBlock; ++i)
      ASSERT_EQ(got[i], value(0, 0, block_of(next) + i)) << engine << ", element " << i;
    EXPECT_LT(peak_kib(), kMaxPeakKiB) << engine << ": peak resident memory on rank " << rank();
  }
}

// Two overlapping blocks of the huge variable are named, both ranks and their elements, on
// every rank: the overlap check sorts a sparse domain's pieces instead of a bitmap of it.
TEST(Memory, OverlapInATwoToThe40ElementVariableIsNamed) {
  for (const char* engine : {"mpiio", "collective", "subfile"}) {
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("huge");
    io.set_engine(engine);
    io.set_parameter("fill", "false");
    Variable x = io.define_variable<double>("x", {kHuge}, {"n"});
    Engine out = io.open(dir.file("overlap.out"), TAPIO_MODE_WRITE);
    const std::vector<double> data(kBlock, 1.0);
    out.begin_step();
    // Rank r's block, and the first element of the next rank's (at 1 rank: its own again).
    x.set_selection({block_of(rank())}, {kBlock});
    out.put(x, data);
    x.set_selection({block_of((rank() + 1) % size())}, {1});
    out.put(x, data);
    const Outcome o = attempt([&] { out.end_step(); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_SHAPE) << engine << ": " << o.message;
    for (const char* part : {"blocks overlap", "variable 'x'", "writes elements ["})
      EXPECT_TRUE(contains(o.message, part)) << engine << ": '" << part << "' not in " << o.message;
    out.close();
  }
}

// Fill values go out from a 4 MiB pattern, again and again: a variable of three patterns and
// three elements, of which rank 0 writes one element, reads back as fill everywhere else, in
// each NetCDF engine (the pattern is mpiio's; serial fills its record image, the collective
// engine its rounds).
TEST(Memory, FillOfAVariableLargerThanItsPattern) {
  const uint64_t n = 3 * (uint64_t{4} << 20) / sizeof(double) + 3;
  const uint64_t at = n - 2;  // in the last, partial pattern
  for (const char* engine : {"serial", "mpiio", "collective"}) {
    TempDir dir;
    const std::string path = dir.file("fill.nc");
    {
      Context ctx(MPI_COMM_WORLD);
      IO io = ctx.declare_io("fill");
      io.set_engine(engine);
      Variable x = io.define_variable<double>("x", {n}, {"n"});
      Engine out = io.open(path, TAPIO_MODE_WRITE);
      const std::vector<double> mine(rank() == 0 ? 1 : 0, 42.0);  // read at end_step
      out.begin_step();
      x.set_selection({at}, {mine.size()});
      out.put(x, mine);
      out.end_step();
      out.close();
    }
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("check");
    io.set_engine(engine);
    Engine in = io.open(path, TAPIO_MODE_READ);
    Variable x = io.inquire_variable("x");
    std::vector<double> got(n, 0.0);
    in.begin_step();
    in.get(x, got);
    in.end_step();
    in.close();
    for (uint64_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], i == at ? 42.0 : 9.9692099683868690e+36) << engine << ", element " << i;
  }
}

// The serial engine's rank 0 gathers a whole record: 8 TiB cannot be held, and an explicit
// serial_image_limit below a variable's record refuses it too; both at open, on every rank.
TEST(Memory, SerialRefusesARecordOverItsImageLimitAtOpen) {
  struct Case {
    uint64_t elements;
    const char* limit;  // nullptr: the default
    const char* says;
  };
  for (const Case& c : {Case{kHuge, nullptr, "8796093022208 bytes"},
                        Case{uint64_t{1} << 20, "4MiB", "8388608 bytes"}}) {
    TempDir dir;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("huge");
    io.set_engine("serial");
    if (c.limit) io.set_parameter("serial_image_limit", c.limit);
    io.define_variable<double>("small", {16}, {"m"});
    io.define_variable<double>("x", {c.elements}, {"n"});
    const Outcome o = attempt([&] { io.open(dir.file("serial.nc"), TAPIO_MODE_WRITE); });
    expect_same_everywhere(o.code);
    EXPECT_EQ(o.code, TAPIO_ERR_UNSUPPORTED) << o.message;
    for (const char* part : {"variable 'x'", c.says, "serial_image_limit", "serial.nc"})
      EXPECT_TRUE(contains(o.message, part)) << part << " not in: " << o.message;
  }
  // Under the limit it opens and writes.
  TempDir dir;
  Context ctx(MPI_COMM_WORLD);
  IO io = ctx.declare_io("fits");
  io.set_engine("serial");
  io.set_parameter("serial_image_limit", "8MiB");
  Variable x = io.define_variable<double>("x", {uint64_t{1} << 20}, {"n"});
  Engine out = io.open(dir.file("serial.nc"), TAPIO_MODE_WRITE);
  std::vector<double> one{1.0};
  out.begin_step();
  x.set_selection({static_cast<uint64_t>(rank())}, {1});
  out.put(x, one);
  out.end_step();
  out.close();
}

}  // namespace
}  // namespace tapio::test
