// The collective engine: two-phase I/O into one NetCDF file. All puts of a step are planned
// together; aggregators own stripe-aligned file domains; each rank sends every aggregator one
// packed message per round; aggregators write large aligned requests, pipelined behind the
// next round's exchange (round_pipeline.h). Reads are the mirror image (read_rounds.h), and a
// region several ranks want is read from storage once.
//
// The engine is a composition: its spec (parsed at open), its NetCDF file (NetcdfDataset),
// who aggregates (Aggregation), its buffers and data file (parts.h). A batch is planned here
// (votes, direct or through aggregators) and moved by a pipeline object made for it.
#pragma once
#include <memory>
#include <vector>

#include "engine/collective/collective_spec.h"
#include "engine/collective/parts.h"
#include "engine/collective/read_rounds.h"
#include "engine/collective/round_pipeline.h"
#include "engine/collective/staging.h"
#include "engine/collective/wanted.h"
#include "engine/netcdf/netcdf_dataset.h"
#include "engine/overlap_check.h"
#include "engine/plan_cache.h"
#include "plan/direct.h"
#include "plan/exchange.h"
#include "plan/segments.h"

namespace tapio {

class CollectiveEngine final : public Engine {
 public:
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~CollectiveEngine() override;

 private:
  explicit CollectiveEngine(EngineEnv env);
  Status share_node_memory();  // collective: the context's node window, made if needed
  void gather_on(const std::shared_ptr<comm::NodeMemory>& node);  // two_level, writes

  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local) override;
  // A step's batch (collective_engine.cpp), and the step with async output.
  Status step_batch(const std::vector<PutOp>& puts, uint64_t step, const Status& local);
  Status write_async(const std::vector<PutOp>& puts, uint64_t step, const Status& local,
                     uint64_t* redo);
  // One batch of puts; `local`, this rank's outcome so far (not agreed), rides on its vote.
  Status write_batch(const std::vector<PutOp>& puts, uint64_t step, const Status& local);
  Status read_gets(const std::vector<GetOp>& gets) override;
  void forget_failed_batch() override { previous_.agreed = Agreed{}; }
  Status close_files() override;
  uint64_t available_steps() const override;
  // Joined arrays of a NetCDF file (NetcdfDataset): one block per step, after earlier steps.
  Result<std::vector<plan::Selection>> stored_blocks(int var, uint64_t step) override {
    return nc_.stored_blocks(var, step);
  }
  uint64_t joined_rows_before(int var, uint64_t step) const override {
    return nc_.joined_rows_before(var, step);
  }
  Status background_failure() override;
  collective::Parts parts();
  // Round slots per aggregator: two, or with async as many rounds as async_buffer holds.
  int slot_count() const;
  // The private round buffers a batch of `step` may use: its rounds (at most one per
  // `round` bytes of the step's span), at least two, at most the slots.
  int round_buffers(uint64_t step, uint64_t round) const;
  // Async: before a batch reuses buffers and slots that earlier batches' writes may still read
  // (a perform_puts while the previous step's writes are queued), wait for those writes.
  void wait_for_queued_writes();

