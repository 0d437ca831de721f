// One batch of a collective read through the aggregators, round by round. Each round r has
// three named stages:
//   ask    every rank: one request list to each aggregator round r touches, and the receive
//          of its reply posted — the data, scattered by MPI into staging, or from an
//          aggregator on this node a zero-byte word that the data is in its slot;
//   serve  each aggregator: every requester's list, the union read once into slot r % 2 (a
//          region many ranks want is read from storage once; in a large enough round by
//          all the node's ranks, each a share: shared_reads.h), one reply per requester;
//   take   every rank: its pieces out of this node's slots, swapped straight into the user's
//          buffers.
// With shared slots, the node's ranks pass a barrier before a slot is read into again. A
// failure is kept and the rounds go on (replies still go, nobody waits forever); the engine
// agrees at the end.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/collective/messages.h"
#include "engine/collective/parts.h"
#include "engine/collective/segment_list.h"
#include "engine/collective/wanted.h"
#include "plan/exchange.h"

namespace tapio::collective {

struct ReadBatch {
  const Wanted* wanted = nullptr;
  uint8_t* staging = nullptr;               // this rank's bytes, file order
  plan::Layout layout;
  // This rank's pieces, by round and aggregator (the engine's list, kept from batch to batch),
  // and where each (round, aggregator) of them begins and ends.
  std::vector<plan::RoutedSegment>& routed;
  const std::vector<plan::RouteRun>& runs;
  uint64_t shift = 0;  // bytes every routed offset is moved by (as WriteBatch's)
  std::vector<uint32_t> expected;           // aggregator: the requests each round brings
  // Every rank wants what it wanted in the previous batch, moved alike, and that batch's
  // aggregators kept their rounds' reads (kept_rounds.h): no bitmap, and no request lists
  // from the node's ranks.
  bool repeat = false;
};

class ReadRounds {
 public:
  ReadRounds(Parts parts, const ReadBatch& batch) : p_(std::move(parts)), b_(batch) {}
  // Every round's stages, then the byte swaps into the user's buffers.
  Status run();

 private:
  // A piece range this rank takes from an aggregator's slot on its node.
  struct FromSlot {
    const uint8_t* window;  // indexed by file offset
    size_t first, last;     // routed[first, last)
  };
  struct Requester {
    int rank;
    SegmentList segments;  // in the round's received lists (Buffers::lists)
  };

  Status round(uint32_t r, RoundRuns runs);
  // The stages.
  Status ask(uint32_t r, RoundRuns runs, comm::Requests* reqs,
             std::vector<FromSlot>* from_slots);
  Status serve(uint32_t r, comm::Requests* reqs);
  // serve, when the node's ranks read the aggregators' rounds together (shared_reads.h).
  Status read_together(uint32_t r, comm::Requests* reqs);
  Status node_barrier();  // of the node's ranks, with the window's memory barriers
  Status take(const std::vector<FromSlot>& from_slots);
  // Parts of the serve stage.
  Status receive_requests(uint32_t r, const plan::Extent& w, std::vector<Requester>* requesters);
  Status read_union(uint32_t r, const plan::Extent& w, uint8_t* buf);
  // Reads each extent into `window`, indexed by file offset.
  Status read_extents(const std::vector<plan::Extent>& reads, uint8_t* window);
  Result<std::vector<plan::Extent>> union_reads(uint32_t r, const plan::Extent& w);
  Status reply(uint32_t r, const plan::Extent& w, uint8_t* buf,
               const std::vector<Requester>& requesters, comm::Requests* reqs);

  Parts p_;
  const ReadBatch& b_;
  // Staging spans swapped last (replies from other nodes, pieces cut inside an element).
  std::vector<std::pair<uint64_t, uint64_t>> later_;
};

}  // namespace tapio::collective
