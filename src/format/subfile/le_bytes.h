// Little-endian byte writer and bounds-checked reader for the subfile format.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace tapio::subfile {

class LeWriter {
 public:
  explicit LeWriter(std::vector<uint8_t>& out) : out_(out) {}
  void u8(uint8_t v) { out_.push_back(v); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    out_.insert(out_.end(), b, b + n);
  }
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  // Unsigned LEB128: 7 bits per byte, low bits first; small numbers take one byte.
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<uint8_t>(v));
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t>& out_;
};

// Every read checks the remaining length; after the first failure ok() is false and reads
// return zeros, so decoders check once at the end of a field group.
class LeReader {
 public:
  LeReader(const uint8_t* data, size_t size) : p_(data), end_(data + size) {}
  bool ok() const { return ok_; }
  size_t left() const { return static_cast<size_t>(end_ - p_); }
  const uint8_t* here() const { return p_; }
  uint8_t u8() { return static_cast<uint8_t>(get(1)); }
  uint32_t u32() { return static_cast<uint32_t>(get(4)); }
  uint64_t u64() { return get(8); }
  bool bytes(void* dst, size_t n) {
    if (!ok_ || left() < n) return ok_ = false;
    if (n == 0) return true;  // dst may be an empty buffer's null data(): memcpy forbids it
    std::memcpy(dst, p_, n);
    p_ += n;
    return true;
  }
  std::string str() {
    const uint64_t n = u64();
    if (!ok_ || n > left()) {
      ok_ = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  // An unsigned LEB128 number; more than 10 bytes, or bits beyond 64, is malformed.
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; ok_ && shift < 64; shift += 7) {
      if (p_ == end_) break;
      const uint8_t byte = *p_++;
      if (shift == 63 && byte > 1) break;
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    ok_ = false;
    return 0;
  }
  // A varint count of items of at least `min_item` bytes each, rejected if the rest cannot
  // hold it (so a hostile count never makes a decoder allocate more than the input's size).
  uint64_t varcount(size_t min_item) { return bounded(varint(), min_item); }
  // A count of items of at least `min_item` bytes each, rejected if the rest cannot hold it.
  uint64_t count(size_t min_item) { return bounded(u64(), min_item); }

 private:
  uint64_t bounded(uint64_t n, size_t min_item) {
    if (ok_ && min_item > 0 && n > left() / min_item) ok_ = false;
    return ok_ ? n : 0;
  }
  uint64_t get(int n) {
    if (!ok_ || left() < static_cast<size_t>(n)) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p_[i]) << (8 * i);
    p_ += n;
    return v;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

}  // namespace tapio::subfile
