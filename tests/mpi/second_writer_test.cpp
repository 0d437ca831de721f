// A second writer on one path (issue 29, item 3): while a writer has a path open, a second open
// of it for writing or appending fails on every rank with TAPIO_ERR_IO naming the path and the
// holder, changing nothing; a reader still reads the committed steps; the first writer's steps
// then all read back exactly, and once it has closed the next writer gets in (and holds the
// path in turn, readable while it appends). Every engine, async too.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "test_util.h"

namespace tapio::test {
namespace {

constexpr uint64_t kPerRank = 1000;

struct Case {
  const char* name;
  const char* engine;
  bool async;
};

class SecondWriter : public ::testing::TestWithParam<Case> {};

std::string out_name(const Case& c) {
  return std::string(c.engine) == "subfile" ? "out.tapio" : "out.nc";
}

// Opens `path` through a context of its own (as another job would) in `mode`.
std::pair<Engine, Variable> open_writer(Context& ctx, const Case& c, const std::string& path,
                                        tapio_mode mode) {
  IO io = ctx.declare_io("writer");
  io.set_engine(c.engine);
  if (c.async) io.set_parameter("async", "true");
  Variable x = io.define_variable<double>("x", {kPerRank * size()});
  Engine out = io.open(path, mode);
  return {std::move(out), x};
}

void write_step(Engine& out, Variable& x, uint64_t step) {
  out.begin_step();
  x.set_selection(block_start(kPerRank), {kPerRank});
  const std::vector<double> data = block_values(kPerRank, step);  // put keeps it until end_step
  out.put(x, data);
  out.end_step();
}

// A second open of `path` for writing or appending: refused alike on every rank, naming the
// path and, for a dataset (whose lock file records it), rank 0's process as the holder.
void expect_refused(const Case& c, const std::string& path, tapio_mode mode) {
  Context ctx(MPI_COMM_WORLD);
  const Outcome second = attempt([&] { open_writer(ctx, c, path, mode); });
  expect_same_everywhere(second.code);
  EXPECT_EQ(second.code, TAPIO_ERR_IO) << second.message;
  EXPECT_TRUE(contains(second.message, path)) << second.message;
  EXPECT_TRUE(contains(second.message, "is locked by another writer")) << second.message;
  if (std::string(c.engine) == "subfile" && rank() == 0) {
    EXPECT_TRUE(contains(second.message, fmt::format("pid {}, since ", getpid())))
        << second.message;
  }
}

TEST_P(SecondWriter, IsRefusedOnEveryRankAndTheFirstWritersStepsReadBack) {
  const Case& c = GetParam();
  TempDir dir;
  const std::string path = dir.file(out_name(c));
  {
    Context ctx(MPI_COMM_WORLD);
    auto [out, x] = open_writer(ctx, c, path, TAPIO_MODE_WRITE);
    write_step(out, x, 0);
    write_step(out, x, 1);
    expect_refused(c, path, TAPIO_MODE_WRITE);
    expect_refused(c, path, TAPIO_MODE_APPEND);
    // A reader takes no lock: it reads what is committed (async commits a step later).
    if (!c.async) expect_block_steps(c.engine, path, kPerRank, 2, "read while writing");
    write_step(out, x, 2);
    out.close();
  }
  expect_block_steps(c.engine, path, kPerRank, 3, "after the refused writers");
  {
    Context ctx(MPI_COMM_WORLD);  // the lock went with the close: an append gets in
    auto [out, x] = open_writer(ctx, c, path, TAPIO_MODE_APPEND);
    write_step(out, x, 3);
    expect_refused(c, path, TAPIO_MODE_APPEND);  // an appender holds the lock as well
    if (!c.async) expect_block_steps(c.engine, path, kPerRank, 4, "read while appending");
    out.close();
  }
  expect_block_steps(c.engine, path, kPerRank, 4, "appended after close");
}

INSTANTIATE_TEST_SUITE_P(
    Engines, SecondWriter,
    ::testing::Values(Case{"serial", "serial", false}, Case{"mpiio", "mpiio", false},
                      Case{"collective", "collective", false}, Case{"subfile", "subfile", false},
                      Case{"serial_async", "serial", true}, Case{"mpiio_async", "mpiio", true},
                      Case{"collective_async", "collective", true},
                      Case{"subfile_async", "subfile", true}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tapio::test
