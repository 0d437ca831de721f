// Fault injection through the syscall table: errors, short transfers, EINTR, a pwrite that
// makes no progress, slow calls; and ScopedSyscalls itself.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <limits.h>
#include <sys/uio.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include "io/file.h"
#include "io/syscalls.h"
#include "io/test_util.h"

namespace tapio::io {
namespace {

using testing::expect_counts_eq;
using testing::pattern;
using testing::same_bytes;
using testing::slurp;
using testing::TempDir;

// State shared with the fake system calls below (plain function pointers cannot capture).
struct FaultState {
  int open_calls = 0, pread_calls = 0, pwrite_calls = 0, fsync_calls = 0, ftruncate_calls = 0,
      fstat_calls = 0, close_calls = 0, fallocate_calls = 0;
  int fail_on_call = 0;  // 1-based call number that fails (0: none)
  int fail_errno = 0;
  int open_flags = -1;
  mode_t open_mode = 0;
  std::chrono::milliseconds delay{0};
};
FaultState g;

const Syscalls& real() { return default_syscalls(); }

// Fails call number g.fail_on_call with g.fail_errno; otherwise the real call.
ssize_t pwrite_fail_nth(int fd, const void* buf, size_t n, off_t off) {
  if (++g.pwrite_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().pwrite(fd, buf, n, off);
}
ssize_t pread_fail_nth(int fd, void* buf, size_t n, off_t off) {
  if (++g.pread_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().pread(fd, buf, n, off);
}
int fsync_fail_nth(int fd) {
  if (++g.fsync_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().fsync(fd);
}
int open_fail_nth(const char* path, int flags, mode_t mode) {
  g.open_flags = flags;
  g.open_mode = mode;
  if (++g.open_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().open(path, flags, mode);
}
int ftruncate_fail_nth(int fd, off_t length) {
  if (++g.ftruncate_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().ftruncate(fd, length);
}
int fallocate_fail_nth(int fd, off_t offset, off_t length) {
  if (++g.fallocate_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().fallocate(fd, offset, length);
}
int fstat_fail_nth(int fd, struct stat* st) {
  if (++g.fstat_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().fstat(fd, st);
}
// Really closes, then reports g.fail_errno on call g.fail_on_call (as NFS may report EIO).
int close_fail_nth(int fd) {
  const int rc = real().close(fd);
  if (++g.close_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return rc;
}

// Short transfers: each call moves half of what was asked (at least 1 byte), then fails call
// g.fail_on_call if set.
ssize_t pwrite_half(int fd, const void* buf, size_t n, off_t off) {
  if (++g.pwrite_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().pwrite(fd, buf, n > 1 ? n / 2 : n, off);
}
ssize_t pread_half(int fd, void* buf, size_t n, off_t off) {
  ++g.pread_calls;
  return real().pread(fd, buf, n > 1 ? n / 2 : n, off);
}

// Returns 0 for every nonzero request. After 1000 calls it gives up with ENOSPC so that a
// regression makes the test fail instead of hanging it.
ssize_t pwrite_zero(int fd, const void* buf, size_t n, off_t off) {
  if (++g.pwrite_calls > 1000) {
    errno = ENOSPC;
    return -1;
  }
  (void)fd, (void)buf, (void)n, (void)off;
  return 0;
}
// The first call writes half, then no progress.
ssize_t pwrite_half_then_zero(int fd, const void* buf, size_t n, off_t off) {
  if (++g.pwrite_calls == 1) return real().pwrite(fd, buf, n / 2, off);
  if (g.pwrite_calls > 1000) {
    errno = ENOSPC;
    return -1;
  }
  return 0;
}
ssize_t pwrite_too_much(int fd, const void* buf, size_t n, off_t off) {
  ++g.pwrite_calls;
  const ssize_t r = real().pwrite(fd, buf, n, off);
  return r < 0 ? r : r + 1;
}

// Slow storage.
ssize_t pwrite_slow(int fd, const void* buf, size_t n, off_t off) {
  ++g.pwrite_calls;
  std::this_thread::sleep_for(g.delay);
  if (g.pwrite_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  return real().pwrite(fd, buf, n, off);
}
int fsync_slow(int fd) {
  ++g.fsync_calls;
  std::this_thread::sleep_for(g.delay);
  return real().fsync(fd);
}

class FaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g = FaultState{};
    path_ = dir_.file("out.nc");
  }

  std::unique_ptr<File> create() {
    auto file = open_posix(path_, OpenMode::kCreate, &counters_);
    EXPECT_TRUE(file.ok()) << file.status().message();
    return file.ok() ? std::move(file).value() : nullptr;
  }
  std::string quoted() const { return "'" + path_ + "'"; }

  ScopedSyscalls restore_;  // every test leaves the real table behind
  TempDir dir_;
  std::string path_;
  Counters counters_;
};

TEST_F(FaultTest, EioOnThirdPwrite) {
  syscalls().pwrite = pwrite_fail_nth;
  g.fail_on_call = 3;
  g.fail_errno = EIO;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(300, 1);
  IO_ASSERT_OK(file->write_at(0, data.data(), 100));
  IO_ASSERT_OK(file->write_at(100, data.data() + 100, 100));
  Status s = file->write_at(200, data.data() + 200, 100);
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(),
            "write of 100 bytes at offset 200 to " + quoted() + " failed: Input/output error");
  EXPECT_EQ(g.pwrite_calls, 3) << "EIO must not be retried";
  // The failed call is not counted (as in Darshan), the two before it are.
  EXPECT_EQ(counters_.writes, 2u);
  EXPECT_EQ(counters_.bytes_written, 200u);
  EXPECT_EQ(counters_.max_byte_written, 200u);
  EXPECT_EQ(counters_.write_size_hist[0], 2u);
  // What did reach the disk is intact.
  const std::vector<unsigned char> disk = slurp(path_);
  ASSERT_EQ(disk.size(), 200u);
  EXPECT_TRUE(same_bytes(data.data(), disk.data(), 200));
}

TEST_F(FaultTest, EioAfterShortWritesSaysHowFarItGot) {
  syscalls().pwrite = pwrite_half;
  g.fail_on_call = 3;
  g.fail_errno = EIO;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(1000, 2);
  Status s = file->write_at(0, data.data(), data.size());
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "write of 1000 bytes at offset 0 to " + quoted() +
                             " failed after 750 bytes: Input/output error");
  EXPECT_EQ(counters_.writes, 2u);
  EXPECT_EQ(counters_.bytes_written, 750u);
}

TEST_F(FaultTest, Enospc) {
  syscalls().pwrite = pwrite_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = ENOSPC;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data(4194304, 1);
  Status s = file->write_at(8192, data.data(), data.size());
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "write of 4194304 bytes at offset 8192 to " + quoted() +
                             " failed: No space left on device");
  EXPECT_EQ(g.pwrite_calls, 1);
  EXPECT_EQ(counters_.writes, 0u);
}

TEST_F(FaultTest, ShortWritesStillWriteEverything) {
  syscalls().pwrite = pwrite_half;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(1024, 3);
  IO_ASSERT_OK(file->write_at(7, data.data(), data.size()));
  // Remaining 1024 -> calls write 512, 256, 128, 64, 32, 16, 8, 4, 2, 1, then the last byte.
  EXPECT_EQ(g.pwrite_calls, 11);
  Counters expected;
  expected.opens = 1;
  expected.writes = 11;  // each short write is a request the storage saw
  expected.bytes_written = 1024;
  expected.max_byte_written = 7 + 1024;
  expected.write_size_hist[1] = 3;  // 512, 256, 128
  expected.write_size_hist[0] = 8;  // 64 ... 1, 1
  expect_counts_eq(expected, counters_);
  IO_ASSERT_OK(file->close());
  const std::vector<unsigned char> disk = slurp(path_);
  ASSERT_EQ(disk.size(), 7u + 1024u);
  const std::vector<unsigned char> zeros(7, 0);
  EXPECT_TRUE(same_bytes(zeros.data(), disk.data(), 7));
  EXPECT_TRUE(same_bytes(data.data(), disk.data() + 7, data.size()));
}

TEST_F(FaultTest, ShortWritesOfALargeBuffer) {
  syscalls().pwrite = pwrite_half;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(3 * 1024 * 1024 + 333, 4);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  EXPECT_EQ(counters_.writes, static_cast<uint64_t>(g.pwrite_calls));
  EXPECT_GE(g.pwrite_calls, 22);  // at least log2(size) halvings
  EXPECT_EQ(counters_.bytes_written, data.size());
  IO_ASSERT_OK(file->close());
  const std::vector<unsigned char> disk = slurp(path_);
  ASSERT_EQ(disk.size(), data.size());
  EXPECT_TRUE(same_bytes(data.data(), disk.data(), data.size()));
}

TEST_F(FaultTest, ShortReadsStillReadEverything) {
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(1024, 5);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  syscalls().pread = pread_half;
  std::vector<unsigned char> back(1024);
  size_t got = 0;
  IO_ASSERT_OK(file->read_at(0, back.data(), back.size(), &got));
  EXPECT_EQ(got, 1024u);
  EXPECT_TRUE(same_bytes(data.data(), back.data(), back.size()));
  EXPECT_EQ(g.pread_calls, 11);
  EXPECT_EQ(counters_.reads, 11u);
  EXPECT_EQ(counters_.bytes_read, 1024u);
  EXPECT_EQ(counters_.max_byte_read, 1024u);
  // A short read at the end of the file: data, then 0 bytes.
  g.pread_calls = 0;
  IO_ASSERT_OK(file->read_at(1000, back.data(), 100, &got));
  EXPECT_EQ(got, 24u);
  EXPECT_TRUE(same_bytes(data.data() + 1000, back.data(), 24));
}

TEST_F(FaultTest, EintrOnceThenSuccess) {
  syscalls().open = open_fail_nth;
  syscalls().pwrite = pwrite_fail_nth;
  syscalls().pread = pread_fail_nth;
  syscalls().fsync = fsync_fail_nth;
  syscalls().ftruncate = ftruncate_fail_nth;
  syscalls().fstat = fstat_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EINTR;
  auto file = create();
  ASSERT_TRUE(file);
  EXPECT_EQ(g.open_calls, 2);
  const std::vector<unsigned char> data = pattern(5000, 6);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  EXPECT_EQ(g.pwrite_calls, 2);
  std::vector<unsigned char> back(5000);
  IO_ASSERT_OK(file->read_exact(0, back.data(), back.size()));
  EXPECT_EQ(g.pread_calls, 2);
  EXPECT_TRUE(same_bytes(data.data(), back.data(), back.size()));
  IO_ASSERT_OK(file->sync());
  EXPECT_EQ(g.fsync_calls, 2);
  IO_ASSERT_OK(file->truncate(100));
  EXPECT_EQ(g.ftruncate_calls, 2);
  auto size = file->size();
  IO_ASSERT_OK(size);
  EXPECT_EQ(*size, 100u);
  EXPECT_EQ(g.fstat_calls, 2);
  // The interrupted calls transferred nothing and are not counted.
  Counters expected;
  expected.opens = 1;
  expected.writes = 1;
  expected.bytes_written = 5000;
  expected.max_byte_written = 5000;
  expected.write_size_hist[2] = 1;
  expected.reads = 1;
  expected.bytes_read = 5000;
  expected.max_byte_read = 5000;
  expected.read_size_hist[2] = 1;
  expected.fsyncs = 1;
  expect_counts_eq(expected, counters_);
}

TEST_F(FaultTest, PwriteReturningZeroIsAnErrorNotAHang) {
  syscalls().pwrite = pwrite_zero;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(4096, 7);
  Status s = file->write_at(64, data.data(), data.size());
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "write of 4096 bytes at offset 64 to " + quoted() +
                             " failed: pwrite made no progress (wrote 0 of 4096 bytes)");
  EXPECT_EQ(g.pwrite_calls, 1);
  EXPECT_EQ(counters_.writes, 1u);  // the call did return; it is what the storage saw
  EXPECT_EQ(counters_.bytes_written, 0u);
  EXPECT_EQ(counters_.max_byte_written, 0u);
}

TEST_F(FaultTest, PwriteStallingMidwayIsAnError) {
  syscalls().pwrite = pwrite_half_then_zero;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(1000, 8);
  Status s = file->write_at(0, data.data(), data.size());
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "write of 1000 bytes at offset 0 to " + quoted() +
                             " failed after 500 bytes: pwrite made no progress (wrote 0 of "
                             "500 bytes)");
  EXPECT_EQ(g.pwrite_calls, 2);
}

TEST_F(FaultTest, PwriteClaimingTooMuchIsAnError) {
  syscalls().pwrite = pwrite_too_much;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(100, 9);
  Status s = file->write_at(0, data.data(), data.size());
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_NE(s.message().find("pwrite reported 101 bytes for a request of 100"), std::string::npos)
      << s.message();
  EXPECT_EQ(g.pwrite_calls, 1);
}

TEST_F(FaultTest, ReadErrorNamesTheRequest) {
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(100, 10);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  syscalls().pread = pread_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EIO;
  std::vector<unsigned char> back(10);
  size_t got = 99;
  Status s = file->read_at(5, back.data(), back.size(), &got);
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(),
            "read of 10 bytes at offset 5 from " + quoted() + " failed: Input/output error");
  EXPECT_EQ(got, 0u);
  EXPECT_EQ(counters_.reads, 0u);
  // read_exact passes an I/O error through; it is not a truncated file.
  g.pread_calls = 0;
  s = file->read_exact(5, back.data(), back.size());
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
}

TEST_F(FaultTest, FsyncFailure) {
  syscalls().fsync = fsync_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EIO;
  auto file = create();
  ASSERT_TRUE(file);
  Status s = file->sync();
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "fsync of " + quoted() + " failed: Input/output error");
  EXPECT_EQ(g.fsync_calls, 1) << "a failed fsync must not be retried";
  EXPECT_EQ(counters_.fsyncs, 0u);
  EXPECT_GT(counters_.meta_time, 0.0);
}

TEST_F(FaultTest, TruncateAndStatFailures) {
  syscalls().ftruncate = ftruncate_fail_nth;
  syscalls().fstat = fstat_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EFBIG;
  auto file = create();
  ASSERT_TRUE(file);
  Status s = file->truncate(4096);
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "truncate of " + quoted() + " to 4096 bytes failed: File too large");
  g.fail_errno = EIO;
  auto size = file->size();
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.status().code(), TAPIO_ERR_IO);
  EXPECT_EQ(size.status().message(), "stat of " + quoted() + " failed: Input/output error");
}

// allocate reserves a range and grows the file over it; a full disk is an I/O error naming
// the range and the file (the size unchanged), EINTR is retried, and a file system that can
// reserve nothing answers TAPIO_ERR_UNSUPPORTED.
TEST_F(FaultTest, AllocateReservesAndReportsAFullDisk) {
  syscalls().fallocate = fallocate_fail_nth;
  auto file = create();
  ASSERT_TRUE(file);
  ASSERT_TRUE(file->allocate(0, 8192).ok());
  EXPECT_EQ(*file->size(), 8192u);
  g.fail_on_call = 2;
  g.fail_errno = ENOSPC;
  Status s = file->allocate(8192, 4096);
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "reserving bytes 8192 to 12288 of " + quoted() +
                             " failed: No space left on device");
  EXPECT_EQ(*file->size(), 8192u);
  g.fail_on_call = 3;
  g.fail_errno = EINTR;
  EXPECT_TRUE(file->allocate(8192, 4096).ok());
  EXPECT_EQ(g.fallocate_calls, 4) << "EINTR is retried once";
  EXPECT_EQ(*file->size(), 12288u);
  g.fail_on_call = 5;
  g.fail_errno = EOPNOTSUPP;
  EXPECT_EQ(file->allocate(12288, 1).code(), TAPIO_ERR_UNSUPPORTED);
}

