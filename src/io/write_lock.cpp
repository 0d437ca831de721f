// A writer's lock (write_lock.h): the policy, and its POSIX implementation over flock(2).
#include "io/write_lock.h"

#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

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

// The holder of the flock on `fd`'s file, from the kernel's table (/proc/locks: this host's
// locks only): "host h, pid p", or "" when it is not there (another node holds it).
std::string holder_from_kernel(int fd) {
  struct stat st{};
  if (syscalls().fstat(fd, &st) != 0) return "";
  const std::string file = fmt::format("{:02x}:{:02x}:{}", major(st.st_dev), minor(st.st_dev),
                                       static_cast<unsigned long>(st.st_ino));
  std::ifstream locks("/proc/locks");
  for (std::string line; std::getline(locks, line);) {
    std::istringstream fields(line);
    std::string id, kind, advisory, access, pid, where;
    fields >> id >> kind >> advisory >> access >> pid >> where;  // a waiter's "->" shifts these
    if (kind == "FLOCK" && access == "WRITE" && where == file)
      return fmt::format("host {}, pid {}", host_name(), pid);
  }
  return "";
}

// Who holds the lock on `fd`'s file: the holder's own record (a lock file), else the kernel's.
std::string holder_of(int fd, bool recorded) {
  if (recorded) {
    char text[512] = {};
    const ssize_t n = syscalls().pread(fd, text, sizeof text - 1, 0);
    std::string line(text, n > 0 ? static_cast<size_t>(n) : 0);
    line.erase(std::find(line.begin(), line.end(), '\n'), line.end());
    if (!line.empty()) return line;
  }
  return holder_from_kernel(fd);
}

bool locks_unsupported(int err) {
  return err == ENOSYS || err == ENOLCK || err == EOPNOTSUPP || err == ENOTSUP;
}

class PosixWriteLock final : public WriteLock {
 public:
  PosixWriteLock(int fd, bool recorded) : fd_(fd), recorded_(recorded) {}
  ~PosixWriteLock() override {
    // The holder's line goes with the lock. Unlocking explicitly releases it even where a
    // forked child still shares the descriptor.
    if (recorded_) (void)syscalls().ftruncate(fd_, 0);
    (void)syscalls().flock(fd_, LOCK_UN);
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
    rc = syscalls().flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  const int err = errno;
  if (rc == 0) {
    auto lock = std::make_unique<PosixWriteLock>(fd, request.record_holder);
    if (request.record_holder) lock->record_holder();
    return std::unique_ptr<WriteLock>(std::move(lock));
  }
  Status refused;
  if (err == EWOULDBLOCK) {
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
