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
  // A count of items of at least `min_item` bytes each, rejected if the rest cannot hold it.
  uint64_t count(size_t min_item) {
    const uint64_t n = u64();
    if (ok_ && min_item > 0 && n > left() / min_item) ok_ = false;
    return ok_ ? n : 0;
  }

 private:
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