TEST_F(FaultTest, OpenErrorOtherThanMissingIsIoError) {
  syscalls().open = open_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EACCES;
  auto file = open_posix(path_, OpenMode::kCreate, &counters_);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), TAPIO_ERR_IO);
  EXPECT_EQ(file.status().message(), "open of " + quoted() + " for create failed: Permission denied");
  EXPECT_EQ(counters_.opens, 0u);
}

TEST_F(FaultTest, OpenFlagsPerMode) {
  syscalls().open = open_fail_nth;
  auto file = create();
  ASSERT_TRUE(file);
  EXPECT_EQ(g.open_flags, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC);
  EXPECT_EQ(g.open_mode, 0666u) << "permissions come from the umask";
  file.reset();
  ASSERT_TRUE(open_posix(path_, OpenMode::kReadOnly, nullptr).ok());
  EXPECT_EQ(g.open_flags, O_RDONLY | O_CLOEXEC);
  ASSERT_TRUE(open_posix(path_, OpenMode::kReadWrite, nullptr).ok());
  EXPECT_EQ(g.open_flags, O_RDWR | O_CLOEXEC);
  EXPECT_EQ(g.open_flags & O_APPEND, 0);
}

TEST_F(FaultTest, DestructorClosesExactlyOnce) {
  syscalls().close = close_fail_nth;
  create().reset();
  EXPECT_EQ(g.close_calls, 1);
  auto file = create();
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->close());
  IO_ASSERT_OK(file->close());
  file.reset();
  EXPECT_EQ(g.close_calls, 2);
}

