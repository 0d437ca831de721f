// File-system defaults and Lustre striping at open: the pure plan for each file system, and
// engines opened on a faked Lustre (statfs and the layout xattr through the syscall table)
// asking for the layout their new files get.
#include "engine/file_system_defaults.h"

#include <fcntl.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <mutex>

#include "core/warnings.h"
#include "engine/fake_engines.h"
#include "io/syscalls.h"

namespace tapio::test {
namespace {

io::FileSystemInfo fs_of(io::FsKind kind, uint64_t magic, uint64_t block) {
  io::FileSystemInfo fs;
  fs.kind = kind;
  fs.magic = magic;
  fs.block_size = block;
  return fs;
}
const io::FileSystemInfo kExt4 = fs_of(io::FsKind::kExt4, io::kExt4Magic, 4096);
const io::FileSystemInfo kTmpfs = fs_of(io::FsKind::kTmpfs, io::kTmpfsMagic, 4096);
const io::FileSystemInfo kLustre = fs_of(io::FsKind::kLustre, io::kLustreMagic, 4096);
const io::FileSystemInfo kGpfs = fs_of(io::FsKind::kGpfs, io::kGpfsMagic, 8 << 20);
const io::FileSystemInfo kNfs = fs_of(io::FsKind::kNfs, io::kNfsMagic, 1 << 20);

OpenSpec spec_of(const ParamMap& params, OpenMode mode = OpenMode::kWrite,
                 const std::string& engine = "collective") {
  OpenSpec s;
  s.path = "/data/out.nc";
  s.mode = mode;
  s.engine = engine;
  for (const auto& [k, v] : params) EXPECT_TRUE(s.params.set(k, v).ok()) << k;
  return s;
}

using Defaults = std::vector<std::pair<std::string, std::string>>;

TEST(FileSystemPlan, LocalFileSystemsKeepTheRegistryDefaults) {
  for (const io::FileSystemInfo& fs : {kExt4, kTmpfs, io::FileSystemInfo{}}) {
    auto plan = plan_for_file_system(fs, spec_of({}));
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_TRUE(plan->defaults.empty()) << io::fs_kind_name(fs.kind);
    EXPECT_FALSE(plan->striping.has_value());
    EXPECT_TRUE(plan->warnings.empty());
  }
}

TEST(FileSystemPlan, StripingOffLustreIsAWarningNotAnError) {
  auto plan = plan_for_file_system(kExt4, spec_of({{"stripe_count", "4"}, {"stripe_size", "4MiB"}}));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_FALSE(plan->striping.has_value());
  ASSERT_EQ(plan->warnings.size(), 1u);
  EXPECT_NE(plan->warnings[0].find("'/data/out.nc' is on ext4, not Lustre: stripe_count = 4"),
            std::string::npos)
      << plan->warnings[0];
  // Reading, nothing is created, so there is nothing to warn about.
  plan = plan_for_file_system(kExt4, spec_of({{"stripe_count", "4"}}, OpenMode::kRead));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->warnings.empty());
}

TEST(FileSystemPlan, BadStripingValuesAreErrorsNamingTheFile) {
  for (const char* count : {"0", "-1", "2001"}) {
    auto plan = plan_for_file_system(kExt4, spec_of({{"stripe_count", count}}));
    ASSERT_FALSE(plan.ok()) << count;
    EXPECT_EQ(plan.status().code(), TAPIO_ERR_CONFIG);
    EXPECT_NE(plan.status().message().find("file '/data/out.nc': stripe_count = " +
                                           std::string(count)),
              std::string::npos)
        << plan.status().message();
  }
  auto plan = plan_for_file_system(kLustre, spec_of({{"stripe_size", "100000"}}));
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find(
                "file '/data/out.nc' is on Lustre: stripe_size = 100000 must be a multiple of 64KiB"),
            std::string::npos)
      << plan.status().message();
  // Off Lustre the same stripe_size is only the collective engine's domain unit.
  EXPECT_TRUE(plan_for_file_system(kExt4, spec_of({{"stripe_size", "100000"}})).ok());
}

