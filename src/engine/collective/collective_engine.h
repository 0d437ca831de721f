// The collective engine: two-phase I/O into one NetCDF file. All puts of a step are planned
// together; aggregators own stripe-aligned file domains; each rank sends every aggregator one
// packed message per round; aggregators write large aligned requests, pipelined behind the
// next round's exchange. Reads are the mirror image, and a region several ranks want is read
// from storage once.
#pragma once
#include <memory>
#include <vector>

#include "comm/node_memory.h"
#include "core/byte_buffer.h"
#include "engine/netcdf_engine.h"
#include "engine/overlap_check.h"
#include "io/write_behind.h"
#include "engine/collective/staging.h"
#include "plan/direct.h"
#include "plan/exchange.h"
#include "plan/segments.h"

namespace tapio {

class CollectiveEngine final : public NetcdfEngine {
 public:
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~CollectiveEngine() override;

 private:
  explicit CollectiveEngine(EngineEnv env);

  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status read_gets(const std::vector<GetOp>& gets) override;
  Status close_files() override;

  // A call's large buffers are taken before its first agreement, and a failure rides on it,
  // so that a rank short of memory fails the call on every rank instead of leaving the others
  // inside the exchange: this rank's staging copy (`staging` bytes, 0 for none) and, when an
  // aggregator's rounds go through private buffers, `round_buffers` buffers of `round` bytes.
  // False when the memory cannot be had; out_of_memory is then this rank's error.
  bool reserve(uint64_t staging, int round_buffers, uint64_t round);
  Status out_of_memory(uint64_t staging, int round_buffers, uint64_t round) const;
  // Whether this write may go through the staging buffer: direct, or to an aggregator on
  // another node or without shared slots (only node-local aggregation needs none).
  bool may_stage(const plan::DirectPlan& direct) const;
  // Bytes from the first to the last byte of every variable at `step`: no round of a batch
  // of that step needs a larger buffer.
  uint64_t step_span(uint64_t step) const;
  // Direct I/O (plan/direct.h): allowed by the `direct` parameter; plan_direct plans this
  // rank's requests, takes part in the exscan that checks rank order per variable (`ranges`:
  // this rank's file range in each variable), sets votes[0] to 0 if this rank can go direct
  // (the caller reduces the votes over the ranks) and votes[1] to its bytes.
  bool direct_allowed() const;
  Status plan_direct(const std::vector<plan::MemSegment>& mine,
                     const std::vector<plan::Extent>& ranges, plan::DirectPlan* direct,
                     std::vector<uint64_t>* votes);
  Status write_direct(const plan::DirectPlan& direct);
  // Whether written ranges start their writeback at once (the data must reach storage: fsync
  // is not `never`); with fsync = step, each writer syncs its own descriptor before the commit.
  bool eager_writeback() const;
  Status sync_for_step();
  Status read_direct(const plan::DirectPlan& direct, uint8_t* staging);
  // The data file, opened by each rank on its first own request (aggregators and ranks going
  // direct; an error surfaces at the agreement that ends the call).
  Result<io::File*> own_file();
  uint64_t round_bytes() const;  // buffer_size, at most 1 GiB
  // Domains over [lo, hi) for this engine's aggregators, rounds of buffer_size.
  plan::Layout layout_for(uint64_t lo, uint64_t hi) const;
  // For each round, how many messages this rank receives as an aggregator (collective: one
  // reduce-scatter of one flag per aggregator and round).
  Status expected_messages(const plan::Layout& layout,
                           const std::vector<plan::RoutedSegment>& routed,
                           std::vector<uint32_t>* expected);
  // The aggregators this rank sends to in round r, in the collection order.
  std::vector<int> send_order(const std::vector<plan::RoutedSegment>& routed, size_t begin,
                              size_t end) const;
  // A variable written in this batch: its bytes in the file this step, and its fill pattern.
  struct Target {
    int var;
    plan::Extent extent;
    uint8_t fill[8];
    size_t esize;
  };
  std::vector<Target> batch_targets(uint64_t step) const;
  Status check_overlap(const std::vector<plan::Extent>& extents,
                       const std::vector<int>& sources) const;
  // This rank's own routed segments for its own window in one round (copied, not sent).
  struct SelfPart {
    const plan::RoutedSegment* begin = nullptr;
    const plan::RoutedSegment* end = nullptr;
  };
  // Sender: round r of a write (see collective_write.cpp).
  SelfPart send_write_round(uint32_t r, const plan::Layout& layout,
                            const std::vector<plan::RoutedSegment>& routed, size_t begin,
                            size_t end, const collective::Staged& staged,
                            comm::Requests* requests, Status* local);
  // Aggregator: assemble round r of a write into buf (w.length bytes) from `others` senders
  // and itself, and queue its write requests (collective_assemble.cpp); `slot_ready` is
  // slot_free's answer for buf's slot (an error: collect, but write nothing).
  Status receive_write_round(uint32_t r, const plan::Layout& layout, uint32_t others,
                             const SelfPart& self, const collective::Staged& staged,
                             const std::vector<Target>& targets, uint8_t* buf,
                             const Status& slot_ready);
  // Its steps: who sent which segments (to name ranks when bytes arrive twice); this rank's
  // own pieces (false if they overlap what arrived); the other senders' lists and data; the
  // overlap error; the fill and the write requests.
  struct Arrived {
    int source;
    std::vector<plan::Segment> segments;
  };
  bool copy_own_pieces(const SelfPart& self, const collective::Staged& staged, uint8_t* out,
                       std::vector<Arrived>* arrived);
  Status collect_senders(uint32_t r, const plan::Extent& w, uint32_t others, uint8_t* buf,
                         std::vector<Arrived>* arrived, bool* overlap, bool* lost);
  // A sender's data of one round, as its segment list announced it.
  struct Incoming {
    int source = -1;
    uint64_t bytes = 0;       // announced by the segment list (or probed, when dropped)
    int scratch = -1;         // index in scratch_, or -1 when received in place
    bool keep = false;        // scatter the scratch into the window after the wait
    bool local_node = false;  // its pieces are in the shared slot already
    bool lost = false;        // its list was lost (its sender failed to send it)
    std::vector<plan::Segment> segments;
  };
  Status receive_list(uint32_t r, const plan::Extent& w, uint32_t k, uint8_t* buf,
                      Incoming* in, bool* overlap, comm::Requests* reqs);
  Status name_overlap(const plan::Extent& w, const std::vector<Arrived>& arrived) const;
  Status write_round(const plan::Layout& layout, int slot, const plan::Extent& w,
                     const std::vector<Target>& targets, uint8_t* buf);
  // Aggregator: wait until the write that last read round slot `slot` has finished (a round
  // with nothing to write queues none, so "one write pending" would not say which).
  Status slot_free(int slot);
  // Node-local aggregation (comm/node_memory.h), with `shared_memory` on: the two round
  // slots of the aggregators on this node live in the node's shared window, and this node's
  // ranks copy their pieces straight in (reads: out). prepare_node_slots sizes the window
  // (collective; agreed on when it changes); node_window is aggregator agg's slot for window w,
  // indexed by file offset, or null when agg is not on this node or the window is not in use.
  Status prepare_node_slots(const plan::Layout& layout);
  uint8_t* node_window(int agg, int slot, const plan::Extent& w) const;
  // Aggregator: read what round r's requests ask for, once, and post the replies (sent from
  // round_bufs_[0] or scratch_; their requests go to *reqs, which the caller waits for).
  Status serve_read_round(uint32_t r, const plan::Layout& layout, uint32_t expected,
                          comm::Requests* reqs);

