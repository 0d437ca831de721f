// What a rank's gets want, laid out in one staging address space (as staging.h does for
// puts): the pieces' file segments, and where each span of staging goes in the user's buffers.
// The bytes arrive in staging (file order, big-endian) or, from a shared slot on this node,
// straight into the user's buffers.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "core/model.h"
#include "engine/engine.h"
#include "format/netcdf/header.h"
#include "engine/collective/staging.h"
#include "plan/segments.h"

namespace tapio::collective {

struct Destination {
  uint8_t* dst;
  uint64_t mem;  // where the bytes land in the staging buffer
  uint64_t bytes;
  size_t esize;
};

struct Wanted {
  MovableSegments segments;  // mem = byte offset in the staging buffer
  plan::Extent span;  // this rank's pieces, first byte to last (length 0: none)
  std::vector<plan::Extent> ranges;  // per variable, the range its pieces span in record 0
  std::vector<Destination> dests;  // one per get and step when its runs are in memory order
  Placements placed;
  uint64_t bytes = 0;
  bool complete = false;  // the last want finished: its segments match placed
};

// What the gets want, into *w (its lists reused from the previous batch, and its segments moved
// when the gets place the same plans moved by the same bytes, as Staged's are).
void want(const std::vector<GetOp>& gets, const IoDef& io, const netcdf::Header& h,
          const DecompositionOf& plan_of, Wanted* w);

// The staged bytes (file order, big-endian) into the user's buffers.
void swap_into(const Wanted& w, const uint8_t* staging);

// Staging bytes [at, at + len), widened to whole elements, into the user's buffers. Every
// element they touch is whole in staging: a piece that starts or ends inside an element (a
// window boundary cut it) always goes through staging, whichever way it came.
void swap_span(const Wanted& w, const uint8_t* staging, uint64_t at, uint64_t len);

// A piece of a shared slot (`window` indexed by file offset) that this rank asked for: swapped
// straight into the user's buffer when it is whole elements, else copied to staging and noted
// in *later for swap_span. *hint is the destination the previous piece went to (any value
// at first): consecutive pieces then cost no search.
void take_piece(const Wanted& w, const uint8_t* window, uint64_t offset, uint64_t len,
                uint64_t mem, uint8_t* staging,
                std::vector<std::pair<uint64_t, uint64_t>>* later, size_t* hint);
// A segment's pieces (this rank's bytes from staging offset mem on), taken so: those that land
// whole in one destination in one strided loop (a segment may run on across gets), the
// others piece by piece.
void take_segment(const Wanted& w, const uint8_t* window, const plan::Segment& s, uint64_t mem,
                  uint8_t* staging, std::vector<std::pair<uint64_t, uint64_t>>* later,
                  size_t* hint);

}  // namespace tapio::collective
