// The POSIX transport: pread/pwrite on one file descriptor, every call through syscalls() and
// counted in the caller's Counters.
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>
#include <limits>

#include "io/file.h"
#include "io/posix_internal.h"
#include "io/syscalls.h"

namespace tapio::io {
namespace {

// strerror_r is the GNU variant (returns char*) or the XSI one (returns int) depending on the
// C library and feature macros; these overloads accept either. strerror is not thread-safe.
[[maybe_unused]] const char* strerror_result(char* result, char*) { return result; }
[[maybe_unused]] const char* strerror_result(int result, char* buf) {
  return result == 0 ? buf : "Unknown error";
}

}  // namespace

std::string errno_string(int err) {
  char buf[256] = {};
  return strerror_result(strerror_r(err, buf, sizeof buf), buf);
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

constexpr uint64_t kMaxOffset = static_cast<uint64_t>(std::numeric_limits<off_t>::max());

// Largest request handed to one pread/pwrite: Linux transfers at most 0x7ffff000 bytes per call
// anyway, and some systems (macOS) reject requests above INT_MAX with EINVAL.
constexpr size_t kMaxChunk = 0x7ffff000;

// True when [offset, offset + n) is addressable with off_t.
bool fits_off_t(uint64_t offset, uint64_t n) {
  return offset <= kMaxOffset && n <= kMaxOffset - offset;
}

// " after N bytes" when part of a request completed before it failed, else "".
std::string progress(size_t done) {
  return done == 0 ? std::string() : fmt::format(" after {} bytes", done);
}

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd, Counters* counters)
      : path_(std::move(path)), fd_(fd), counters_(counters) {}
  ~PosixFile() override { (void)close(); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  Status write_at(uint64_t offset, const void* data, size_t n) override;
  Status write_gathered_at(uint64_t offset, const ConstBytes* pieces, size_t count) override;
  Status read_at(uint64_t offset, void* data, size_t n, size_t* got) override;
  Status sync() override;
  void start_writeback(uint64_t offset, uint64_t length) override {
    if (fd_ >= 0 && fits_off_t(offset, length))
      (void)syscalls().start_writeback(fd_, static_cast<off_t>(offset), static_cast<off_t>(length));
  }
  Status truncate(uint64_t size) override;
  Status allocate(uint64_t offset, uint64_t length) override;
  Result<uint64_t> size() override;
  Status close() override;
  const std::string& path() const override { return path_; }

 private:
  void add_meta_time(double seconds) {
    if (counters_ != nullptr) counters_->update([&](Counters& c) { c.meta_time += seconds; });
  }
  template <typename Call>
  Result<size_t> write_call(Call&& call, const char* name, uint64_t offset, size_t request,
                            const std::function<std::string()>& what, size_t done);
  Status closed_error(const std::string& what) const {
    return error(TAPIO_ERR_STATE, "{} failed: '{}' is closed", what, path_);
  }

  std::string path_;
  int fd_;
  Counters* counters_;
};

// One write system call (`call` returns what pwrite returns) of `request` bytes at `offset`,
// retried on EINTR; the bytes it wrote (at least one) or an error saying how far the whole
// write got (`done` bytes before this call).
template <typename Call>
Result<size_t> PosixFile::write_call(Call&& call, const char* name, uint64_t offset,
                                     size_t request, const std::function<std::string()>& what,
                                     size_t done) {
  for (;;) {
    const Clock::time_point start = Clock::now();
    const ssize_t r = call();
    const int err = errno;
    const double seconds = seconds_since(start);
    if (r < 0) {
      // A failed call is not a request the storage served (Darshan does not count it either),
      // but the caller was blocked in it.
      if (counters_ != nullptr) counters_->update([&](Counters& c) { c.write_time += seconds; });
      if (err == EINTR) continue;
      return error(TAPIO_ERR_IO, "{} failed{}: {}", what(), progress(done), errno_string(err));
    }
    // Every call is counted once, with its own size: a write that takes 3 calls because of
    // short writes counts 3 POSIX_WRITES, because that is what the storage saw.
    if (counters_ != nullptr) counters_->record_write(offset, static_cast<uint64_t>(r), seconds);
    if (r == 0) {
      // No progress and no errno: retrying would spin forever.
      return error(TAPIO_ERR_IO, "{} failed{}: {} made no progress (wrote 0 of {} bytes)", what(),
                   progress(done), name, request);
    }
    if (static_cast<size_t>(r) > request) {
      return error(TAPIO_ERR_IO, "{} failed{}: {} reported {} bytes for a request of {}", what(),
                   progress(done), name, r, request);
    }
    return static_cast<size_t>(r);
  }
}

Status PosixFile::write_at(uint64_t offset, const void* data, size_t n) {
  const std::function<std::string()> what = [&] {
    return fmt::format("write of {} bytes at offset {} to '{}'", n, offset, path_);
  };
  if (fd_ < 0) return closed_error(what());
  if (!fits_off_t(offset, n)) {
    return error(TAPIO_ERR_ARG, "{} failed: beyond the largest file offset {}", what(), kMaxOffset);
  }
  const char* bytes = static_cast<const char*>(data);
  size_t done = 0;
  while (done < n) {
    const size_t request = std::min(n - done, kMaxChunk);
    const uint64_t at = offset + done;
    auto call = [&] {
      return syscalls().pwrite(fd_, bytes + done, request, static_cast<off_t>(at));
    };
    TAPIO_ASSIGN_OR_RETURN(const size_t wrote, write_call(call, "pwrite", at, request, what, done));
    done += wrote;
  }
  return ok_status();
}

// Pieces go out IOV_MAX at a time and at most kMaxChunk bytes per call (a larger piece is cut);
// after a short write the rest of the same request goes again, from where it stopped.
Status PosixFile::write_gathered_at(uint64_t offset, const ConstBytes* pieces, size_t count) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) total += pieces[i].size;
  const std::function<std::string()> what = [&] {
    return fmt::format("write of {} bytes in {} pieces at offset {} to '{}'", total, count, offset,
                       path_);
  };
  if (fd_ < 0) return closed_error(what());
  if (!fits_off_t(offset, total))
    return error(TAPIO_ERR_ARG, "{} failed: beyond the largest file offset {}", what(), kMaxOffset);
  std::vector<iovec> iov;
  size_t piece = 0, used = 0;  // the next byte to write: pieces[piece], `used` bytes in
  uint64_t done = 0;
  while (done < total) {
    iov.clear();
    size_t request = 0;
    for (size_t p = piece, u = used; p < count && iov.size() < IOV_MAX && request < kMaxChunk;
         ++p, u = 0) {
      const size_t take = std::min(pieces[p].size - u, kMaxChunk - request);
      if (take == 0) continue;
      iov.push_back(iovec{const_cast<char*>(static_cast<const char*>(pieces[p].data)) + u, take});
      request += take;
    }
    const uint64_t at = offset + done;
    TAPIO_ASSIGN_OR_RETURN(size_t wrote, write_call(
                                             [&] {
                                               return syscalls().pwritev(
                                                   fd_, iov.data(), static_cast<int>(iov.size()),
                                                   static_cast<off_t>(at));
                                             },
                                             "pwritev", at, request, what, done));
    done += wrote;
    for (wrote += used; piece < count && wrote >= pieces[piece].size; ++piece)
      wrote -= pieces[piece].size;
    used = wrote;
  }
  return ok_status();
}

