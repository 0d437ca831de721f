// What every transport shares: read_exact, and gathered writes for transports without them.
#include "io/file.h"

namespace tapio::io {

Status File::read_exact(uint64_t offset, void* data, size_t n) {
  size_t got = 0;
  TAPIO_RETURN_IF_ERROR(read_at(offset, data, n, &got));
  if (got == n) return ok_status();
  // read_at stops short only at end of file, so the file ends at offset + got, unless nothing
  // was read: then the offset may be past the end and only size() can say where it is.
  uint64_t file_size = offset + got;
  if (got == 0) {
    Result<uint64_t> size_now = size();
    if (size_now.ok()) file_size = *size_now;
  }
  return error(TAPIO_ERR_FORMAT, "'{}' is truncated: needed {} bytes at offset {}, file has {}",
               path(), n, offset, file_size);
}

Status File::write_gathered_at(uint64_t offset, const ConstBytes* pieces, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    TAPIO_RETURN_IF_ERROR(write_at(offset, pieces[i].data, pieces[i].size));
    offset += pieces[i].size;
  }
  return ok_status();
}

Status File::allocate(uint64_t offset, uint64_t length) {
  return error(TAPIO_ERR_UNSUPPORTED, "reserving bytes {} to {} of '{}': not supported here",
               offset, offset + length, path());
}

}  // namespace tapio::io
