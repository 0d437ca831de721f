// Big-endian field writer and bounds-checked reader for the classic header (internal).
// The only places that know how wide NON_NEG and OFFSET are in each version.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"

namespace tapio::netcdf::detail {

// NON_NEG = <non-negative INT> (CDF-1, CDF-2) | <non-negative INT64> (CDF-5)
inline int non_neg_width(int version) { return version == 5 ? 8 : 4; }
// OFFSET = <non-negative INT> (CDF-1) | <non-negative INT64> (CDF-2, CDF-5)
inline int offset_width(int version) { return version == 1 ? 4 : 8; }

// Appends fields to `out`, or only counts bytes when out is null (so encoded_size and encode
// share one code path and cannot disagree). `out` must have room for the counted size.
class ByteWriter {
 public:
  ByteWriter(int version, uint8_t* out) : version_(version), out_(out) {}

  void u32(uint32_t v);
  void u64(uint64_t v);
  void non_neg(uint64_t v);  // 4 or 8 bytes; CDF-1/2 values above 2^32-1 are clamped
  void offset(uint64_t v);
  void bytes(const void* src, size_t n);
  // `count` host-order elements of `elem_size` bytes, written big-endian.
  void big_endian(const void* src, size_t count, size_t elem_size);
  void pad4();  // padding = <0, 1, 2, or 3 bytes to next 4-byte boundary>, null bytes
  uint64_t size() const { return pos_; }

 private:
  void put_be(uint64_t v, int width);
  int version_;
  uint8_t* out_;
  uint64_t pos_ = 0;
};

// Reads fields from the first `size` bytes of a file of `file_size` bytes. Every read is
// bounds-checked; a read past `size` fails with TAPIO_ERR_FORMAT and, when the file has the
// bytes, records in need_more() how many to fetch before retrying.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size, uint64_t file_size);

  void set_version(int version) { version_ = version; }
  int version() const { return version_; }
  uint64_t pos() const { return pos_; }
  uint64_t need_more() const { return need_more_; }

  // Ensure n bytes are readable at pos(); `what` names the field for the message.
  Status need(uint64_t n, const char* what);
  // Ensure `count` elements of at least `min_each` bytes could follow: bounds a count read
  // from the file before anything is allocated for it.
  Status need_count(uint64_t count, uint64_t min_each, const char* what);

  Status u32(uint32_t* v, const char* what);
  Status non_neg(uint64_t* v, const char* what);  // rejects negative INT64 in CDF-5
  Status offset(uint64_t* v, const char* what);   // rejects negative values
  Status bytes(void* dst, size_t n, const char* what);
  Status big_endian(void* dst, size_t count, size_t elem_size, const char* what);
  Status skip_pad(uint64_t n, const char* what);  // skip padding after n value bytes

 private:
  Status read_be(uint64_t* v, int width, const char* what);
  const uint8_t* data_;
  uint64_t size_;
  uint64_t file_size_;
  int version_ = 1;
  uint64_t pos_ = 0;
  uint64_t need_more_ = 0;
};

}  // namespace tapio::netcdf::detail