TEST_F(FaultTest, CloseFailureIsReportedOnce) {
  syscalls().close = close_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EIO;
  auto file = create();
  ASSERT_TRUE(file);
  Status s = file->close();
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "close of " + quoted() + " failed: Input/output error");
  IO_ASSERT_OK(file->close());  // the descriptor is gone either way
  file.reset();
  EXPECT_EQ(g.close_calls, 1);
}

TEST_F(FaultTest, CloseInterruptedIsNotAnError) {
  syscalls().close = close_fail_nth;
  g.fail_on_call = 1;
  g.fail_errno = EINTR;
  auto file = create();
  ASSERT_TRUE(file);
  IO_ASSERT_OK(file->close());
  EXPECT_EQ(g.close_calls, 1) << "close must never be retried";
}

TEST_F(FaultTest, TimeBlockedIsCounted) {
  syscalls().pwrite = pwrite_slow;
  syscalls().fsync = fsync_slow;
  g.delay = std::chrono::milliseconds(20);
  g.fail_on_call = 2;
  g.fail_errno = EIO;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(10, 11);
  IO_ASSERT_OK(file->write_at(0, data.data(), data.size()));
  EXPECT_GE(counters_.write_time, 0.020);
  // A failed call blocked the caller too: its time counts, the call does not.
  EXPECT_FALSE(file->write_at(10, data.data(), data.size()).ok());
  EXPECT_GE(counters_.write_time, 0.040);
  EXPECT_EQ(counters_.writes, 1u);
  const double meta_before = counters_.meta_time;
  IO_ASSERT_OK(file->sync());
  EXPECT_GE(counters_.meta_time - meta_before, 0.020);
  EXPECT_EQ(counters_.read_time, 0.0);
}

