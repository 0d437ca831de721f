// A writer's lock (io/write_lock.h): a second lock on a held path is refused naming the path
// (and the holder a lock file records), nothing is truncated, release lets the next writer in;
// byte-range locks on the data (MPI-IO's) and closing other descriptors of the file leave it
// alone; the policy (file_locking, TAPIO_FILE_LOCKING) and a file system without locks (ENOLCK
// injected through the syscall table).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "io/memory_storage.h"
#include "io/storage.h"
#include "io/syscalls.h"
#include "io/test_util.h"

namespace tapio::io {
namespace {

using testing::slurp;
using testing::TempDir;

// Sets TAPIO_FILE_LOCKING for one test, restoring its absence after.
class ScopedLockingEnv {
 public:
  explicit ScopedLockingEnv(const char* value) { setenv(kLockingEnv, value, 1); }
  ~ScopedLockingEnv() { unsetenv(kLockingEnv); }
};

Result<std::unique_ptr<WriteLock>> take(const std::string& path, std::string_view policy,
                                        bool create = true, bool record = false) {
  LockRequest request;
  request.create = create;
  request.record_holder = record;
  return lock_writer(posix_storage(), path, policy, request);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(WriteLock, SecondWriterIsRefusedNamingPathAndHolderAndNothingIsTruncated) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  write_text(path, "committed steps");
  auto first = take(path, "true");
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_NE(*first, nullptr);
  auto second = take(path, "true");
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), TAPIO_ERR_IO);
  const std::string& msg = second.status().message();
  EXPECT_NE(msg.find("'" + path + "' is locked by another writer"), std::string::npos)
      << msg;
  const auto bytes = slurp(path);
  EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "committed steps");
  first->reset();  // released: the next writer gets it
  EXPECT_TRUE(take(path, "true").ok());
}

// MPI-IO locks byte ranges of the data around its writes (ROMIO and OMPIO on NFS, data
// sieving), from other descriptors of the same file: they must not meet the writer's lock, and
// closing them (or a reader's descriptor) must not drop it.
TEST(WriteLock, DataRangeLocksAndOtherDescriptorsLeaveItAlone) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  auto held = take(path, "true");
  ASSERT_TRUE(held.ok());
  const int other = open(path.c_str(), O_RDWR);
  ASSERT_GE(other, 0);
  struct flock data {};
  data.l_type = F_WRLCK;
  data.l_whence = SEEK_SET;
  data.l_len = off_t{1} << 40;  // a TiB of data from offset 0
  EXPECT_EQ(fcntl(other, F_SETLK, &data), 0) << "a lock on the data met the writer's lock";
  close(other);  // drops this process's own locks on the file
  EXPECT_EQ(take(path, "true").status().code(), TAPIO_ERR_IO) << "closing a descriptor dropped it";
}

TEST(WriteLock, LockFileRecordsItsHolderUntilReleased) {
  TempDir dir;
  const std::string path = dir.file("tapio.lock");
  auto first = take(path, "true", true, true);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const auto bytes = slurp(path);
  const std::string record(bytes.begin(), bytes.end());
  EXPECT_NE(record.find(fmt::format("pid {}, since ", getpid())), std::string::npos) << record;
  auto second = take(path, "true", true, true);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("(" + record.substr(0, record.size() - 1) + ")"),
            std::string::npos)
      << second.status().message();
  first->reset();
  EXPECT_TRUE(slurp(path).empty());  // no holder named once released
}

TEST(WriteLock, AppendDoesNotCreateAMissingFile) {
  TempDir dir;
  auto missing = take(dir.file("none.nc"), "true", false);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), TAPIO_ERR_NOT_FOUND);
  EXPECT_FALSE(std::ifstream(dir.file("none.nc")).good());
}

TEST(WriteLock, OffTakesNoLockAndTouchesNoFile) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  auto held = take(path, "true");
  ASSERT_TRUE(held.ok());
  auto off = take(path, "false");
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_EQ(*off, nullptr);
  auto elsewhere = take(dir.file("other.nc"), "false");
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_FALSE(std::ifstream(dir.file("other.nc")).good());
}

TEST(WriteLock, EnvironmentOverridesTheParameter) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  auto held = take(path, "true");
  ASSERT_TRUE(held.ok());
  {
    ScopedLockingEnv off("FALSE");  // HDF5_USE_FILE_LOCKING's spelling works too
    EXPECT_TRUE(take(path, "true").ok());
  }
  ScopedLockingEnv bad("maybe");
  auto refused = take(path, "false");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), TAPIO_ERR_CONFIG);
  EXPECT_NE(refused.status().message().find("TAPIO_FILE_LOCKING 'maybe'"), std::string::npos)
      << refused.status().message();
}

int no_locks(int, int, struct flock*) {
  errno = ENOLCK;
  return -1;
}

TEST(WriteLock, FileSystemWithoutLocksFailsNamingTheWayOutUnlessBestEffort) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  ScopedSyscalls restore;
  syscalls().lock = no_locks;
  auto refused = take(path, "true");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), TAPIO_ERR_UNSUPPORTED);
  const std::string& msg = refused.status().message();
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("file_locking = \"best_effort\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("TAPIO_FILE_LOCKING=best_effort"), std::string::npos) << msg;
  auto unlocked = take(path, "best_effort");
  ASSERT_TRUE(unlocked.ok()) << unlocked.status().message();
  EXPECT_EQ(*unlocked, nullptr);
}

TEST(WriteLock, BestEffortStillRefusesASecondWriterWhereLocksWork) {
  TempDir dir;
  const std::string path = dir.file("out.nc");
  auto held = take(path, "best_effort");
  ASSERT_TRUE(held.ok());
  ASSERT_NE(*held, nullptr);
  EXPECT_EQ(take(path, "best_effort").status().code(), TAPIO_ERR_IO);
}

TEST(WriteLock, MemoryStorageHoldsOneWriterPerPath) {
  MemoryStorage storage({"/d"});
  LockRequest create;
  create.create = true;
  auto first = lock_writer(storage, "/d/tapio.lock", "true", create);
  ASSERT_TRUE(first.ok());
  auto second = lock_writer(storage, "/d/tapio.lock", "true", create);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), TAPIO_ERR_IO);
  first->reset();
  EXPECT_TRUE(lock_writer(storage, "/d/tapio.lock", "true", create).ok());
}

}  // namespace
}  // namespace tapio::io
