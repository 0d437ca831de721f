// The subfile engine on the fake communicator (no mpiexec): a commit whose metadata write
// fails on one virtual rank, for every metadata backend, and a failed send in the aggregate
// path. The failed step commits nothing on any rank; the steps around it stay exact. And a
// dataset kept in an in-memory io::Storage: the engine reaches its files through nothing else.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>

#include "engine/fake_engines.h"
#include "format/subfile/records.h"
#include "io/memory_storage.h"
#include "io/syscalls.h"

namespace tapio::test {
namespace {

constexpr uint64_t N = 1024;
constexpr int P = 4;

// Metadata writes fail with EIO on the virtual rank whose thread sets this.
thread_local bool fail_metadata = false;

bool is_metadata(int fd) {
  char link[64], target[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return false;
  const std::string path(target, static_cast<size_t>(n));
  const std::string name = subfile::kMetadataName;
  return path.size() >= name.size() && path.compare(path.size() - name.size(), name.size(), name) == 0;
}

ssize_t metadata_pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (fail_metadata && is_metadata(fd)) {
    errno = EIO;
    return -1;
  }
  return io::default_syscalls().pwrite(fd, buf, n, offset);
}

IoDef one_variable() {
  IoDef io;
  io.name = "unit";
  io.vars = {variable("x", {N * P})};
  return io;
}

// Writes three steps (values of steps 0, 1, 2), each rank its block, to `storage` (null:
// POSIX); during step 1 `victim`'s metadata writes fail. Returns each step's outcome.
std::vector<std::unique_ptr<Outcomes>> write(comm::FakeWorld& world, const std::string& path,
                                             const ParamMap& params, int victim,
                                             io::Storage* storage = nullptr,
                                             int ranks_per_node = 0) {
  std::vector<std::unique_ptr<Outcomes>> out;
  for (int s = 0; s < 3; ++s) out.push_back(std::make_unique<Outcomes>(P));
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io = one_variable();
    ctx.storage = storage;
    auto e = open_on(c, &ctx, "subfile", path, OpenMode::kWrite, params, ranks_per_node);
    ASSERT_TRUE(e.ok()) << e.status().message();
    std::vector<double> data(N);
    for (int s = 0; s < 3; ++s) {
      for (uint64_t i = 0; i < N; ++i) data[i] = value(0, s, c.rank() * N + i);
      StepStatus ss;
      ASSERT_TRUE((*e)->begin_step(&ss).ok());
      ASSERT_TRUE((*e)->put(0, plan::shared(plan::Selection::box({c.rank() * N}, {N})),
                            TAPIO_FLOAT64, data.data()).ok());
      fail_metadata = s == 1 && c.rank() == victim;
      out[s]->set(c.rank(), (*e)->end_step());
      fail_metadata = false;
    }
    EXPECT_TRUE((*e)->close().ok());
  });
  EXPECT_TRUE(run.ok()) << run.message();
  return out;
}

void expect_steps(const std::string& path, const std::vector<int>& values, const char* name,
                  io::Storage* storage = nullptr) {
  const Steps steps = read_whole("subfile", path, storage);
  ASSERT_EQ(steps.size(), values.size()) << name;
  for (size_t s = 0; s < steps.size(); ++s)
    for (uint64_t g = 0; g < N * P; ++g)
      ASSERT_EQ(steps[s][0][g], value(0, values[s], g)) << name << ": step " << s << " at " << g;
}

struct Case {
  const char* name;
  ParamMap params;
  int victim;
};

TEST(SubfileUnit, FailedMetadataWriteFailsTheCommitEverywhere) {
  io::ScopedSyscalls restore;
  io::syscalls().pwrite = metadata_pwrite;
  const std::vector<Case> cases = {
      {"gather: rank 0 writes the records", {{"metadata", "gather"}}, 0},
      {"log: a rank writes its own records", {{"metadata", "log"}}, 2},
      {"log: rank 0", {{"metadata", "log"}}, 0},
      {"aligned", {{"metadata", "aligned"}, {"metadata_chunk", "512"}}, 3},
      {"gather, file per process", {{"metadata", "gather"}, {"aggregators", "all"}}, 0},
      {"log, aggregate", {{"metadata", "log"}, {"subfile_write", "aggregate"}}, 1},
  };
  for (const Case& c : cases) {
    TempDir dir;
    const std::string path = dir.file("d.tapio");
    comm::FakeWorld world(P);
    const auto outcomes = write(world, path, c.params, c.victim);
    EXPECT_TRUE(outcomes[0]->all(TAPIO_OK)) << c.name << outcomes[0]->describe();
    EXPECT_TRUE(outcomes[1]->all(TAPIO_ERR_IO)) << c.name << outcomes[1]->describe();
    EXPECT_NE(outcomes[1]->message(0).find("rank " + std::to_string(c.victim)),
              std::string::npos)
        << c.name << ": " << outcomes[1]->message(0);
    EXPECT_TRUE(outcomes[2]->all(TAPIO_OK)) << c.name << outcomes[2]->describe();
    expect_steps(path, {0, 2}, c.name);  // the failed step is not committed
  }
}

