// One batch of a collective write through the aggregators, round by round. Each round r has
// three named stages:
//   send     every rank: its pieces of round r to their aggregators — swapped straight into
//            the shared slot of those on its node (then the segment list), the segment list
//            and one data message from the staging buffer to the others;
//   receive  each aggregator: assembles round r in slot r % 2 — its own pieces copied in,
//            every other sender's list (and data, straight into place by a datatype or
//            through scratch), the bitmap of what arrived (overlaps, gaps to fill);
//   write    each aggregator: fills the gaps and hands the round's extents to the
//            write-behind thread, so round r goes to storage while round r + 1 arrives.
// Round r lands in slot r % slot_count (two, more with async output): before, the slot's
// aggregator waits for the write that last read it (a ticket per slot: a round with nothing to
// write queues none, so "one write pending" would not say which slot is free) and, with shared
// slots, the node's ranks pass a barrier. A rank's segment lists and sends alternate between
// two sets (r % 2) whatever the slot count: they complete within the batch. A failure anywhere is kept and the rounds go on (moving nothing more to storage),
// so every rank enters every message and barrier it owes; the engine agrees at the end.
#pragma once
#include <cstdint>
#include <vector>

#include "comm/comm.h"
#include "engine/collective/messages.h"
#include "engine/collective/parts.h"
#include "engine/collective/staging.h"
#include "io/background_writer.h"
#include "plan/exchange.h"

namespace tapio::collective {

// A planned batch: its rounds, what this rank sends in them, what its aggregator receives.
struct WriteBatch {
  uint64_t step = 0;
  const Staged* staged = nullptr;
  plan::Layout layout;
  // This rank's pieces, by round and aggregator (the engine's list, kept from batch to batch),
  // and where each (round, aggregator) of them begins and ends.
  std::vector<plan::RoutedSegment>& routed;
  const std::vector<plan::RouteRun>& runs;
  // Bytes every routed offset is moved by: a steady batch reuses routes planned for an earlier
  // record without touching each of them (a step costs O(puts), not O(pieces)).
  uint64_t shift = 0;
  std::vector<uint32_t> expected;           // aggregator: the messages each round brings
  const std::vector<Target>& targets;       // the variables written, by file offset
  bool tiled = false;  // the pieces provably tile the targets: no bitmap, no fill
  // Every rank's pieces are the previous batch's one record later, and the batch tiles or
  // that batch kept each aggregator's rounds (kept_rounds.h): no bitmap, and no segment
  // lists from the node's ranks.
  bool repeat = false;
  // Two-level, the gatherer: how many of its node's ranks have pieces for each (aggregator,
  // round) (index agg * rounds + round), and how many others hand it pieces in each round.
  std::vector<uint64_t> node_pieces;
  std::vector<uint32_t> node_senders;
};

class RoundPipeline {
 public:
  RoundPipeline(Parts parts, const WriteBatch& batch)
      : p_(std::move(parts)), b_(batch), slot_write_(p_.agg.slot_count, 0) {}
  // Every round's stages, then the sends' completion and the queued writes (with async, the
  // writes stay queued: the commit waits for them). This rank's status (the caller agrees).
  Status run();

 private:
  // This rank's own pieces for its own window in one round (copied, not sent).
  struct SelfPart {
    const plan::RoutedSegment* begin = nullptr;
    const plan::RoutedSegment* end = nullptr;
    bool empty() const { return begin == end; }
  };
  // Who sent which segments (to name ranks when bytes arrive twice).
  struct Arrived {
    int source;
    SegmentList segments;  // in the round's received lists (Buffers::lists)
  };
  // A sender's data of one round, as its segment list announced it.
  struct Incoming {
    int source = -1;
    uint64_t bytes = 0;       // announced by the segment list (or probed, when dropped)
    int scratch = -1;         // index in scratch, or -1 when received in place
    bool keep = false;        // scatter the scratch into the window after the wait
    bool local_node = false;  // its pieces are in the shared slot already
    bool lost = false;        // its list was lost (its sender failed to send it)
    SegmentList segments;     // in Buffers::lists
  };

