// fsync = step (docs/tuning.md, docs/reliability.md "After a crash"): when end_step returns,
// everything the step wrote through the I/O layer is on storage, its commit record included,
// on every engine. The I/O layer's system-call table records, per rank, the descriptors written
// since their last fsync; after each end_step none may be left. (The mpiio engine's data goes
// through MPI-IO, which the table does not see: its commit path is what is checked.)
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "io/syscalls.h"
#include "test_util.h"

namespace tapio::test {
namespace {

std::set<int> unsynced;  // descriptors this rank wrote since their last fsync
// A subfile dataset's lock file: its holder record names who writes, and is no data (it is
// not synced, which fsync = never must not be made to do at open).
std::set<int> lock_files;

int tracked_open(const char* path, int flags, mode_t mode) {
  const int fd = io::default_syscalls().open(path, flags, mode);
  const std::string name(path), lock = "/tapio.lock";
  if (fd >= 0 && name.size() >= lock.size() &&
      name.compare(name.size() - lock.size(), lock.size(), lock) == 0)
    lock_files.insert(fd);
  else
    lock_files.erase(fd);
  return fd;
}
ssize_t tracked_pwrite(int fd, const void* buf, size_t n, off_t off) {
  if (!lock_files.count(fd)) unsynced.insert(fd);
  return io::default_syscalls().pwrite(fd, buf, n, off);
}
ssize_t tracked_pwritev(int fd, const struct iovec* iov, int cnt, off_t off) {
  unsynced.insert(fd);
  return io::default_syscalls().pwritev(fd, iov, cnt, off);
}
int tracked_fsync(int fd) {
  const int rc = io::default_syscalls().fsync(fd);
  if (rc == 0) unsynced.erase(fd);
  return rc;
}

TEST(Durability, FsyncStepLeavesNothingUnsyncedAfterEndStep) {
  constexpr uint64_t kPerRank = 4096;
  for (const char* engine : {"serial", "mpiio", "collective", "subfile"}) {
    TempDir dir;
    io::ScopedSyscalls restore;
    io::syscalls().open = tracked_open;
    io::syscalls().pwrite = tracked_pwrite;
    io::syscalls().pwritev = tracked_pwritev;
    io::syscalls().fsync = tracked_fsync;
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("durability");
    io.set_engine(engine);
    io.set_parameter("fsync", "step");
    Variable x = io.define_variable<double>("x", {kPerRank * static_cast<uint64_t>(size())}, {"n"});
    x.set_selection(block_start(kPerRank), {kPerRank});
    Engine out = io.open(dir.file(std::string(engine) + ".out"), TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < 3; ++s) {
      const std::vector<double> data = block_values(kPerRank, s);  // read at end_step
      out.begin_step();
      out.put(x, data);
      out.end_step();
      EXPECT_TRUE(unsynced.empty()) << engine << ", step " << s << ": rank " << rank() << " has "
                                    << unsynced.size() << " descriptor(s) written, not synced";
    }
    out.close();
    unsynced.clear();
    expect_block_steps(engine, dir.file(std::string(engine) + ".out"), kPerRank, 3, engine);
  }
}

}  // namespace
}  // namespace tapio::test