TEST(ScopedSyscalls, RestoresTheTable) {
  const Syscalls before = syscalls();
  EXPECT_EQ(before.pwrite, default_syscalls().pwrite);
  {
    ScopedSyscalls outer;
    syscalls().pwrite = pwrite_zero;
    syscalls().fsync = fsync_fail_nth;
    {
      ScopedSyscalls inner;
      syscalls().pread = pread_half;
      syscalls().pwrite = pwrite_half;
    }
    // The inner scope restores what the outer one had set.
    EXPECT_EQ(syscalls().pwrite, &pwrite_zero);
    EXPECT_EQ(syscalls().pread, default_syscalls().pread);
    EXPECT_EQ(syscalls().fsync, &fsync_fail_nth);
  }
  const Syscalls& after = syscalls();
  const Syscalls& real_table = default_syscalls();
  EXPECT_EQ(after.open, real_table.open);
  EXPECT_EQ(after.pread, real_table.pread);
  EXPECT_EQ(after.pwrite, real_table.pwrite);
  EXPECT_EQ(after.fsync, real_table.fsync);
  EXPECT_EQ(after.ftruncate, real_table.ftruncate);
  EXPECT_EQ(after.fstat, real_table.fstat);
  EXPECT_EQ(after.close, real_table.close);
  EXPECT_EQ(after.fallocate, real_table.fallocate);
  EXPECT_NE(&after, &real_table) << "tests patch a copy, never the real table";
}

}  // namespace
}  // namespace tapio::io

