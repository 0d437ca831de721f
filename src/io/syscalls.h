// Every system call of the I/O layer goes through this table, so tests can inject faults
// (EIO, ENOSPC, short writes, EINTR, slow storage) without touching the code under test.
#pragma once
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>

namespace tapio::io {

struct Syscalls {
  int (*open)(const char* path, int flags, mode_t mode);
  ssize_t (*pread)(int fd, void* buf, size_t n, off_t offset);
  ssize_t (*pwrite)(int fd, const void* buf, size_t n, off_t offset);
  ssize_t (*pwritev)(int fd, const struct iovec* iov, int iovcnt, off_t offset);
  int (*fsync)(int fd);
  int (*ftruncate)(int fd, off_t length);
  int (*fstat)(int fd, struct stat* st);
  int (*close)(int fd);
  // Start writing back a range's dirty pages without waiting (Linux sync_file_range with
  // SYNC_FILE_RANGE_WRITE; elsewhere nothing).
  int (*start_writeback)(int fd, off_t offset, off_t length);
  // File-system detection (io/filesystem.h) and Lustre striping: statfs(2), getxattr(2) by
  // path (reads a layout) and fsetxattr(2) (sets the layout of a file just created).
  int (*statfs)(const char* path, struct statfs* st);
  ssize_t (*getxattr)(const char* path, const char* name, void* value, size_t size);
  int (*fsetxattr)(int fd, const char* name, const void* value, size_t size, int flags);
  // A writer's lock (io/write_lock.h): fcntl(2) with a lock command (F_OFD_SETLK, F_OFD_GETLK),
  // so tests can make a file system answer ENOLCK.
  int (*lock)(int fd, int command, struct flock* range);
  // Reserve storage for a range, growing the file to cover it: posix_fallocate(3) (fallocate(2)
  // where the file system has it, else glibc writes a zero byte into every block), as -1 with
  // errno on failure. The mpiio engine's records (io/file.h, allocate).
  int (*fallocate)(int fd, off_t offset, off_t length);
};

// The table in use. Tests may overwrite entries and must restore them (see ScopedSyscalls).
Syscalls& syscalls();
// The real system calls.
const Syscalls& default_syscalls();

// Restores the default table when it goes out of scope.
class ScopedSyscalls {
 public:
  ScopedSyscalls() : saved_(syscalls()) {}
  ~ScopedSyscalls() { syscalls() = saved_; }
  ScopedSyscalls(const ScopedSyscalls&) = delete;
  ScopedSyscalls& operator=(const ScopedSyscalls&) = delete;

 private:
  Syscalls saved_;
};

}  // namespace tapio::io
