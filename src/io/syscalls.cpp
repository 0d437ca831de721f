// The syscall table: the real system calls, and the table in use (a copy tests may patch).
#include "io/syscalls.h"

#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>

namespace tapio::io {
namespace {

// open(2) is variadic, so it needs a fixed-signature wrapper to sit in the table.
int real_open(const char* path, int flags, mode_t mode) { return ::open(path, flags, mode); }
ssize_t real_pread(int fd, void* buf, size_t n, off_t offset) {
  return ::pread(fd, buf, n, offset);
}
ssize_t real_pwrite(int fd, const void* buf, size_t n, off_t offset) {
  return ::pwrite(fd, buf, n, offset);
}
ssize_t real_pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  return ::pwritev(fd, iov, iovcnt, offset);
}
int real_fsync(int fd) { return ::fsync(fd); }
int real_ftruncate(int fd, off_t length) { return ::ftruncate(fd, length); }
int real_fstat(int fd, struct stat* st) { return ::fstat(fd, st); }
int real_close(int fd) { return ::close(fd); }
int real_start_writeback(int fd, off_t offset, off_t length) {
#ifdef __linux__
  return ::sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd, (void)offset, (void)length;
  return 0;
#endif
}

int real_statfs(const char* path, struct statfs* st) { return ::statfs(path, st); }
ssize_t real_getxattr(const char* path, const char* name, void* value, size_t size) {
  return ::getxattr(path, name, value, size);
}
int real_fsetxattr(int fd, const char* name, const void* value, size_t size, int flags) {
  return ::fsetxattr(fd, name, value, size, flags);
}
int real_lock(int fd, int command, struct flock* range) { return ::fcntl(fd, command, range); }
int real_fallocate(int fd, off_t offset, off_t length) {
  const int err = ::posix_fallocate(fd, offset, length);  // returns the error, errno untouched
  if (err == 0) return 0;
  errno = err;
  return -1;
}

}  // namespace

const Syscalls& default_syscalls() {
  static const Syscalls table = {real_open,   real_pread,     real_pwrite,   real_pwritev,
                                 real_fsync,  real_ftruncate, real_fstat,    real_close,
                                 real_start_writeback,        real_statfs,   real_getxattr,
                                 real_fsetxattr, real_lock,     real_fallocate};
  return table;
}

Syscalls& syscalls() {
  // Not synchronized: tests patch it only while no I/O is in flight.
  static Syscalls table = default_syscalls();
  return table;
}

}  // namespace tapio::io