TEST(SubfileUnit, FailedSendInTheAggregatePathFailsTheStepEverywhere) {
  const ParamMap params = {{"subfile_write", "aggregate"}, {"aggregators", "1"},
                           {"buffer_size", "4096"}};
  // Rank 3's sends per step: the same every step, and one more in the first (its blocks go to
  // the overlap check).
  int per_step = 0;
  {
    TempDir dir;
    comm::FakeWorld world(P);
    (void)write(world, dir.file("count.tapio"), params, -1);
    per_step = (world.calls(3, "isend") - 1) / 3;
    ASSERT_GE(per_step, 2);
  }
  for (int nth = 0; nth < per_step; ++nth) {
    TempDir dir;
    const std::string path = dir.file("a.tapio");
    comm::FakeWorld world(P, /*seed=*/3);
    world.inject(comm::FakeFault{3, "isend", per_step + 1 + nth});  // a send of step 1
    const auto outcomes = write(world, path, params, -1);
    EXPECT_TRUE(outcomes[0]->all(TAPIO_OK)) << outcomes[0]->describe();
    EXPECT_TRUE(outcomes[1]->all(TAPIO_ERR_MPI)) << outcomes[1]->describe();
    EXPECT_TRUE(outcomes[2]->all(TAPIO_OK)) << outcomes[2]->describe();
    expect_steps(path, {0, 2}, "aggregate");
  }
}

// The engine creates, opens, lists and removes its files only through io::Storage: written to
// and read back from an in-memory Storage, under a parent directory that does not exist on
// disk (a POSIX call the interface missed would fail there, or leave a file behind).
TEST(SubfileStorage, DatasetLivesOnlyInTheStorageItIsGiven) {
  const std::string root = "/tapio-memory-only";
  ASSERT_FALSE(std::filesystem::exists(root));
  const std::string path = root + "/d.tapio";
  const std::vector<Case> cases = {
      {"direct, gather", {{"subfile_write", "direct"}}, -1},
      {"aggregate, log", {{"subfile_write", "aggregate"}, {"metadata", "log"}}, -1},
      {"file per process, aligned", {{"aggregators", "all"}, {"metadata", "aligned"}}, -1},
  };
  for (const Case& c : cases) {
    io::MemoryStorage storage({root});
    comm::FakeWorld world(P);
    const auto outcomes = write(world, path, c.params, c.victim, &storage, /*ranks_per_node=*/2);
    for (const auto& o : outcomes) EXPECT_TRUE(o->all(TAPIO_OK)) << c.name << o->describe();
    expect_steps(path, {0, 1, 2}, c.name, &storage);
    const size_t subfiles = c.params.count("aggregators") ? P : 2;  // else one per node
    std::vector<std::string> expected;
    for (size_t k = 0; k < subfiles; ++k) expected.push_back(path + "/data.0." + std::to_string(k));
    expected.push_back(path + "/tapio.idx");
    expected.push_back(path + "/tapio.lock");  // the writer's lock, through the Storage too
    expected.push_back(path + "/tapio.md");
    EXPECT_EQ(storage.paths(), expected) << c.name;
    EXPECT_FALSE(std::filesystem::exists(root)) << c.name;
  }
}