  void round(uint32_t r, RoundRuns runs, Status* local);
  // Aggregator: wait until the write that last read round slot `slot` has finished.
  Status slot_free(int slot);

  // The send stage (round_pipeline.cpp): the round's runs to their aggregators; a failed send
  // goes to *local (the aggregator gets an empty message instead).
  SelfPart send(uint32_t r, RoundRuns runs, Status* local);
  std::vector<int> send_order(RoundRuns runs) const;

  // Two-level (node_gather.cpp): a rank hands its pieces of the round's runs for aggregators
  // on other nodes to its node's gatherer (hand_over); the gatherer collects its node's and
  // sends each of those aggregators one list and one data message for the node (forward).
  using Spans = std::vector<std::pair<uint64_t, uint64_t>>;
  std::vector<Group> remote_groups(RoundRuns runs, std::vector<Spans>* spans) const;
  void hand_over(uint32_t r, RoundRuns runs, Status* local);
  void forward(uint32_t r, RoundRuns runs, Status* local);
  bool gather_node_pieces(uint32_t r, std::vector<Group>* groups, size_t own,
                          const std::vector<Spans>& own_spans, Status* local);
  bool receive_hand_overs(uint32_t r, std::vector<Group>* groups, std::vector<int>* source,
                          Status* local);
  void copy_own_groups(const std::vector<Group>& groups, size_t own,
                       const std::vector<Spans>& own_spans, uint8_t* gathered);
  bool receive_node_data(uint32_t r, const std::vector<Group>& groups, size_t own,
                         const std::vector<int>& source, uint8_t* gathered, Status* local);
  void send_forward(uint32_t r, const std::vector<Group>& groups, bool lost, Status* local);

  // The receive stage (collective_assemble.cpp): round r into buf (its window's bytes) from
  // the other senders and this rank; `slot_ready` is slot_free's answer (an error: collect,
  // but write nothing). Then the write stage.
  Status receive(uint32_t r, const SelfPart& self, uint8_t* buf, const Status& slot_ready);
  bool copy_own_pieces(const SelfPart& self, uint8_t* out);
  Status collect_senders(uint32_t r, const plan::Extent& w, uint8_t* buf, uint32_t others,
                         std::vector<Arrived>* arrived, bool* overlap, bool* lost);
  Status receive_list(uint32_t r, const plan::Extent& w, uint32_t k, uint8_t* buf,
                      Incoming* in, bool* overlap, comm::Requests* reqs);
  Status finish_receives(uint32_t r, const plan::Extent& w, uint8_t* buf,
                         std::vector<Incoming>* incoming, comm::Requests* reqs, bool* lost);
  Status name_overlap(const plan::Extent& w, const SelfPart& self,
                      const std::vector<Arrived>& arrived) const;
  Status check_overlap(const std::vector<plan::Extent>& extents,
                       const std::vector<int>& sources) const;

  // The write stage (round_pipeline.cpp): window w's extents to write (gaps filled), queued
  // behind the next round when there is one.
  Status write(uint32_t r, const plan::Extent& w, uint8_t* buf);
  Status write_round(uint32_t r, const plan::Extent& w, uint8_t* buf);
  Result<std::vector<plan::Extent>> extents_to_write(uint32_t r, const plan::Extent& w,
                                                     uint8_t* buf);
  Result<std::vector<plan::Extent>> kept_extents(uint32_t r, const plan::Extent& w,
                                                 uint8_t* buf) const;

  Parts p_;
  const WriteBatch& b_;
  comm::Requests requests_[2];                   // the sends of the rounds of each list set
  comm::Requests node_requests_[2];  // two-level: the hand-overs to the gatherer, likewise
  std::vector<io::BackgroundWriter::Ticket> slot_write_;  // each round slot's last queued write
};

}  // namespace tapio::collective