  // What every rank tells the others about a batch of puts, summed in the step's vote
  // (collective_write.cpp).
  struct WriteVotes {
    uint64_t cannot_direct = 1;      // ranks that cannot write directly
    uint64_t bytes = 0;              // bytes put
    uint64_t out_of_memory = 0;      // ranks short of memory for their buffers
    // Ranks whose puts differ from their previous batch's, or whose previous batch was not
    // the previous step's (or agreed nothing to keep): 0 is a steady batch.
    uint64_t changed = 0;
    uint64_t ineligible = 0;  // ranks whose own pieces cannot go direct (then no scan)
    std::vector<uint64_t> elements;  // elements put, per variable
  };
  Status vote(const std::vector<PutOp>& puts, const Status& local, WriteVotes* votes);
  // Every rank's pieces could go direct (writes and reads): whether their ranges follow rank
  // order (scan_direct), summed over the ranks into *cannot.
  Status vote_direct(const std::vector<plan::Extent>& ranges, const plan::DirectPlan& direct,
                     uint64_t* cannot);
  // What the previous write batch agreed on, kept for a steady batch: every rank puts what
  // it put in the previous step, so who can write directly holds again, and when those
  // puts were record variables' and went through the aggregators, the domains, each rank's
  // routes and every aggregator's message counts are the previous ones moved by a record.
  // Reset by every batch, so it never outlives a change of any rank's selections.
  struct Agreed {
    bool valid = false;  // the previous batch's votes were made
    uint64_t cannot_direct = 1;
    bool rounds = false;       // it went through the aggregators: what follows is its plan
    bool all_records = false;  // it wrote record variables only (so all moves by a record)
    bool rounds_kept = false;  // its aggregators kept its rounds (kept_rounds.h): not tiled
    plan::Extent range;        // the bytes it wrote (or read), first to last
    plan::Layout layout;
    std::vector<uint32_t> expected;
    collective::Placements placed;  // reads: the plans it placed, where (a read's "changed")
    uint64_t step = 0;          // writes: the batch's step
    std::vector<uint64_t> key;  // writes: plan_key() when planned (empty: could not be made)
    bool read = false;          // a read batch's (a write is never steady after one, nor a
                                // read after a write)
  };
  // A steady batch's rounds: `before`'s moved by whole records into *batch (routed_
  // included); false (nothing changed) unless `before` went through the aggregators over
  // record variables only and this batch's `range` is its range that many records later (and,
  // with stripe_grid, a record is whole stripes). The records are the steps between the two
  // batches: one in a file, any number from another file's batch (take_plan).
  bool move_rounds(const Agreed& before, const plan::Extent& range,
                   collective::WriteBatch* batch);
  // A read batch's rounds over `range`: `before`'s moved by `moved` bytes when the batch is
  // `steady` and its range moved so, else planned; remembered as the previous batch's.
  Status plan_read_rounds(const plan::Extent& range, bool steady, uint64_t moved,
                          const Agreed& before, collective::ReadBatch* batch);
  // `before`'s layout, this rank's routes (routed_, `before`'s: their shift) and the message
  // counts, moved by `by` bytes: a steady batch's, writes and reads.
  plan::Layout moved_rounds(const Agreed& before, uint64_t by, std::vector<uint32_t>* expected);
  // Whether the batch's pieces provably tile every variable they touch (then the aggregators
  // skip the coverage bitmap, its overlap check and the fill pass).
  bool tiles(const WriteVotes& votes) const;
  // The elements of `var` this batch writes when it covers it whole: a joined variable's
  // batch rows, any other variable's shape.
  uint64_t batch_elements(int var) const;
  // `before`: the previous batch's agreements, for a steady batch (else null).
  Status write_rounds(const collective::Staged& staged, uint64_t step, bool tiled,
                      const std::vector<collective::Target>& targets, const Agreed* before);

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
  // Direct I/O (plan/direct.h), when the `direct` parameter allows it, in two halves: this
  // rank's plan (no message), and the exscan that checks rank order per variable (`ranges`:
  // this rank's file range in each variable); *cannot is 0 if this rank can go direct. A
  // failed scan is returned with *cannot = 1, for the caller's vote to spread.
  // Its requests are at least `min_request` bytes: stripe_size for writes (two writers in one
  // stripe contend for its lock), direct_read_min for reads (readers share their locks).
  void plan_direct_here(const collective::MovableSegments& mine,
                        const collective::Placements& placed, uint64_t min_request,
                        plan::DirectPlan* direct);
  Status scan_direct(const std::vector<plan::Extent>& ranges, const plan::DirectPlan& direct,
                     uint64_t* cannot);
  // The previous batch's direct plan moved, when this batch placed the same plans all moved
  // by the same bytes (planned once: a step of a decomposition used again); false otherwise.
  bool moved_direct(const collective::Placements& placed, uint64_t min_request,
                    plan::DirectPlan* direct) const;
  Status write_direct(const plan::DirectPlan& direct);
  Status read_direct(const plan::DirectPlan& direct, uint8_t* staging);
  // Domains over [lo, hi) for this engine's aggregators, rounds of round_bytes.
  plan::Layout layout_for(uint64_t lo, uint64_t hi) const;
  // This rank's segments routed to the layout's windows afresh: routed_, its runs, no shift.
  void route(const std::vector<plan::MemSegment>& segments, const plan::Layout& layout);
  // For each round, how many messages this rank receives as an aggregator (collective: one
  // reduce-scatter of one flag per aggregator and round, agreed on).
  // With `two_level` (a write batch, two_level on), a node's pieces for another node's
  // aggregator count once, as its gatherer's, and the batch gets the node sums.
  Status expected_messages(const plan::Layout& layout, const std::vector<plan::RouteRun>& runs,
                           std::vector<uint32_t>* expected,
                           collective::WriteBatch* two_level = nullptr);
  Status node_pieces(collective::WriteBatch* batch) const;
  // The variables written in this batch, by file offset, into *out (whose room for every
  // variable was taken before the batch's vote: this takes no memory).
  void batch_targets(uint64_t step, std::vector<collective::Target>* out) const;
  // Sizes the node window for this call's slots (collective; agreed on when it changes).
  Status prepare_node_slots(const plan::Layout& layout);