TEST(FileSystemPlan, LustreRequestsTheLayoutAndAlignsToIt) {
  auto plan = plan_for_file_system(kLustre, spec_of({{"stripe_count", "8"}, {"stripe_size", "4MiB"}}));
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_TRUE(plan->striping.has_value());
  EXPECT_EQ(plan->striping->stripe_count, 8);
  EXPECT_EQ(plan->striping->stripe_size, 4u << 20);
  EXPECT_EQ(plan->defaults, (Defaults{{"stripe_size", "4194304"},
                                      {"block_align", "4194304"},
                                      {"data_align", "65536"}}));
  EXPECT_TRUE(plan->warnings.empty());
  // Only a count: the directory's default stripe size (0 in the request).
  plan = plan_for_file_system(kLustre, spec_of({{"stripe_count", "2"}}));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->striping->stripe_size, 0u);
  EXPECT_TRUE(plan->defaults.empty());  // no layout known: the registry's defaults stay
  // Appending, a subfile dataset creates the new generation's subfiles with it too.
  plan = plan_for_file_system(kLustre, spec_of({{"stripe_count", "2"}}, OpenMode::kAppend));
  ASSERT_TRUE(plan.ok());
  ASSERT_TRUE(plan->striping.has_value());
  EXPECT_EQ(plan->striping->stripe_count, 2);
}

TEST(FileSystemPlan, AnExistingLustreLayoutIsTheDefault) {
  io::FileSystemInfo fs = kLustre;
  fs.layout = io::LustreLayout{2u << 20, 16, 0};
  auto plan = plan_for_file_system(fs, spec_of({}, OpenMode::kRead));
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->striping.has_value());  // reading creates nothing
  EXPECT_EQ(plan->defaults, (Defaults{{"stripe_size", "2097152"},
                                      {"block_align", "2097152"},
                                      {"data_align", "65536"}}));
}

TEST(FileSystemPlan, GpfsAlignsToItsBlockSize) {
  auto plan = plan_for_file_system(kGpfs, spec_of({}));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->defaults, (Defaults{{"stripe_size", "8388608"},
                                      {"block_align", "8388608"},
                                      {"data_align", "65536"}}));
}

TEST(FileSystemPlan, NfsWarnsAboutSharedFilesAndWritesThroughAggregators) {
  auto plan = plan_for_file_system(kNfs, spec_of({}));
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->defaults, (Defaults{{"direct", "never"}}));
  ASSERT_EQ(plan->warnings.size(), 1u);
  EXPECT_NE(plan->warnings[0].find("need locking"), std::string::npos) << plan->warnings[0];
  // A subfile dataset has one writer per subfile: no shared-file warning.
  plan = plan_for_file_system(kNfs, spec_of({}, OpenMode::kWrite, "subfile"));
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->warnings.empty());
}

// ---- engines on a faked Lustre --------------------------------------------------------------

struct FakeLustre {
  std::mutex m;
  std::vector<io::LustreLayout> requests;  // one per file created with a layout
};
FakeLustre lustre;

int lustre_statfs(const char*, struct statfs* st) {
  *st = {};
  st->f_type = static_cast<decltype(st->f_type)>(io::kLustreMagic);
  st->f_bsize = 4096;
  return 0;
}
ssize_t no_layout(const char*, const char*, void*, size_t) {
  errno = ENODATA;
  return -1;
}
int record_layout(int, const char* name, const void* value, size_t size, int) {
  EXPECT_STREQ(name, "lustre.lov");
  auto l = io::decode_lov_user_md(static_cast<const uint8_t*>(value), size);
  EXPECT_TRUE(l.has_value());
  std::lock_guard<std::mutex> lock(lustre.m);
  if (l) lustre.requests.push_back(*l);
  return 0;
}
// The temporary directory is really ext4: leave out O_LOV_DELAY_CREATE's flags.
int open_without_lov_flags(const char* path, int flags, mode_t mode) {
  return io::default_syscalls().open(path, flags & ~(O_NOCTTY | FASYNC), mode);
}

