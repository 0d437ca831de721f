// A rank's puts laid out in one "staging" address space: puts back to back, each put's runs in
// visiting order. The file pieces are segments over that space, and every span of it knows the
// user bytes it comes from, so the bytes can be swapped to file order (big-endian) either all
// at once into a staging buffer (for messages and direct writes) or piece by piece straight
// into an aggregator's round buffer on this node — one copy instead of two.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "core/model.h"
#include "engine/engine.h"
#include "format/netcdf/header.h"
#include "plan/decomposition.h"
#include "plan/segments.h"

namespace tapio::collective {

// The decomposition of a put's or get's selection of variable `var` (planned once: the
// engine's PlanCache).
using DecompositionOf =
    std::function<const plan::Decomposition&(int var, const plan::SharedSelection& sel)>;

// Which plans a batch placed, at which file offsets, in order: a batch that places the same
// plans, each moved by the same bytes (the next step of record variables), has the same
// pieces moved by those bytes, so what was planned from them is moved too (the direct plan).
using Placements = std::vector<std::pair<const plan::Decomposition*, uint64_t>>;
// Whether `now` places the plans of `before`, each moved by the same bytes (*by, modulo 2^64:
// earlier offsets too); false for no plans.
bool moved_by(const Placements& now, const Placements& before, uint64_t* by);

// A batch's segments, kept from batch to batch. A batch that places the previous one's plans,
// each moved by the same bytes, notes the move; the segments are moved only when a planner asks
// for them (a steady batch reuses its routes and direct plan and asks for none), so such a
// step costs O(puts), not O(pieces).
class MovableSegments {
 public:
  const std::vector<plan::MemSegment>& get() const {
    if (pending_ != 0)
      for (plan::MemSegment& m : list_) m.seg.offset += pending_;
    pending_ = 0;
    return list_;
  }
  void move(uint64_t by) { pending_ += by; }
  // Emptied, with room for `reserve`, to be appended to afresh.
  std::vector<plan::MemSegment>* fresh(size_t reserve) {
    list_.clear();
    list_.reserve(reserve);
    pending_ = 0;
    return &list_;
  }

 private:
  mutable std::vector<plan::MemSegment> list_;
  mutable uint64_t pending_ = 0;  // bytes not yet added to list_'s offsets
};

// The segments placed from `before` (complete: they were all made), for `now`: moved (the move
// noted) when `now` places the same plans each moved by the same bytes (true); false when
// they must be made afresh (MovableSegments::fresh). The plans `before` placed are alive until
// the batch that placed `now` ends (PlanCache), so the same address is the same plan.
bool move_segments(const Placements& now, const Placements& before, bool complete,
                   MovableSegments* segments);

class Staged {
 public:
  // Describes the puts of one step from their planned decompositions; copies no data. The
  // lists of the previous description are reused (their memory stays mapped from batch to
  // batch: a fresh list of E3SM F's 10^5 segments per rank cost more page faults than work),
  // and when the puts place the previous description's plans, each moved by the same bytes
  // (the next record), its segments are moved in place rather than made again.
  void describe(const std::vector<PutOp>& puts, const IoDef& io, const netcdf::Header& h,
                uint64_t step, const DecompositionOf& plan_of);

  // The pieces; mem fields are staging offsets. Consecutive runs of constant length at a
  // constant file stride (a box's rows, HPIO's regions, most run lists; also across puts)
  // are one segment.
  const std::vector<plan::MemSegment>& segments() const { return segments_.get(); }
  const MovableSegments& movable_segments() const { return segments_; }
  // Per variable, the file range this rank's pieces span (length 0: none).
  const std::vector<plan::Extent>& ranges() const { return ranges_; }
  uint64_t bytes() const { return bytes_; }
  const Placements& placed() const { return placed_; }

  // Staging bytes [at, at + len), in file byte order, into out.
  void swap_range(uint64_t at, uint64_t len, uint8_t* out) const;
  // All of them (out holds bytes()).
  void swap_all(uint8_t* out) const { swap_range(0, bytes_, out); }
  // The pieces of routed segments [begin, end), moved by `shift` bytes (a steady batch's, WriteBatch), into
  // window[file offset]: one search of the sources for the range (its staging offsets rise, as
  // routing leaves a round's segments for one aggregator), not one per segment.
  void scatter(const plan::RoutedSegment* begin, const plan::RoutedSegment* end,
               uint8_t* window, uint64_t shift) const;

 private:
  struct Source {
    uint64_t at;  // staging offset
    uint64_t bytes;
    const uint8_t* src;  // the user's bytes, host order
    size_t esize;
  };
  // The index of the source holding staging offset `at`.
  size_t source_at(uint64_t at) const;
  // Staging bytes [at, at + len) into out, from source i (which holds `at`) on; returns the
  // source holding the byte after them (or the last source), so that a segment's pieces,
  // which follow one another in staging, cost one search.
  size_t swap_from(size_t i, uint64_t at, uint64_t len, uint8_t* out) const;

  MovableSegments segments_;
  std::vector<plan::Extent> ranges_;
  std::vector<Source> sources_;  // by staging offset, covering [0, bytes_)
  Placements placed_;
  bool complete_ = false;  // the last describe finished: its segments match placed_
  uint64_t bytes_ = 0;
};

}  // namespace tapio::collective