// Writing a dataset again removes the previous one's files through the Storage: four subfiles,
// then two, leave two.
TEST(SubfileStorage, RewriteRemovesThePreviousSubfiles) {
  io::MemoryStorage storage({"/mem"});
  const std::string path = "/mem/d.tapio";
  comm::FakeWorld four(P);
  (void)write(four, path, {{"aggregators", "all"}}, -1, &storage, 2);
  ASSERT_EQ(storage.paths().size(), 7u);
  comm::FakeWorld two(P);
  (void)write(two, path, {}, -1, &storage, 2);
  EXPECT_EQ(storage.paths(),
            (std::vector<std::string>{path + "/data.0.0", path + "/data.0.1", path + "/tapio.idx",
                                      path + "/tapio.lock", path + "/tapio.md"}));
  expect_steps(path, {0, 1, 2}, "rewritten", &storage);
}

// A dataset whose parent directory does not exist fails to open, naming it (as on POSIX).
TEST(SubfileStorage, MissingParentIsNotFound) {
  io::MemoryStorage storage({"/mem"});
  comm::FakeWorld world(2);
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io = one_variable();
    ctx.storage = &storage;
    auto e = open_on(c, &ctx, "subfile", "/mem/missing/d.tapio", OpenMode::kWrite, {});
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.status().code(), TAPIO_ERR_NOT_FOUND);
    EXPECT_NE(e.status().message().find("/mem/missing"), std::string::npos)
        << e.status().message();
  });
  EXPECT_TRUE(run.ok()) << run.message();
  EXPECT_TRUE(storage.paths().empty());
}

// What begin_step answers after the last of a dataset's 3 steps, on 2 readers (which must
// agree), with the given writer_timeout.
StepStatus after_the_steps(const std::string& path, io::Storage* storage, const char* timeout) {
  std::array<StepStatus, 2> seen{};  // each virtual rank writes its own
  comm::FakeWorld world(2);
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io.name = "unit";
    ctx.storage = storage;
    auto e = open_on(c, &ctx, "subfile", path, OpenMode::kRead, {{"writer_timeout", timeout}});
    ASSERT_TRUE(e.ok()) << e.status().message();
    StepStatus ss;
    int steps = 0;
    while ((*e)->begin_step(&ss).ok() && ss == StepStatus::kOk && (*e)->end_step().ok()) ++steps;
    EXPECT_EQ(steps, 3);
    seen[c.rank()] = ss;
    EXPECT_TRUE((*e)->close().ok());
  });
  EXPECT_TRUE(run.ok()) << run.message();
  EXPECT_EQ(seen[0], seen[1]) << "the readers disagree";
  return seen[0];
}

// A dataset its writer closed ends the stream. Without its end record (a killed writer), a
// reader waits (kNotReady) while the last record is younger than writer_timeout, and is told
// the writer is gone (kWriterGone) once it is older; writer_timeout = 0 waits forever.
TEST(SubfileStorage, ReadersTellAWriterThatDidNotCloseFromOneThatDid) {
  io::MemoryStorage storage({"/mem"});
  const std::string path = "/mem/d.tapio";
  comm::FakeWorld world(P);
  (void)write(world, path, {}, -1, &storage);
  EXPECT_EQ(after_the_steps(path, &storage, "60"), StepStatus::kEndOfStream);
  auto index = storage.open(path + "/tapio.idx", io::OpenMode::kReadWrite, nullptr, {});
  ASSERT_TRUE(index.ok());
  const uint64_t size = *(*index)->size();
  ASSERT_TRUE((*index)->truncate(size - subfile::kStepRecordSize).ok());  // the end record
  EXPECT_EQ(after_the_steps(path, &storage, "60"), StepStatus::kNotReady);
  // Step 2's record, as if written 100 seconds ago.
  const uint64_t last = size - 2 * subfile::kStepRecordSize;
  std::vector<uint8_t> bytes(subfile::kStepRecordSize);
  ASSERT_TRUE((*index)->read_exact(last, bytes.data(), bytes.size()).ok());
  subfile::StepRecord record = *subfile::decode_step(bytes.data(), bytes.size());
  ASSERT_EQ(record.kind, subfile::StepKind::kStep);
  ASSERT_GT(record.time, 0u);
  record.time -= 100;
  bytes = subfile::encode_step(record);
  ASSERT_TRUE((*index)->write_at(last, bytes.data(), bytes.size()).ok());
  EXPECT_EQ(after_the_steps(path, &storage, "60"), StepStatus::kWriterGone);
  EXPECT_EQ(after_the_steps(path, &storage, "0"), StepStatus::kNotReady);
}

}  // namespace
}  // namespace tapio::test