  // The decomposition of a selection of `var`, planned once (plans_).
  collective::DecompositionOf decomposition_of();
  // What a batch's plan depends on besides its puts (gets): every variable's place, size, type
  // and shape in the file, the aggregators, and the parameters that cut domains and rounds.
  // The same on every rank; equal keys and equal puts (gets) make the same plan.
  std::vector<uint64_t> plan_key() const;
  // The last batch's plan, left in the context when this file closes (keep_plan; none when
  // `closed` failed here) and taken by the first batch of a later file of its plan_key() and
  // direction (take_plan, plan_kind), which repeats it when its puts (gets) are the same on
  // every rank (collective_kept_plan.cpp).
  struct KeptPlan;
  void keep_plan(bool closed);
  void take_plan(const std::vector<uint64_t>& key);
  const char* plan_kind() const;
  bool looked_for_plan_ = false;  // take_plan ran (at the file's first batch)
  std::vector<uint64_t> read_key_;  // a read file's plan_key(), made at its first batch

  CollectiveSpec spec_;
  plan::SmallerRounds smaller_rounds_;  // min_rounds and the node layout's messages floor
  NetcdfDataset nc_;
  std::vector<collective::Target> targets_;  // a batch's (batch_targets)
  PlanCache<plan::Decomposition> plans_{&profile()};
  // The previous batch, which a batch that repeats it one record later reuses (planned once).
  struct {
    collective::Placements placed;  // the plans its direct plan was made from
    plan::DirectPlan direct;
    uint64_t direct_min = 0;  // the min_request it was made with
    RepeatedPuts puts;  // this rank's puts
    Agreed agreed;      // what the batch agreed on
  } previous_;
  collective::Aggregation agg_;
  collective::Buffers bufs_;
  collective::DataFile data_;
  // A batch's description and routes, their memory kept for the next batch (staging.h).
  collective::Staged staged_;
  collective::Wanted wanted_;
  std::vector<plan::RoutedSegment> routed_;
  std::vector<plan::RouteRun> route_runs_;  // routed_'s (round, aggregator) runs
  uint64_t routed_shift_ = 0;  // what routed_'s offsets are moved by (WriteBatch::shift)
  Status deferred_;        // the first local error, reported at the next agreement
  bool writes_queued_ = false;  // async: a batch since the last commit agreement queued writes
};

}  // namespace tapio
