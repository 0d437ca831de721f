#include "plan/segments.h"

#include <algorithm>

namespace tapio::plan {

bool extend_segment(Segment* last, const Segment& s) {
  Segment& b = *last;
  const uint64_t at = b.offset + (b.count - 1) * b.stride;
  if (b.length != s.length || s.offset < at) return false;
  const uint64_t gap = s.offset - at;
  const uint64_t stride = b.count > 1 ? b.stride : gap;
  if (gap != stride || (s.count != 1 && s.stride != stride)) return false;
  b.stride = stride;
  b.count += s.count;
  return true;
}

void append_segment(std::vector<Segment>* out, const Segment& s) {
  if (out->empty() || !extend_segment(&out->back(), s)) out->push_back(s);
}

// Segments are cut in input order, the owner looked up only when a piece leaves the last
// owner's domain (as route() does). A piece that fits its window takes along every following
// piece that fits too: O(1) per window a segment crosses, plus O(1) per piece straddling a
// window's end. Then sorted as route() sorts: by offset (skipped when already sorted), which
// groups each window's segments; only the groups are reordered to (round, aggregator).
std::vector<RoutedSegment> route_segments(const std::vector<MemSegment>& segments,
                                          const Layout& layout) {
  std::vector<RoutedSegment> out;
  route_segments(segments, layout, &out);
  return out;
}

void route_segments(const std::vector<MemSegment>& segments, const Layout& layout,
                    std::vector<RoutedSegment>* routed) {
  std::vector<RoutedSegment>& out = *routed;
  out.clear();
  // A window's ends cut at most two segments each (a strided one, a piece across the end): room
  // for that, so that E3SM's 10^5 segments per rank, cut a few times, are not copied to a
  // vector twice as large.
  const uint64_t windows = uint64_t{layout.rounds} * layout.domains.size();
  out.reserve(segments.size() + std::min<uint64_t>(segments.size(), 2 * windows));
  int agg = -1;
  uint32_t r = 0;
  Extent w;
  // The window holding byte `off` (in agg, r, w); false if no domain holds it.
  const auto locate = [&](uint64_t off) {
    if (agg >= 0 && off >= w.offset && off < w.end()) return true;  // the window of the last
    if (agg < 0 || off < layout.domains[agg].offset || off >= layout.domains[agg].end())
      agg = owner_of(off, layout.domains);
    if (agg < 0) return false;
    r = static_cast<uint32_t>((off - layout.domains[agg].offset) / layout.round_bytes);
    w = layout.window(agg, r);
    return true;
  };
  for (const MemSegment& m : segments) {
    const Segment& s = m.seg;
    uint64_t k = 0;
    while (k < s.count) {
      const uint64_t off = s.offset + k * s.stride;
      const uint64_t mem = m.mem + k * s.length;
      if (!locate(off)) {  // outside [lo, hi): route() drops the piece too
        ++k;
        continue;
      }
      if (s.length <= w.end() - off) {  // whole pieces k .. k + c - 1 inside this window
        uint64_t c = s.count - k;
        if (s.stride > 0) c = std::min(c, (w.end() - off - s.length) / s.stride + 1);
        out.push_back(
            RoutedSegment{r, agg, Segment{off, s.length, c > 1 ? s.stride : s.length, c}, mem});
        k += c;
        continue;
      }
      // Piece k straddles the window's end: cut it as route() does.
      uint64_t o = off, left = s.length, mm = mem;
      while (left > 0) {
        if (o != off && !locate(o)) break;
        const uint64_t n = std::min(left, w.end() - o);
        out.push_back(RoutedSegment{r, agg, Segment{o, n, n, 1}, mm});
        o += n;
        mm += n;
        left -= n;
      }
      ++k;
    }
  }
  out = order_by_window(std::move(out), [](const RoutedSegment& r) { return r.seg.offset; });
}

bool segment_inside(const Segment& s, const Extent& w) {
  if (s.length == 0 || s.count == 0 || s.offset < w.offset || s.offset > w.end()) return false;
  const uint64_t room = w.end() - s.offset;  // bytes from the first piece to the window's end
  if (s.length > room) return false;
  // The last piece starts (count - 1) * stride after the first and must leave it length bytes.
  return s.count == 1 || s.stride == 0 || (s.count - 1) <= (room - s.length) / s.stride;
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

bool ByteMap::mark(const Segment& s) {
  if (s.count == 1 || s.stride == s.length) return mark(s.offset, s.bytes());
  bool fresh = true;
  uint64_t i = s.offset - base_;
  for (uint64_t k = 0; k < s.count; ++k, i += s.stride) {
    const uint64_t b = i & 63;
    if (s.length > 64 - b) {  // spans words
      fresh &= mark(base_ + i, s.length);
      continue;
    }
    const uint64_t mask = s.length == 64 ? ~0ull : ((1ull << s.length) - 1) << b;
    uint64_t& w = words_[i >> 6];
    fresh &= (w & mask) == 0;
    w |= mask;
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

std::vector<Extent> sieved_reads(const std::vector<RoutedSegment>& routed, size_t begin,
                                 size_t end, uint64_t shift, uint64_t max_hole) {
  std::vector<Extent> spans;
  for (size_t i = begin; i < end; ++i)
    for_each_read_span(shifted(routed[i].seg, shift), max_hole,
                       [&](uint64_t from, uint64_t to) { spans.push_back(Extent{from, to - from}); });
  const auto by_offset = [](const Extent& a, const Extent& b) { return a.offset < b.offset; };
  if (!std::is_sorted(spans.begin(), spans.end(), by_offset))
    std::sort(spans.begin(), spans.end(), by_offset);
  std::vector<Extent> out;
  for (const Extent& e : spans) {
    if (!out.empty() && e.offset <= out.back().end() + max_hole)
      out.back().length = std::max(out.back().end(), e.end()) - out.back().offset;
    else
      out.push_back(e);
  }
  return out;
}

int sharing_readers(uint64_t bytes, uint64_t share, int ranks) {
  const uint64_t n = bytes / std::max<uint64_t>(share, 1);
  return static_cast<int>(std::clamp<uint64_t>(n, 1, static_cast<uint64_t>(std::max(ranks, 1))));
}

std::vector<Extent> read_share(const std::vector<Extent>& reads, int readers, int j,
                               uint64_t align) {
  uint64_t total = 0;
  for (const Extent& e : reads) total += e.length;
  const uint64_t n = static_cast<uint64_t>(std::max(readers, 1));
  const uint64_t a = std::max<uint64_t>(align, 1);
  // Cut k at total * k / n rounded down to `align` (128-bit: total * k may pass 2^64).
  const auto cut = [&](uint64_t k) -> uint64_t {
    if (k >= n) return total;
    const auto at = static_cast<uint64_t>(static_cast<unsigned __int128>(total) * k / n);
    return at / a * a;
  };
  const uint64_t from = cut(static_cast<uint64_t>(j)), to = cut(static_cast<uint64_t>(j) + 1);
  std::vector<Extent> out;
  uint64_t at = 0;  // where e begins in the sequence of the reads' bytes
  for (const Extent& e : reads) {
    const uint64_t lo = std::max(at, from), hi = std::min(at + e.length, to);
    if (lo < hi) out.push_back(Extent{e.offset + (lo - at), hi - lo});
    at += e.length;
    if (at >= to) break;
  }
  return out;
}

void route_runs(const std::vector<RoutedSegment>& routed, std::vector<RouteRun>* runs) {
  runs->clear();
  for (size_t i = 0; i < routed.size(); ++i) {
    const RoutedSegment& x = routed[i];
    if (runs->empty() || runs->back().round != x.round || runs->back().agg != x.agg)
      runs->push_back(RouteRun{x.round, x.agg, i, i});
    runs->back().end = i + 1;
  }
}

}  // namespace tapio::plan
