#include "format/netcdf/bytes.h"

#include <algorithm>
#include <cstring>

#include "core/types.h"
#include "format/netcdf/arith.h"

namespace tapio::netcdf::detail {

// ---- ByteWriter ----

void ByteWriter::put_be(uint64_t v, int width) {
  if (out_) {
    for (int i = 0; i < width; ++i) out_[pos_ + i] = uint8_t(v >> (8 * (width - 1 - i)));
  }
  pos_ += width;
}

void ByteWriter::u32(uint32_t v) { put_be(v, 4); }
void ByteWriter::u64(uint64_t v) { put_be(v, 8); }

void ByteWriter::non_neg(uint64_t v) {
  const int width = non_neg_width(version_);
  // The 32-bit vsize of a variable over 2^32-4 bytes is stored as 2^32-1 (spec, "Note on
  // vsize"); other 32-bit fields never get here too large because validate() rejects them.
  if (width == 4) v = std::min<uint64_t>(v, UINT32_MAX);
  put_be(v, width);
}

void ByteWriter::offset(uint64_t v) { put_be(v, offset_width(version_)); }

void ByteWriter::bytes(const void* src, size_t n) {
  if (out_ && n) std::memcpy(out_ + pos_, src, n);
  pos_ += n;
}

void ByteWriter::big_endian(const void* src, size_t count, size_t elem_size) {
  if (out_ && count) host_to_big_endian(out_ + pos_, src, count, elem_size);
  pos_ += uint64_t(count) * elem_size;
}

void ByteWriter::pad4() {
  const uint64_t end = round_up4(pos_);
  if (out_) std::memset(out_ + pos_, 0, end - pos_);
  pos_ = end;
}

// ---- ByteReader ----

ByteReader::ByteReader(const uint8_t* data, size_t size, uint64_t file_size)
    : data_(data), size_(data ? size : 0), file_size_(std::max<uint64_t>(file_size, size_)) {}

Status ByteReader::need(uint64_t n, const char* what) {
  if (n <= size_ - pos_) return ok_status();
  uint64_t end = 0;
  if (!add_overflows(pos_, n, &end) && end <= file_size_) {
    // The file has the bytes, the caller has not read them yet: ask for at least twice as
    // much, so a long header takes few round trips.
    need_more_ = std::min(file_size_, std::max(end, 2 * size_));
    return error(TAPIO_ERR_FORMAT,
                 "header continues past byte {} ({} at byte {} needs {} bytes); read {} bytes "
                 "and retry",
                 size_, what, pos_, n, need_more_);
  }
  return error(TAPIO_ERR_FORMAT, "truncated header at byte {}: {} needs {} bytes, file has {}",
               pos_, what, n, file_size_ - pos_);
}

Status ByteReader::need_count(uint64_t count, uint64_t min_each, const char* what) {
  uint64_t total = 0;
  if (mul_overflows(count, min_each, &total) || total > file_size_ - pos_) {
    return error(TAPIO_ERR_FORMAT,
                 "truncated header at byte {}: {} count {} needs at least {} bytes each, file "
                 "has {} bytes left",
                 pos_, what, count, min_each, file_size_ - pos_);
  }
  return need(total, what);
}

Status ByteReader::read_be(uint64_t* v, int width, const char* what) {
  TAPIO_RETURN_IF_ERROR(need(width, what));
  uint64_t x = 0;
  for (int i = 0; i < width; ++i) x = (x << 8) | data_[pos_ + i];
  pos_ += width;
  *v = x;
  return ok_status();
}

Status ByteReader::u32(uint32_t* v, const char* what) {
  uint64_t x = 0;
  TAPIO_RETURN_IF_ERROR(read_be(&x, 4, what));
  *v = uint32_t(x);
  return ok_status();
}

Status ByteReader::non_neg(uint64_t* v, const char* what) {
  const uint64_t at = pos_;
  TAPIO_RETURN_IF_ERROR(read_be(v, non_neg_width(version_), what));
  // A CDF-1/2 NON_NEG is read as unsigned 32-bit, as the reference library does (CDF-2
  // dimensions may reach 2^32-4; vsize may be 2^32-1). A CDF-5 one is an INT64.
  if (version_ == 5 && (*v >> 63)) {
    return error(TAPIO_ERR_FORMAT, "negative {} at byte {}", what, at);
  }
  return ok_status();
}

Status ByteReader::offset(uint64_t* v, const char* what) {
  const uint64_t at = pos_;
  const int width = offset_width(version_);
  TAPIO_RETURN_IF_ERROR(read_be(v, width, what));
  if (*v >> (8 * width - 1)) return error(TAPIO_ERR_FORMAT, "negative {} at byte {}", what, at);
  return ok_status();
}

Status ByteReader::bytes(void* dst, size_t n, const char* what) {
  TAPIO_RETURN_IF_ERROR(need(n, what));
  if (n) std::memcpy(dst, data_ + pos_, n);
  pos_ += n;
  return ok_status();
}

Status ByteReader::big_endian(void* dst, size_t count, size_t elem_size, const char* what) {
  const uint64_t n = uint64_t(count) * elem_size;  // the caller has bounded count
  TAPIO_RETURN_IF_ERROR(need(n, what));
  if (n) big_endian_to_host(dst, data_ + pos_, count, elem_size);
  pos_ += n;
  return ok_status();
}

Status ByteReader::skip_pad(uint64_t n, const char* what) {
  // Padding content is not checked: the spec asks writers for null bytes, and the reference
  // library reads files whose padding is not null.
  const uint64_t pad = round_up4(n) - n;
  TAPIO_RETURN_IF_ERROR(need(pad, what));
  pos_ += pad;
  return ok_status();
}

}  // namespace tapio::netcdf::detail