  std::vector<int> aggregators_;           // rank of each aggregator, in domain order
  std::shared_ptr<comm::NodeMemory> node_;  // the context's, when shared_memory is on
  std::vector<int> agg_node_rank_;         // each aggregator's rank on this node, or -1
  uint64_t slot_bytes_ = 0;                // one round slot in the shared window
  bool node_slots_ = false;                // this call uses the shared window
  int my_agg_ = -1;                        // this rank's aggregator index, or -1
  std::unique_ptr<io::File> data_file_;    // opened on first use (own_file)
  std::unique_ptr<io::WriteBehind> writer_;  // aggregators, on their first write, when pipelining
  io::WriteBehind::Ticket slot_write_[2] = {0, 0};  // the last queued write of each round slot
  // Data-path buffers, kept from step to step (no zeroing, no page faults after the first);
  // the large ones come from the context's pool and go back to it.
  ByteBuffer staging_;  // this rank's data (read, or written as messages), big-endian
  ByteBuffer round_bufs_[2];             // aggregator: the rounds being assembled / written
  std::vector<ByteBuffer> send_bufs_[2];  // one segment list per destination, per slot
  ByteBuffer recv_buf_;                   // a received segment list
  // Aggregator: per peer, the data of many small irregular pieces, received (writes) or sent
  // (read replies) contiguously and copied piece by piece.
  std::vector<ByteBuffer> scratch_;
  plan::ByteMap covered_map_;  // aggregators: the bytes of the current window that arrived
  bool tiled_ = false;         // this batch's pieces provably tile what they touch (no bitmap)
  RepeatedPuts repeated_;      // this rank's previous batch
};

}  // namespace tapio
