// Collective engine, planning a read: what this rank's gets want (wanted.h), one reduction
// for the global range and the votes, then a direct read or the rounds through the
// aggregators (read_rounds.h): each rank sends each aggregator one request list per round; an
// aggregator reads the union of what its requesters want once (a region many ranks share is
// read from storage once, as Cray FFIO's `global` layer did) and replies to each requester
// with one message that MPI gathers from the round buffer and scatters into the requester's
// staging buffer; the requester byte-swaps into the user's buffers at the end.
#include <algorithm>
#include <new>

#include "engine/collective/collective_engine.h"
#include "engine/collective/read_rounds.h"
#include "engine/collective/wanted.h"

namespace tapio {
namespace {

// What every rank tells the others about a read, in one MAX reduction: the global range (the
// one input no rank knows without asking), whether some rank's pieces cannot go direct (if
// none, the rank-order scan follows), and whether one is out of memory. Every value stays
// below 2^63 (file offsets do: off_t), so the reduction is right where a MAX compares uint64
// values as signed (MPICH 4.0 does; with UINT64_MAX - lo, a rank reading nothing won and
// nobody read anything). It also says whether the read is steady: every rank wants what it
// wanted in the previous batch, moved by the same bytes (the least and most any rank that
// wants anything moved by), so the previous rounds' plan moves with it. A move may be
// backwards (a file's first batch after a kept plan of another file's last record): it is
// voted as by + kBias, below kTop for moves within 2^62 bytes either way.
struct ReadVotes {
  static constexpr uint64_t kTop = INT64_MAX;
  static constexpr uint64_t kBias = uint64_t{1} << 62;
  uint64_t lo = kTop, hi = 0;
  uint64_t cannot_direct = 1;
  uint64_t out_of_memory = 0;
  uint64_t changed = 0;
  uint64_t moved_lo = kTop, moved_hi = 0;  // the least and most any rank moved by