Status PosixFile::read_at(uint64_t offset, void* data, size_t n, size_t* got) {
  size_t done = 0;
  if (got != nullptr) *got = 0;
  auto what = [&] { return fmt::format("read of {} bytes at offset {} from '{}'", n, offset, path_); };
  if (fd_ < 0) return closed_error(what());
  if (!fits_off_t(offset, n)) {
    return error(TAPIO_ERR_ARG, "{} failed: beyond the largest file offset {}", what(), kMaxOffset);
  }
  char* bytes = static_cast<char*>(data);
  while (done < n) {
    const size_t request = std::min(n - done, kMaxChunk);
    const uint64_t at = offset + done;
    const Clock::time_point start = Clock::now();
    const ssize_t r = syscalls().pread(fd_, bytes + done, request, static_cast<off_t>(at));
    const int err = errno;
    const double seconds = seconds_since(start);
    if (r < 0) {
      if (counters_ != nullptr) counters_->update([&](Counters& c) { c.read_time += seconds; });
      if (err == EINTR) continue;
      if (got != nullptr) *got = done;
      return error(TAPIO_ERR_IO, "{} failed{}: {}", what(), progress(done), errno_string(err));
    }
    // As for writes, each pread is counted: the one that returns 0 at end of file too.
    if (counters_ != nullptr) counters_->record_read(at, static_cast<uint64_t>(r), seconds);
    if (r == 0) break;  // end of file
    if (static_cast<size_t>(r) > request) {
      if (got != nullptr) *got = done;
      return error(TAPIO_ERR_IO, "{} failed{}: pread reported {} bytes for a request of {}",
                   what(), progress(done), r, request);
    }
    done += static_cast<size_t>(r);
  }
  if (got != nullptr) *got = done;
  return ok_status();
}

