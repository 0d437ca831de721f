// A writer's lock (write_lock.h): the policy, and its POSIX implementation, a byte-range lock
// of the open file description (fcntl F_OFD_SETLK).
#include "io/write_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <ctime>

#include "io/posix_internal.h"
#include "io/storage.h"
#include "io/syscalls.h"

namespace tapio::io {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown host";
  return name;
}

// "host h, pid p, since 2026-11-27T15:04:05Z": what a lock file records of its holder.
std::string holder_line() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char when[32] = {};
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return fmt::format("host {}, pid {}, since {}\n", host_name(), getpid(), when);
}

// Who holds the lock on `fd`'s file, as its holder recorded it (a lock file); "" otherwise:
// the kernel names no owner of an open file description's lock (its pid shows as -1).
std::string holder_of(int fd, bool recorded) {
  if (!recorded) return "";
  char text[512] = {};
  const ssize_t n = syscalls().pread(fd, text, sizeof text - 1, 0);
  std::string line(text, n > 0 ? static_cast<size_t>(n) : 0);
  line.erase(std::find(line.begin(), line.end(), '\n'), line.end());
  return line;
}

// The byte a writer locks: far past any data, so that the byte-range locks MPI-IO takes around
// its own writes (ROMIO and OMPIO on NFS, data sieving) never meet it. A whole-file lock would:
// on NFS, flock(2) is emulated by a byte-range lock over the whole file, on which MPI-IO's
// writes would wait forever.
constexpr off_t kLockOffset = off_t{1} << 62;

// Set (F_WRLCK) or clear (F_UNLCK) the lock without waiting. An open file description's lock:
// owned by this descriptor, not the process, so closing another descriptor of the file (MPI-IO's,
// a reader's) keeps it, and a second open in the same process conflicts with it.
int set_lock(int fd, short type) {
#ifdef F_OFD_SETLK
  struct flock range {};
  range.l_type = type;
  range.l_whence = SEEK_SET;
  range.l_start = kLockOffset;
  range.l_len = 1;
  return syscalls().lock(fd, F_OFD_SETLK, &range);
#else
  (void)fd, (void)type;
  errno = ENOSYS;  // no such locks here: as a file system without locks
  return -1;
#endif
}

bool locks_unsupported(int err) {
  return err == ENOSYS || err == ENOLCK || err == EOPNOTSUPP || err == ENOTSUP;
}

class PosixWriteLock final : public WriteLock {
 public:
  PosixWriteLock(int fd, bool recorded) : fd_(fd), recorded_(recorded) {}
  ~PosixWriteLock() override {
    // The holder's line goes with the lock. Unlocking explicitly releases it even where a
    // forked child still shares the open file description.
    if (recorded_) (void)syscalls().ftruncate(fd_, 0);
    (void)set_lock(fd_, F_UNLCK);
    (void)syscalls().close(fd_);
  }
  // Best effort: the record only names the holder, and a full disk must not refuse a lock
  // that is held.
  void record_holder() {
    const std::string line = holder_line();
    if (syscalls().ftruncate(fd_, 0) == 0)
      (void)syscalls().pwrite(fd_, line.data(), line.size(), 0);
  }

 private:
  int fd_;
  bool recorded_;
};

}  // namespace

Result<Locking> locking_policy(std::string_view param) {
  const char* env = std::getenv(kLockingEnv);
  const std::string text = lower(env != nullptr ? std::string_view(env) : param);
  if (text == "true") return Locking::kOn;
  if (text == "best_effort") return Locking::kBestEffort;
  if (text == "false") return Locking::kOff;
  return error(TAPIO_ERR_CONFIG, "{} '{}' is not one of true, best_effort, false",
               env != nullptr ? kLockingEnv : "file_locking", text);
}

Status second_writer(const std::string& path, const std::string& holder) {
  return error(TAPIO_ERR_IO,
               "'{}' is locked by another writer{}: a second writer would overwrite or "
               "interleave its steps; wait until it closes, or write to another path",
               path, holder.empty() ? "" : fmt::format(" ({})", holder));
}

Result<std::unique_ptr<WriteLock>> lock_writer(Storage& storage, const std::string& path,
                                               std::string_view file_locking,
                                               LockRequest request) {
  TAPIO_ASSIGN_OR_RETURN(request.locking, locking_policy(file_locking));
  if (request.locking == Locking::kOff) return std::unique_ptr<WriteLock>();
  return storage.lock(path, request);
}

Result<std::unique_ptr<WriteLock>> lock_posix(const std::string& path,
                                              const LockRequest& request) {
  TAPIO_ASSIGN_OR_RETURN(const int fd,
                         open_posix_for_lock(path, request.create, request.striped));
  int rc = 0;
  do {
    rc = set_lock(fd, F_WRLCK);
  } while (rc != 0 && errno == EINTR);
  const int err = errno;
  if (rc == 0) {
    auto lock = std::make_unique<PosixWriteLock>(fd, request.record_holder);
    if (request.record_holder) lock->record_holder();
    return std::unique_ptr<WriteLock>(std::move(lock));
  }
  Status refused;
  if (err == EAGAIN || err == EACCES) {
    refused = second_writer(path, holder_of(fd, request.record_holder));
  } else if (!locks_unsupported(err)) {
    refused = error(TAPIO_ERR_IO, "locking '{}' against a second writer failed: {}", path,
                    errno_string(err));
  } else if (request.locking != Locking::kBestEffort) {
    refused = error(TAPIO_ERR_UNSUPPORTED,
                    "cannot lock '{}' against a second writer: the file system has no locks "
                    "({}); to write without the lock where locks are unsupported, set "
                    "file_locking = \"best_effort\" or {}=best_effort",
                    path, errno_string(err), kLockingEnv);
  }
  (void)syscalls().close(fd);
  if (!refused.ok()) return refused;
  return std::unique_ptr<WriteLock>();  // best effort: unlocked on this file system
}

}  // namespace tapio::io