class OnFakeLustre : public ::testing::Test {
 protected:
  void SetUp() override {
    lustre.requests.clear();
    io::syscalls().statfs = lustre_statfs;
    io::syscalls().getxattr = no_layout;
    io::syscalls().fsetxattr = record_layout;
    io::syscalls().open = open_without_lov_flags;
  }
  // Writes one step of a 1-D variable on 4 ranks, 2 per node.
  void write(const std::string& engine, const std::string& path, const ParamMap& params) {
    comm::FakeWorld world(4);
    const Status run = world.run([&](comm::Comm& c) {
      RankContext ctx;
      ctx.io.name = "unit";
      ctx.io.vars = {variable("A", {64})};
      auto e = open_on(c, &ctx, engine, path, OpenMode::kWrite, params, 2);
      ASSERT_TRUE(e.ok()) << e.status().message();
      StepStatus ss;
      ASSERT_TRUE((*e)->begin_step(&ss).ok());
      std::vector<double> mine(16, c.rank());
      ASSERT_TRUE((*e)->put(0, plan::shared(plan::Selection::box({16u * c.rank()}, {16})),
                            TAPIO_FLOAT64, mine.data())
                      .ok());
      ASSERT_TRUE((*e)->end_step().ok());
      ASSERT_TRUE((*e)->close().ok());
    });
    ASSERT_TRUE(run.ok()) << run.message();
  }
  io::ScopedSyscalls restore_;
  TempDir dir_;
};

TEST_F(OnFakeLustre, CollectiveEngineCreatesTheFileWithTheRequestedLayout) {
  write("collective", dir_.file("x.nc"), {{"stripe_count", "4"}, {"stripe_size", "2MiB"}});
  ASSERT_EQ(lustre.requests.size(), 1u);  // rank 0 creates the one file
  EXPECT_EQ(lustre.requests[0].stripe_count, 4);
  EXPECT_EQ(lustre.requests[0].stripe_size, 2u << 20);
  EXPECT_EQ(lustre.requests[0].stripe_offset, io::LustreLayout::kAnyOst);
}

TEST_F(OnFakeLustre, SubfileEngineStripesEachDataSubfile) {
  write("subfile", dir_.file("x.tap"), {{"stripe_count", "2"}, {"subfile_write", "aggregate"}});
  ASSERT_EQ(lustre.requests.size(), 2u);  // one subfile per node
  for (const io::LustreLayout& l : lustre.requests) {
    EXPECT_EQ(l.stripe_count, 2);
    EXPECT_EQ(l.stripe_size, 0u);  // the directory's default
  }
}

TEST_F(OnFakeLustre, WithoutStripingParametersNoLayoutIsRequested) {
  write("collective", dir_.file("x.nc"), {});
  EXPECT_TRUE(lustre.requests.empty());
}

TEST(OffLustre, StripingParametersWarnOnceAndTheFileIsWritten) {
  std::vector<std::string> warnings;
  std::mutex m;
  const WarningSink previous = set_warning_sink([&](const std::string& w) {
    std::lock_guard<std::mutex> lock(m);
    warnings.push_back(w);
  });
  TempDir dir;  // /tmp: ext4 on this machine, not Lustre whatever it is
  comm::FakeWorld world(2);
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io.name = "unit";
    ctx.io.vars = {variable("A", {8})};
    auto e = open_on(c, &ctx, "collective", dir.file("x.nc"), OpenMode::kWrite,
                     {{"stripe_count", "4"}});
    ASSERT_TRUE(e.ok()) << e.status().message();
    ASSERT_TRUE((*e)->close().ok());
  });
  set_warning_sink(previous);
  ASSERT_TRUE(run.ok()) << run.message();
  if (io::detect_filesystem(dir.file("x.nc")).kind == io::FsKind::kLustre)
    GTEST_SKIP() << "/tmp is on Lustre";
  ASSERT_EQ(warnings.size(), 1u);  // rank 0 only
  EXPECT_NE(warnings[0].find("not Lustre: stripe_count = 4 is ignored"), std::string::npos)
      << warnings[0];
}

}  // namespace
}  // namespace tapio::test