Status PosixFile::sync() {
  if (fd_ < 0) return closed_error(fmt::format("fsync of '{}'", path_));
  for (;;) {
    const Clock::time_point start = Clock::now();
    const int rc = syscalls().fsync(fd_);
    const int err = errno;
    add_meta_time(seconds_since(start));
    if (rc == 0) {
      if (counters_ != nullptr) counters_->update([](Counters& c) { c.fsyncs += 1; });
      return ok_status();
    }
    // Only EINTR is retried: after EIO, Linux may drop the dirty pages and a second fsync
    // would report success for data that never reached the disk.
    if (err == EINTR) continue;
    return error(TAPIO_ERR_IO, "fsync of '{}' failed: {}", path_, errno_string(err));
  }
}

Status PosixFile::truncate(uint64_t size) {
  auto what = [&] { return fmt::format("truncate of '{}' to {} bytes", path_, size); };
  if (fd_ < 0) return closed_error(what());
  if (!fits_off_t(size, 0)) {
    return error(TAPIO_ERR_ARG, "{} failed: beyond the largest file offset {}", what(), kMaxOffset);
  }
  for (;;) {
    const Clock::time_point start = Clock::now();
    const int rc = syscalls().ftruncate(fd_, static_cast<off_t>(size));
    const int err = errno;
    add_meta_time(seconds_since(start));
    if (rc == 0) return ok_status();
    if (err == EINTR) continue;
    return error(TAPIO_ERR_IO, "{} failed: {}", what(), errno_string(err));
  }
}

Status PosixFile::allocate(uint64_t offset, uint64_t length) {
  auto what = [&] {
    return fmt::format("reserving bytes {} to {} of '{}'", offset, offset + length, path_);
  };
  if (fd_ < 0) return closed_error(what());
  if (!fits_off_t(offset, length))
    return error(TAPIO_ERR_ARG, "{} failed: beyond the largest file offset {}", what(), kMaxOffset);
  for (;;) {
    const Clock::time_point start = Clock::now();
    const int rc =
        syscalls().fallocate(fd_, static_cast<off_t>(offset), static_cast<off_t>(length));
    const int err = errno;
    add_meta_time(seconds_since(start));
    if (rc == 0) return ok_status();
    if (err == EINTR) continue;
    // posix_fallocate's answers for a file system that can do neither fallocate nor its emulation.
    const bool unsupported = err == EOPNOTSUPP || err == ENOSYS || err == EINVAL;
    const Code code = unsupported ? TAPIO_ERR_UNSUPPORTED : TAPIO_ERR_IO;
    return error(code, "{} failed: {}", what(), errno_string(err));
  }
}

Result<uint64_t> PosixFile::size() {
  if (fd_ < 0) return closed_error(fmt::format("stat of '{}'", path_));
  struct stat st;
  for (;;) {
    const Clock::time_point start = Clock::now();
    const int rc = syscalls().fstat(fd_, &st);
    const int err = errno;
    add_meta_time(seconds_since(start));
    if (rc == 0) break;
    if (err == EINTR) continue;
    return error(TAPIO_ERR_IO, "stat of '{}' failed: {}", path_, errno_string(err));
  }
  return static_cast<uint64_t>(st.st_size);
}

Status PosixFile::close() {
  if (fd_ < 0) return ok_status();
  // The descriptor is given up whatever close returns; it must never be closed twice, since
  // another thread may already have been handed the same number.
  const int fd = fd_;
  fd_ = -1;
  const Clock::time_point start = Clock::now();
  const int rc = syscalls().close(fd);
  const int err = errno;
  add_meta_time(seconds_since(start));
  // EINTR is not an error here: Linux has released the descriptor, and retrying could close
  // a descriptor another thread has just opened.
  if (rc != 0 && err != EINTR) {
    return error(TAPIO_ERR_IO, "close of '{}' failed: {}", path_, errno_string(err));
  }
  return ok_status();
}

// Lustre's O_LOV_DELAY_CREATE (lustre_user.h, Lustre 2.4 and later): open a new file without
// allocating its objects, so that its layout can still be set.
constexpr int kLovDelayCreate = O_NOCTTY | FASYNC;

