// The file layer: one small interface that every transport implements (POSIX today; object
// stores later) and the buffering layers of io/layers.h stack behind.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "io/counters.h"
#include "io/filesystem.h"

namespace tapio::io {

enum class OpenMode {
  kCreate,     // create or truncate, read-write
  kReadOnly,   // existing file, read only
  kReadWrite,  // existing file, read-write (to append; not O_APPEND, which breaks pwrite)
};

// Bytes to write: one piece of a gathered write.
struct ConstBytes {
  const void* data;
  size_t size;
};

class File {
 public:
  virtual ~File() = default;

  // Write all n bytes at offset (loops over short writes and EINTR). An error names the path.
  virtual Status write_at(uint64_t offset, const void* data, size_t n) = 0;
  // Write `count` pieces back to back from offset, as one request where the transport can
  // (POSIX: pwritev), so scattered memory reaches storage without being copied together first.
  // This default writes them one by one.
  virtual Status write_gathered_at(uint64_t offset, const ConstBytes* pieces, size_t count);
  // Read up to n bytes at offset; *got is less than n only at end of file. On error *got holds
  // the bytes read before it. got may be nullptr.
  virtual Status read_at(uint64_t offset, void* data, size_t n, size_t* got) = 0;
  // Read exactly n bytes, or fail with TAPIO_ERR_FORMAT "truncated" naming path and offset.
  Status read_exact(uint64_t offset, void* data, size_t n);
  virtual Status sync() = 0;
  // Hand every byte this object still holds (a buffering layer's, io/layers.h) to the storage
  // below, without waiting for it to be durable: what an engine calls before a commit that
  // another file records. Plain transports hold nothing.
  virtual Status flush() { return ok_status(); }
  // A hint: start writing [offset, offset + length) to storage now, without waiting, so that a
  // later sync has less left to do. Failures show at that sync; this never fails.
  virtual void start_writeback(uint64_t offset, uint64_t length) { (void)offset, (void)length; }
  virtual Status truncate(uint64_t size) = 0;
  // Reserve storage for [offset, offset + length), growing the file to cover it, so that later
  // writes there cannot meet a full disk (TAPIO_ERR_IO naming the path when it is full).
  // TAPIO_ERR_UNSUPPORTED, changing nothing, where the transport or file system cannot.
  virtual Status allocate(uint64_t offset, uint64_t length);
  virtual Result<uint64_t> size() = 0;
  // Idempotent. The destructor closes too, but cannot report an error.
  virtual Status close() = 0;
  virtual const std::string& path() const = 0;
};

// Open a POSIX file. Every system call goes through syscalls() and is counted in *counters
// (which must outlive the file; nullptr means not counted). `striping`, for kCreate on Lustre
// only: the new file is opened without objects (O_LOV_DELAY_CREATE) and given this layout
// through the lustre.lov xattr, as ROMIO does with its striping_factor / striping_unit hints.
// A file that already had objects keeps its layout (Lustre answers EEXIST).
Result<std::unique_ptr<File>> open_posix(const std::string& path, OpenMode mode,
                                         Counters* counters,
                                         const std::optional<LustreLayout>& striping = {});

// Open an existing file again for reading and writing with O_DIRECT (no page cache), counted
// in *counters. Every request through it must be aligned in offset, length and memory to the
// device's block size. A file system that cannot do direct I/O (tmpfs) answers
// TAPIO_ERR_UNSUPPORTED.
Result<std::unique_ptr<File>> open_posix_direct(const std::string& path, Counters* counters);

}  // namespace tapio::io
