// A byte buffer for data paths: it does not zero what it allocates (the paths overwrite every
// byte they use) and keeps its capacity, so buffers reused step after step cost no page
// faults. std::vector<uint8_t> zero-fills on every resize, which showed up at 9% of an
// aggregator's time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

#include "core/out_of_memory.h"

namespace tapio {

class ByteBuffer {
 public:
  // Make room for n bytes; the previous contents are not kept. Throws AllocationFailure (a
  // std::bad_alloc naming n).
  uint8_t* prepare(size_t n) {
    if (!try_prepare(n)) throw AllocationFailure(n);
    return data_.get();
  }
  // prepare() that returns false instead of throwing when the memory cannot be had (the
  // buffer is then empty): collective paths take their large buffers this way, before an
  // agreement, so that one rank short of memory fails the call everywhere.
  bool try_prepare(size_t n) {
    if (n > capacity_) {
      data_.reset();
      capacity_ = size_ = 0;
      data_.reset(new (std::nothrow) uint8_t[n]);
      if (!data_) return false;
      capacity_ = n;
    }
    size_ = n;
    return true;
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
