// How the exchange's messages are laid out in memory, so that MPI moves bytes straight between
// a rank's staging buffer and an aggregator's round buffer: MPI scatters an incoming message
// into the window's pieces (and gathers an outgoing reply from them) itself, one copy, instead
// of a contiguous message that one side then copies piece by piece. One contiguous run needs
// no datatype at all (comm::Pieces).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "comm/comm.h"
#include "engine/collective/segment_list.h"
#include "plan/segments.h"

namespace tapio::collective {

// Whether MPI should scatter or gather `segments` itself: yes for a few entries of many bytes
// (a block's rows are one strided entry per level); no for many small irregular runs (E3SM's
// maps), where a datatype of thousands of entries costs MPI far more than one extra copy
// through a contiguous buffer.
bool worth_a_datatype(const SegmentList& segments, uint64_t bytes);

// The pieces of `segments`, in their order, in a window buffer whose first byte is file offset
// `base` (every piece at or after base).
comm::Pieces window_pieces(uint8_t* window, uint64_t base, const SegmentList& segments);

// The (offset, length) spans of `buf`, in their order.
comm::Pieces span_pieces(uint8_t* buf, const std::vector<std::pair<uint64_t, uint64_t>>& spans);

}  // namespace tapio::collective
