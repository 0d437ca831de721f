// A byte buffer for data paths: it does not zero what it allocates (the paths overwrite every
// byte they use) and keeps its capacity, so buffers reused step after step cost no page
// faults. std::vector<uint8_t> zero-fills on every resize, which showed up at 9% of an
// aggregator's time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace tapio {

class ByteBuffer {
 public:
  // Make room for n bytes; the previous contents are not kept.
  uint8_t* prepare(size_t n) {
    if (n > capacity_) {
      data_.reset(new uint8_t[n]);
      capacity_ = n;
    }
    size_ = n;
    return data_.get();
  }
  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace tapio