// Give a file just created without objects its Lustre layout.
Status set_striping(int fd, const std::string& path, const LustreLayout& layout) {
  const std::vector<uint8_t> lum = encode_lov_user_md(layout);
  const int rc = syscalls().fsetxattr(fd, kLustreLayoutXattr, lum.data(), lum.size(), 0);
  const int err = errno;
  if (rc == 0 || err == EEXIST) return ok_status();
  return error(TAPIO_ERR_IO,
               "setting the Lustre layout of '{}' (stripe_count {}, stripe_size {}) failed: {}",
               path, layout.stripe_count, layout.stripe_size, errno_string(err));
}

#ifdef O_DIRECT
constexpr int kDirect = O_DIRECT;
#else
constexpr int kDirect = 0;  // no O_DIRECT here: open_posix_direct answers unsupported
#endif

// One open(2) through the syscall table, retried on EINTR and counted; the descriptor, or an
// error naming the path (a missing file is TAPIO_ERR_NOT_FOUND).
Result<int> open_fd(const std::string& path, int flags, const char* purpose, Counters* counters) {
  // 0666 filtered by the process umask, as for any new file: 0644 under the usual umask 022.
  constexpr mode_t kNewFileMode = 0666;
  for (;;) {
    const Clock::time_point start = Clock::now();
    const int fd = syscalls().open(path.c_str(), flags, kNewFileMode);
    const int err = errno;
    const double seconds = seconds_since(start);
    if (counters != nullptr)
      counters->update([&](Counters& c) {
        c.meta_time += seconds;
        c.opens += fd >= 0 ? 1 : 0;
      });
    if (fd >= 0) {
      return fd;
    }
    if (err == EINTR) continue;
    // EINVAL for O_DIRECT: the file system cannot bypass its cache (tmpfs).
    const bool refused_direct = err == EINVAL && (flags & kDirect) != 0;
    const tapio_status code = err == ENOENT     ? TAPIO_ERR_NOT_FOUND
                              : refused_direct ? TAPIO_ERR_UNSUPPORTED
                                               : TAPIO_ERR_IO;
    return error(code, "open of '{}' for {} failed: {}", path, purpose, errno_string(err));
  }
}

}  // namespace

Result<std::unique_ptr<File>> open_posix_direct(const std::string& path, Counters* counters) {
  if (kDirect == 0)
    return error(TAPIO_ERR_UNSUPPORTED, "open of '{}' for direct I/O: no O_DIRECT here", path);
  TAPIO_ASSIGN_OR_RETURN(const int fd, open_fd(path, O_RDWR | kDirect | O_CLOEXEC,
                                               "direct I/O (O_DIRECT)", counters));
  return std::unique_ptr<File>(new PosixFile(path, fd, counters));
}

Result<std::unique_ptr<File>> open_posix(const std::string& path, OpenMode mode,
                                         Counters* counters,
                                         const std::optional<LustreLayout>& striping) {
  int flags = 0;
  const char* purpose = "";
  switch (mode) {
    case OpenMode::kCreate:
      flags = O_CREAT | O_TRUNC | O_RDWR;
      purpose = "create";
      break;
    case OpenMode::kReadOnly:
      flags = O_RDONLY;
      purpose = "reading";
      break;
    case OpenMode::kReadWrite:
      flags = O_RDWR;
      purpose = "reading and writing";
      break;
    default:
      return error(TAPIO_ERR_ARG, "open of '{}' failed: invalid open mode {}", path,
                   static_cast<int>(mode));
  }
  flags |= O_CLOEXEC;  // never leak descriptors into a child process
  const bool stripe = striping.has_value() && mode == OpenMode::kCreate;
  if (stripe) flags |= kLovDelayCreate;
  TAPIO_ASSIGN_OR_RETURN(const int fd, open_fd(path, flags, purpose, counters));
  if (stripe) {
    const Status set = set_striping(fd, path, *striping);
    if (!set.ok()) {
      (void)syscalls().close(fd);  // the layout error is the one to report
      return set;
    }
  }
  return std::unique_ptr<File>(new PosixFile(path, fd, counters));
}

Result<int> open_posix_for_lock(const std::string& path, bool create, bool striped) {
  int flags = O_RDWR | O_CLOEXEC;
  if (create) flags |= O_CREAT | (striped ? kLovDelayCreate : 0);
  return open_fd(path, flags, create ? "create" : "reading and writing", nullptr);
}

}  // namespace tapio::io
