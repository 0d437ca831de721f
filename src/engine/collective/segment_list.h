// A segment list as the collective engine's messages carry it, read where it lies.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "plan/segments.h"

namespace tapio::collective {

// A packed segment list (32 bytes a segment) seen where it lies — a received message, or a
// vector's storage — and read segment by segment, never copied into a vector: E3SM F's lists
// have 10^4-10^5 segments, and a fresh vector per list and round cost an allocation and its
// page faults on every one.
class SegmentList {
 public:
  static_assert(sizeof(plan::Segment) == 32, "segments are sent as four u64");
  SegmentList() = default;
  SegmentList(const uint8_t* data, size_t n) : data_(data), n_(n) {}
  explicit SegmentList(const std::vector<plan::Segment>& v)
      : data_(reinterpret_cast<const uint8_t*>(v.data())), n_(v.size()) {}
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  plan::Segment operator[](size_t i) const {
    plan::Segment s;
    std::memcpy(&s, data_ + 32 * i, 32);
    return s;
  }
  std::vector<plan::Segment> to_vector() const {
    std::vector<plan::Segment> v(n_);
    if (n_) std::memcpy(v.data(), data_, 32 * n_);
    return v;
  }
  class Iterator {
   public:
    explicit Iterator(const uint8_t* at) : at_(at) {}
    plan::Segment operator*() const {
      plan::Segment s;
      std::memcpy(&s, at_, 32);
      return s;
    }
    Iterator& operator++() {
      at_ += 32;
      return *this;
    }
    bool operator!=(const Iterator& o) const { return at_ != o.at_; }

   private:
    const uint8_t* at_;
  };
  Iterator begin() const { return Iterator(data_); }
  Iterator end() const { return Iterator(data_ + 32 * n_); }

 private:
  const uint8_t* data_ = nullptr;
  size_t n_ = 0;
};

}  // namespace tapio::collective
