// Data-path buffers that outlive the engine that used them. A program that opens and closes
// files over a run (a history file per simulated month) gets back buffers whose pages are
// already mapped instead of faulting fresh ones in for every file: at 16 MiB per round buffer
// that is thousands of page faults per open. Owned by a context and freed with it; at most
// `max_bytes` stay cached (the largest buffers first), the rest are freed when given back.
#pragma once
#include <algorithm>
#include <mutex>
#include <vector>

#include "core/byte_buffer.h"

namespace tapio {

class BufferPool {
 public:
  explicit BufferPool(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The largest cached buffer, or an empty one.
  ByteBuffer take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cached_.empty()) return ByteBuffer();
    ByteBuffer b = std::move(cached_.back());
    cached_.pop_back();
    bytes_ -= b.capacity();
    return b;
  }

  // Caches b; past max_bytes, frees the smallest cached buffers until the rest fit.
  void give(ByteBuffer b) {
    if (b.capacity() == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    bytes_ += b.capacity();
    cached_.push_back(std::move(b));
    std::sort(cached_.begin(), cached_.end(),
              [](const ByteBuffer& x, const ByteBuffer& y) { return x.capacity() < y.capacity(); });
    for (size_t i = 0; i < cached_.size() && bytes_ > max_bytes_;) {  // smallest first
      bytes_ -= cached_[i].capacity();
      cached_.erase(cached_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }

  size_t cached_bytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return bytes_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<ByteBuffer> cached_;  // by capacity, ascending
  size_t bytes_ = 0;
  size_t max_bytes_;
};

// A buffer on loan from a pool for as long as this object lives (a fresh one without a pool):
// what a path needs per call (a step's staging, an image it writes) without faulting in new
// pages each time. Neither copied nor moved: share it (std::shared_ptr) to hand it on, say to
// a background job.
class PooledBuffer {
 public:
  explicit PooledBuffer(BufferPool* pool) : pool_(pool) {
    if (pool_) buf_ = pool_->take();
  }
  ~PooledBuffer() {
    if (pool_) pool_->give(std::move(buf_));
  }
  PooledBuffer(const PooledBuffer&) = delete;
  PooledBuffer& operator=(const PooledBuffer&) = delete;

  ByteBuffer& get() { return buf_; }
  const ByteBuffer& get() const { return buf_; }

 private:
  BufferPool* pool_;
  ByteBuffer buf_;
};

}  // namespace tapio