namespace tapio::io {
namespace {

// pwritev that writes at most half of what it is asked (at least one byte), fails call number
// g.fail_on_call with g.fail_errno, and is interrupted (EINTR) every third call.
ssize_t pwritev_half(int fd, const struct iovec* iov, int n, off_t off) {
  ++g.pwrite_calls;
  if (g.pwrite_calls == g.fail_on_call) {
    errno = g.fail_errno;
    return -1;
  }
  if (g.pwrite_calls % 3 == 0) {
    errno = EINTR;
    return -1;
  }
  size_t total = 0;
  for (int i = 0; i < n; ++i) total += iov[i].iov_len;
  size_t want = std::max<size_t>(1, total / 2);
  std::vector<struct iovec> cut;
  for (int i = 0; i < n && want > 0; ++i) {
    cut.push_back(iov[i]);
    cut.back().iov_len = std::min(want, iov[i].iov_len);
    want -= cut.back().iov_len;
  }
  return real().pwritev(fd, cut.data(), static_cast<int>(cut.size()), off);
}

// Pieces of every size (empty ones too, more than IOV_MAX of them) land back to back whatever
// the storage does with each request: short writes and EINTR resume where they stopped, and
// each call is one counted request.
TEST_F(FaultTest, GatheredWritesSurviveShortWritesAndEintr) {
  syscalls().pwritev = pwritev_half;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(200000, 5);
  std::vector<ConstBytes> pieces;
  for (size_t at = 0, k = 0; at < data.size(); ++k) {
    const size_t n = std::min(data.size() - at, k % 7 == 0 ? size_t{0} : (k * 37) % 300);
    pieces.push_back(ConstBytes{data.data() + at, n});
    at += n;
  }
  ASSERT_GT(pieces.size(), static_cast<size_t>(IOV_MAX));
  IO_ASSERT_OK(file->write_gathered_at(10, pieces.data(), pieces.size()));
  const std::vector<unsigned char> disk = slurp(path_);
  ASSERT_EQ(disk.size(), 10 + data.size());
  EXPECT_TRUE(same_bytes(data.data(), disk.data() + 10, data.size()));
  EXPECT_EQ(counters_.bytes_written, data.size());
  EXPECT_EQ(counters_.writes, static_cast<uint64_t>(g.pwrite_calls - g.pwrite_calls / 3));
}

TEST_F(FaultTest, GatheredWriteErrorSaysHowFarItGot) {
  syscalls().pwritev = pwritev_half;
  g.fail_on_call = 2;
  g.fail_errno = ENOSPC;
  auto file = create();
  ASSERT_TRUE(file);
  const std::vector<unsigned char> data = pattern(1000, 6);
  const ConstBytes pieces[] = {{data.data(), 600}, {data.data() + 600, 400}};
  const Status s = file->write_gathered_at(0, pieces, 2);
  EXPECT_EQ(s.code(), TAPIO_ERR_IO);
  EXPECT_EQ(s.message(), "write of 1000 bytes in 2 pieces at offset 0 to " + quoted() +
                             " failed after 500 bytes: No space left on device");
}

}  // namespace
}  // namespace tapio::io