  Status reduce(const comm::Comm& comm) {
    uint64_t v[7] = {kTop - lo, hi, cannot_direct, out_of_memory, changed, kTop - moved_lo,
                     moved_hi};
    TAPIO_RETURN_IF_ERROR(comm.allreduce_max(v, 7));
    lo = kTop - v[0];
    hi = v[1];
    cannot_direct = v[2];
    out_of_memory = v[3];
    changed = v[4];
    moved_lo = kTop - v[5];
    moved_hi = v[6];
    return ok_status();
  }
  // This rank's part: `placed` against the previous batch's.
  void note_moves(const collective::Placements& placed, const collective::Placements& before) {
    uint64_t by = 0;
    changed = placed.size() != before.size() ||
              (!placed.empty() && !collective::moved_by(placed, before, &by));
    const uint64_t voted = by + kBias;  // modulo 2^64: a backward move is below kBias
    if (voted >= kTop) changed = 1;
    if (!placed.empty() && !changed) moved_lo = moved_hi = voted;
  }
  // Every rank moved by the same bytes, or wants nothing.
  bool steady() const { return changed == 0 && moved_lo == moved_hi; }
  // The move every rank made (when steady), modulo 2^64.
  uint64_t moved() const { return moved_lo - kBias; }
};

}  // namespace

Status CollectiveEngine::read_gets(const std::vector<GetOp>& gets) {
  PlanCache<plan::Decomposition>::Batch planning(&plans_);
  // The last plan of a file of this layout, taken before any plan of this batch is made: its
  // decompositions are those this batch's placements are compared with. A file read has one
  // layout, so its key is made once (keep_plan leaves the plan under it).
  if (!looked_for_plan_) {
    try {
      read_key_ = plan_key();
    } catch (const std::bad_alloc&) {
      // no key: this file takes no plan and leaves none (keep_plan)
    }
    take_plan(read_key_);
  }
  {
    PhaseTimer t(&profile(), Phase::kPlan);
    collective::want(gets, io(), nc_.header(), decomposition_of(), &wanted_);
  }
  const collective::Wanted& wanted = wanted_;
  // Every byte wanted is read or replied into staging; an aggregator without shared slots
  // reads its rounds into a private buffer.
  const bool reserved = reserve(wanted.bytes, 1, spec_.round_bytes);
  const Agreed before = std::exchange(previous_.agreed, Agreed{});
  // Direct when every rank can (its pieces large, the ranks' ranges disjoint in rank order:
  // then no two ranks want the same bytes, and reading them once each is the minimum).
  ReadVotes votes;
  plan::DirectPlan direct;
  plan_direct_here(wanted.segments, wanted.placed, spec_.direct_read_min, &direct);
  votes.cannot_direct = spec_.direct && direct.eligible ? 0 : 1;  // this rank's pieces alone
  votes.out_of_memory = reserved ? 0 : 1;
  votes.note_moves(wanted.placed, before.placed);
  if (!before.rounds || !before.read) votes.changed = 1;
  if (wanted.span.length > 0) {
    votes.lo = std::min(votes.lo, wanted.span.offset);
    votes.hi = std::max(votes.hi, wanted.span.end());
  }
  {
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(votes.reduce(comm()));
  }
  if (votes.out_of_memory > 0)
    return reserved ? ok_status() : out_of_memory(wanted.bytes, 1, spec_.round_bytes);
  if (votes.hi <= votes.lo) return ok_status();  // nobody reads anything
  uint8_t* const staging = bufs_.staging.data();
  if (votes.cannot_direct == 0)  // every rank's could: their ranges decide
    TAPIO_RETURN_IF_ERROR(vote_direct(wanted.ranges, direct, &votes.cannot_direct));
  if (votes.cannot_direct == 0) {
    const Status st = read_direct(direct, staging);
    PhaseTimer t(&profile(), Phase::kSwap);
    if (st.ok()) collective::swap_into(wanted, staging);
    return st;
  }
  collective::ReadBatch batch{&wanted, staging, {}, routed_, route_runs_, 0, {}};
  TAPIO_RETURN_IF_ERROR(plan_read_rounds({votes.lo, votes.hi - votes.lo}, votes.steady(),
                                         votes.moved(), before, &batch));
  TAPIO_RETURN_IF_ERROR(prepare_node_slots(batch.layout));
  profile().rounds += batch.layout.rounds;
  return collective::ReadRounds(parts(), batch).run();
}

// Through the aggregators: the previous batch's rounds moved by `moved` bytes when this batch
// is steady and its `range` is the previous one's so moved (planned once), else planned here.
Status CollectiveEngine::plan_read_rounds(const plan::Extent& range, bool steady,
                                          uint64_t moved, const Agreed& before,
                                          collective::ReadBatch* batch) {
  const uint64_t magnitude = static_cast<int64_t>(moved) < 0 ? 0 - moved : moved;
  const bool grid_kept =
      !spec_.stripe_grid || magnitude % std::max<uint64_t>(spec_.stripe_size, 1) == 0;
  if (steady && grid_kept &&
      range == plan::Extent{before.range.offset + moved, before.range.length}) {
    PhaseTimer t(&profile(), Phase::kPlan);
    batch->layout = moved_rounds(before, moved, &batch->expected);
    batch->shift = routed_shift_;
    batch->repeat = before.rounds_kept;
  } else {
    batch->layout = layout_for(range.offset, range.end());
    route(batch->wanted->segments.get(), batch->layout);
    TAPIO_RETURN_IF_ERROR(expected_messages(batch->layout, batch->runs, &batch->expected));
  }
  // Reads are never tiled: each aggregator keeps its rounds' reads.
  previous_.agreed = Agreed{true, 1, true, false, true, range, batch->layout, batch->expected,
                            batch->wanted->placed, /*step=*/0, /*key=*/{}, /*read=*/true};
  return ok_status();
}

Status CollectiveEngine::read_direct(const plan::DirectPlan& direct, uint8_t* staging) {
  if (direct.requests.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, data_.get());
  PhaseTimer t(&profile(), Phase::kRead);
  for (const plan::DirectRequest& q : direct.requests)
    TAPIO_RETURN_IF_ERROR(file->read_exact(q.file.offset, staging + q.mem, q.file.length));
  return ok_status();
}

}  // namespace tapio
