#include "engine/collective/staging.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "core/types.h"

namespace tapio::collective {

void Staged::describe(const std::vector<PutOp>& puts, const IoDef& io, const netcdf::Header& h,
                      uint64_t step, const DecompositionOf& plan_of) {
  const Placements before = std::exchange(placed_, {});
  const bool complete = std::exchange(complete_, false);  // one cut short is not reused
  const uint64_t record = h.record_size();
  size_t segments = 0;
  for (const PutOp& p : puts) {
    const plan::Decomposition& d = plan_of(p.var, p.sel);
    placed_.emplace_back(&d, h.data_offset(h.vars[p.var], step, record));
    segments += d.segments.size();
  }
  const bool moved = move_segments(placed_, before, complete, &segments_);
  std::vector<plan::MemSegment>* fresh = moved ? nullptr : segments_.fresh(segments);
  ranges_.assign(io.vars.size(), plan::Extent{});
  sources_.clear();
  bytes_ = 0;
  for (size_t k = 0; k < puts.size(); ++k) {
    const PutOp& p = puts[k];
    const size_t esize = type_size(io.vars[p.var].type);
    const auto* src = static_cast<const uint8_t*>(p.data);
    const auto [plan, base] = placed_[k];
    const plan::Decomposition& d = *plan;
    const uint64_t start = bytes_;
    if (!moved) plan::append_decomposition(fresh, d, base, start);
    plan::widen_by(&ranges_[p.var], d, base);
    bytes_ += d.bytes;
    if (bytes_ == start) continue;
    // Runs visited in memory order (blocks, run lists) make the whole put one source;
    // otherwise each run is one.
    if (d.in_order) {
      sources_.push_back(Source{start, d.bytes, src, esize});
      continue;
    }
    uint64_t at = start;
    for (const auto& [mem, n] : d.runs) {
      sources_.push_back(Source{at, n, src + mem, esize});
      at += n;
    }
  }
  complete_ = true;
}

bool move_segments(const Placements& now, const Placements& before, bool complete,
                   MovableSegments* segments) {
  uint64_t by = 0;
  if (!complete || !moved_by(now, before, &by)) return false;
  segments->move(by);
  return true;
}

bool moved_by(const Placements& now, const Placements& before, uint64_t* by) {
  if (now.empty() || now.size() != before.size()) return false;
  *by = now[0].second - before[0].second;
  for (size_t k = 0; k < now.size(); ++k)
    if (now[k].first != before[k].first || now[k].second - before[k].second != *by) return false;
  return true;
}

size_t Staged::source_at(uint64_t at) const {
  auto it = std::upper_bound(sources_.begin(), sources_.end(), at,
                             [](uint64_t a, const Source& s) { return a < s.at; });
  return static_cast<size_t>(it - sources_.begin()) - 1;
}

size_t Staged::swap_from(size_t i, uint64_t at, uint64_t len, uint8_t* out) const {
  while (len > 0) {
    while (at >= sources_[i].at + sources_[i].bytes) ++i;
    const Source& s = sources_[i];
    uint64_t off = at - s.at;
    uint64_t n = std::min(len, s.bytes - off);
    at += n;
    len -= n;
    const size_t e = s.esize;
    if (((off | n) & (e - 1)) == 0) {  // whole elements (sizes are 1, 2, 4, 8): the usual piece
      host_to_big_endian(out, s.src + off, n / e, e);
      out += n;
      continue;
    }
    // A piece may start or end inside an element (windows split the file at stripe
    // boundaries, not element ones): swap that element aside and take its bytes.
    uint8_t element[16];
    if (off % e) {
      const uint64_t first = off / e * e, take = std::min<uint64_t>(e - off % e, n);
      host_to_big_endian(element, s.src + first, 1, e);
      std::memcpy(out, element + off % e, take);
      out += take;
      off += take;
      n -= take;
    }
    const uint64_t whole = n / e;
    host_to_big_endian(out, s.src + off, whole, e);
    out += whole * e;
    off += whole * e;
    n -= whole * e;
    if (n) {
      host_to_big_endian(element, s.src + off, 1, e);
      std::memcpy(out, element, n);
      out += n;
    }
  }
  return i;
}

void Staged::swap_range(uint64_t at, uint64_t len, uint8_t* out) const {
  if (len > 0) swap_from(source_at(at), at, len, out);
}

void Staged::scatter(const plan::RoutedSegment* begin, const plan::RoutedSegment* end,
                     uint8_t* window, uint64_t shift) const {
  if (begin == end) return;
  size_t i = source_at(begin->mem);
  for (const plan::RoutedSegment* x = begin; x != end; ++x) {
    const plan::Segment s = plan::shifted(x->seg, shift);
    uint64_t mem = x->mem;
    if (mem < sources_[i].at) i = source_at(mem);  // not rising after all: search again
    if (s.stride == s.length) {
      i = swap_from(i, mem, s.bytes(), window + s.offset);
      continue;
    }
    // The pieces that lie whole in one source, in whole elements, go in one strided loop (a
    // segment may run on across puts); a piece across two sources or cut inside an element
    // goes alone.
    uint64_t off = s.offset;
    for (uint64_t k = 0; k < s.count;) {
      while (mem >= sources_[i].at + sources_[i].bytes) ++i;
      const Source& src = sources_[i];
      const uint64_t fit = (src.at + src.bytes - mem) / s.length;
      if (fit > 0 && (mem - src.at) % src.esize == 0 && s.length % src.esize == 0) {
        const uint64_t n = std::min(fit, s.count - k);
        host_to_big_endian_strided(window + off, s.stride, src.src + (mem - src.at), s.length,
                                   s.length, n, src.esize);
        k += n, off += n * s.stride, mem += n * s.length;
        continue;
      }
      i = swap_from(i, mem, s.length, window + off);
      ++k, off += s.stride, mem += s.length;
    }
  }
}

}  // namespace tapio::collective
