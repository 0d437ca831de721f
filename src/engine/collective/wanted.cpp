#include "engine/collective/wanted.h"

#include <algorithm>
#include <cstring>

namespace tapio::collective {
namespace {

// The destination whose staging bytes contain staging offset `at`.
const Destination& dest_of(const Wanted& w, uint64_t at) {
  auto it = std::upper_bound(w.dests.begin(), w.dests.end(), at,
                             [](uint64_t a, const Destination& d) { return a < d.mem; });
  return *(it - 1);
}

// dest_of, trying the destination *hint and the next one first (the pieces of a segment come
// in staging order, so most stay in the previous piece's destination or move to the next).
const Destination& dest_from(const Wanted& w, uint64_t at, size_t* hint) {
  const auto holds = [&](size_t i) {
    return i < w.dests.size() && at >= w.dests[i].mem &&
           (i + 1 == w.dests.size() || at < w.dests[i + 1].mem);
  };
  if (!holds(*hint))
    *hint = holds(*hint + 1) ? *hint + 1 : static_cast<size_t>(&dest_of(w, at) - w.dests.data());
  return w.dests[*hint];
}

// First byte to last of the pieces of `segments` (length 0: none).
plan::Extent span_of(const std::vector<plan::MemSegment>& segments) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const plan::MemSegment& m : segments) {
    lo = std::min(lo, m.seg.offset);
    hi = std::max(hi, m.seg.last_end());
  }
  return hi > lo ? plan::Extent{lo, hi - lo} : plan::Extent{};
}

}  // namespace

void want(const std::vector<GetOp>& gets, const IoDef& io, const netcdf::Header& h,
          const DecompositionOf& plan_of, Wanted* wanted) {
  Wanted& w = *wanted;
  const Placements before = std::exchange(w.placed, {});
  const bool complete = std::exchange(w.complete, false);  // one cut short is not reused
  const uint64_t record = h.record_size();
  size_t segments = 0;
  for (const GetOp& g : gets) {
    const plan::Decomposition& d = plan_of(g.var, g.sel);
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s)
      w.placed.emplace_back(&d, h.data_offset(h.vars[g.var], s, record));
    segments += d.segments.size() * g.step_count;
  }
  const bool moved = move_segments(w.placed, before, complete, &w.segments);
  std::vector<plan::MemSegment>* fresh = moved ? nullptr : w.segments.fresh(segments);
  w.ranges.assign(io.vars.size(), plan::Extent{});
  w.dests.clear();
  w.bytes = 0;
  size_t k = 0;  // index in w.placed
  for (const GetOp& g : gets) {
    const size_t esize = type_size(io.vars[g.var].type);
    auto* out = static_cast<uint8_t*>(g.data);
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s, ++k) {
      const auto [plan, base] = w.placed[k];
      const plan::Decomposition& d = *plan;
      uint8_t* step_out = out + (s - g.step_start) * g.elements * esize;
      const uint64_t start = w.bytes;
      if (!moved) plan::append_decomposition(fresh, d, base, start);
      // Rank order is checked in the first record: gets of several steps span records where
      // other ranks' pieces interleave, yet pieces of two ranks that do not meet in one
      // record meet in none.
      plan::widen_by(&w.ranges[g.var], d, h.vars[g.var].begin);
      w.bytes += d.bytes;
      if (d.in_order) {  // the whole get-step is one swap
        if (d.bytes > 0) w.dests.push_back(Destination{step_out, start, d.bytes, esize});
        continue;
      }
      uint64_t at = start;  // otherwise one swap per run
      for (const auto& [mem, n] : d.runs) {
        w.dests.push_back(Destination{step_out + mem, at, n, esize});
        at += n;
      }
    }
  }
  if (moved && w.span.length > 0)
    w.span.offset += w.placed[0].second - before[0].second;
  else if (!moved)
    w.span = span_of(*fresh);
  w.complete = true;
}

void swap_into(const Wanted& w, const uint8_t* staging) {
  for (const Destination& d : w.dests)
    big_endian_to_host(d.dst, staging + d.mem, d.bytes / d.esize, d.esize);
}

void swap_span(const Wanted& w, const uint8_t* staging, uint64_t at, uint64_t len) {
  const uint64_t end = at + len;
  while (at < end) {
    const Destination& d = dest_of(w, at);
    const uint64_t from = d.mem + (at - d.mem) / d.esize * d.esize;
    const uint64_t to = std::min(end, d.mem + d.bytes);
    const uint64_t whole_to = d.mem + (to - d.mem + d.esize - 1) / d.esize * d.esize;
    big_endian_to_host(d.dst + (from - d.mem), staging + from, (whole_to - from) / d.esize,
                       d.esize);
    at = to;
  }
}

void take_piece(const Wanted& w, const uint8_t* window, uint64_t offset, uint64_t len,
                uint64_t mem, uint8_t* staging,
                std::vector<std::pair<uint64_t, uint64_t>>* later, size_t* hint) {
  const Destination& d = dest_from(w, mem, hint);
  if ((mem - d.mem) % d.esize == 0 && len % d.esize == 0) {
    big_endian_to_host(d.dst + (mem - d.mem), window + offset, len / d.esize, d.esize);
    return;
  }
  std::memcpy(staging + mem, window + offset, len);
  later->emplace_back(mem, len);
}

void take_segment(const Wanted& w, const uint8_t* window, const plan::Segment& s, uint64_t mem,
                  uint8_t* staging, std::vector<std::pair<uint64_t, uint64_t>>* later,
                  size_t* hint) {
  uint64_t off = s.offset;
  for (uint64_t k = 0; k < s.count;) {
    const Destination& d = dest_from(w, mem, hint);
    const uint64_t fit = (d.mem + d.bytes - mem) / s.length;
    if (fit > 0 && (mem - d.mem) % d.esize == 0 && s.length % d.esize == 0) {
      const uint64_t n = std::min(fit, s.count - k);
      big_endian_to_host_strided(d.dst + (mem - d.mem), s.length, window + off, s.stride,
                                 s.length, n, d.esize);
      k += n, off += n * s.stride, mem += n * s.length;
      continue;
    }
    take_piece(w, window, off, s.length, mem, staging, later, hint);
    ++k, off += s.stride, mem += s.length;
  }
}


}  // namespace tapio::collective
