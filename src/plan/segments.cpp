#include "plan/segments.h"

#include <algorithm>

namespace tapio::plan {

std::vector<Segment> segments_of(const std::vector<Routed>& routed, size_t begin, size_t end) {
  std::vector<Segment> out;
  for (size_t i = begin; i < end; ++i) {
    const Piece& p = routed[i].piece;
    if (!out.empty()) {
      Segment& s = out.back();
      if (s.length == p.length) {
        const uint64_t last = s.offset + (s.count - 1) * s.stride;
        if (s.count == 1 && p.file_offset >= s.offset) {
          s.stride = p.file_offset - s.offset;
          s.count = 2;
          continue;
        }
        if (s.count > 1 && p.file_offset >= last && p.file_offset - last == s.stride) {
          ++s.count;
          continue;
        }
      }
    }
    out.push_back(Segment{p.file_offset, p.length, p.length, 1});
  }
  return out;
}

void ByteMap::reset(uint64_t base, uint64_t length) {
  base_ = base;
  length_ = length;
  words_.assign((length + 63) / 64, 0);
}

bool ByteMap::mark(uint64_t offset, uint64_t n) {
  uint64_t i = offset - base_;
  const uint64_t end = i + n;
  bool fresh = true;
  while (i < end) {
    const uint64_t w = i >> 6, b = i & 63;
    const uint64_t take = std::min<uint64_t>(64 - b, end - i);
    const uint64_t mask = take == 64 ? ~0ull : ((1ull << take) - 1) << b;
    if (words_[w] & mask) fresh = false;
    words_[w] |= mask;
    i += take;
  }
  return fresh;
}

uint64_t ByteMap::find(bool set, uint64_t i, uint64_t end) const {
  const uint64_t want_skip = set ? 0 : ~0ull;  // a word equal to this has no wanted bit
  while (i < end) {
    if ((i & 63) == 0 && i + 64 <= end && words_[i >> 6] == want_skip) {
      i += 64;
      continue;
    }
    uint64_t word = words_[i >> 6];
    if (!set) word = ~word;
    word >>= (i & 63);
    if (word == 0) {
      i = (i | 63) + 1;
      continue;
    }
    i += static_cast<uint64_t>(__builtin_ctzll(word));
    return i < end ? i : end;
  }
  return end;
}

std::vector<Extent> sieve(const std::vector<Extent>& sorted, uint64_t max_hole) {
  std::vector<Extent> out;
  for (const Extent& e : sorted) {
    if (!out.empty() && e.offset >= out.back().end() && e.offset - out.back().end() <= max_hole)
      out.back().length = e.end() - out.back().offset;
    else
      out.push_back(e);
  }
  return out;
}

}  // namespace tapio::plan
