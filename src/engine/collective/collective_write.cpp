// Collective engine, planning a write: describe this rank's pieces (staging.h), vote (one
// reduction, riding on the touched-variable sums), then write directly or route the pieces to
// aggregator windows and hand the batch to a RoundPipeline (round_pipeline.h).
#include <algorithm>
#include <cstring>
#include <memory>

#include "core/out_of_memory.h"
#include "engine/collective/collective_engine.h"
#include "engine/collective/round_pipeline.h"
#include "engine/collective/staging.h"

namespace tapio {

using collective::Target;

void CollectiveEngine::batch_targets(uint64_t step, std::vector<Target>* targets) const {
  const netcdf::Header& h = nc_.header();
  const uint64_t record = h.record_size();
  std::vector<Target>& out = *targets;
  out.clear();
  for (size_t v = 0; v < nc_.touched().size(); ++v) {  // the program's variables, not counts
    if (!nc_.touched()[v]) continue;
    const netcdf::Var& nv = h.vars[v];
    Target t;
    t.var = static_cast<int>(v);
    t.esize = netcdf::nc_type_size(nv.type);
    t.extent = plan::Extent{h.data_offset(nv, step, record), h.elements(nv) * t.esize};
    if (io().vars[v].joined) {  // this batch's rows, after the earlier steps' and batches'
      const JoinedPlacer::Rows rows = joined().batch_rows(static_cast<int>(v));
      const uint64_t row = t.extent.length / h.dims[nv.dimids[0]].length;
      t.extent.offset += (nc_.joined_rows_before(static_cast<int>(v), step) + rows.first) * row;
      t.extent.length = (rows.end - rows.first) * row;
      if (t.extent.length == 0) continue;
    }
    const auto image = fill_image(nv, 1);
    std::memcpy(t.fill, image.data(), t.esize);
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(),
            [](const Target& a, const Target& b) { return a.extent.offset < b.extent.offset; });
}

uint64_t CollectiveEngine::step_span(uint64_t step) const {
  const netcdf::Header& h = nc_.header();
  const uint64_t record = h.record_size();
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const netcdf::Var& v : h.vars) {
    const uint64_t at = h.data_offset(v, step, record);
    lo = std::min(lo, at);
    hi = std::max(hi, at + h.elements(v) * netcdf::nc_type_size(v.type));
  }
  return hi > lo ? hi - lo : 0;
}

bool CollectiveEngine::may_stage(const plan::DirectPlan& direct) const {
  return direct.eligible || agg_.any_remote();
}

// The step's vote: one reduction of every rank's flags and sums, with the puts per variable
// (which variables the batch touches). It carries this rank's failure so far, so it is the
// step's error agreement too: trusted as that is (docs/reliability.md).
Status CollectiveEngine::vote(const std::vector<PutOp>& puts, const Status& local,
                              WriteVotes* v) {
  enum { kBytes, kOutOfMemory, kChanged, kFailed, kIneligible, kElements };
  const size_t n = io().vars.size();
  std::vector<uint64_t>& sums = nc_.sums();  // taken at open: no allocation here
  sums.assign(kElements + 2 * n, 0);
  sums[kBytes] = v->bytes;
  sums[kOutOfMemory] = v->out_of_memory;
  sums[kChanged] = v->changed;
  sums[kFailed] = local.ok() ? 0 : 1;
  sums[kIneligible] = v->ineligible;
  for (const PutOp& p : puts) {
    sums[kElements + p.var] += p.elements;
    sums[kElements + n + p.var] += 1;
  }
  {
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm().allreduce_sum(sums.data(), static_cast<int>(sums.size())));
  }
  if (sums[kFailed] > 0) return agree(local);
  nc_.note_batch(sums.data() + kElements + n);
  v->bytes = sums[kBytes];
  v->out_of_memory = sums[kOutOfMemory];
  v->changed = sums[kChanged];
  v->ineligible = sums[kIneligible];
  v->elements.assign(sums.begin() + kElements, sums.begin() + kElements + n);
  return ok_status();
}

// The same puts as a committed batch (whose overlap check passed), and as many elements as
// each touched variable has.
bool CollectiveEngine::tiles(const WriteVotes& votes) const {
  bool tiled = votes.changed == 0;
  for (size_t v = 0; v < io().vars.size(); ++v)
    if (nc_.touched()[v])
      tiled = tiled && votes.elements[v] == batch_elements(static_cast<int>(v));
  return tiled;
}

uint64_t CollectiveEngine::batch_elements(int var) const {
  const VariableDef& def = io().vars[var];
  if (!def.joined) return def.elements();
  const JoinedPlacer::Rows rows = joined().batch_rows(var);
  uint64_t n = rows.end - rows.first;
  for (size_t d = 1; d < def.shape.size(); ++d) n *= def.shape[d];
  return n;
}

collective::DecompositionOf CollectiveEngine::decomposition_of() {
  return [this](int var, const plan::SharedSelection& sel) -> const plan::Decomposition& {
    const VariableDef& def = io().vars[var];
    const size_t esize = type_size(def.type);
    std::vector<uint64_t> key = def.shape;
    key.push_back(esize);
    return plans_.plan(plans_.intern(var, sel), key, [&](const plan::Selection& s) {
      return plan::decompose(s, def.shape, esize);
    });
  };
}

Status CollectiveEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  return write_batch(puts, step, ok_status());
}

Status CollectiveEngine::write_batch(const std::vector<PutOp>& puts, uint64_t step,
                                     const Status& local) {
  PlanCache<plan::Decomposition>::Batch planning(&plans_);
  if (data_.async()) {
    if (writes_queued_) wait_for_queued_writes();
    writes_queued_ = true;
  }
  // Room for the joined arrays' rows of this batch, made (the same on every rank) before any
  // offset is planned.
  TAPIO_RETURN_IF_ERROR(nc_.fit_joined([&](int v) { return joined().batch_rows(v).end; },
                                       [&](int v) { return joined().batch_rows(v).first; },
                                       step));
  // This rank's plan, made before the vote that carries its failure (an allocation too).
  Status planned = local;
  const collective::Staged& staged = staged_;
  plan::DirectPlan direct;
  std::vector<uint64_t> key;  // plan_key(): O(variables), so taken here too
  keep(&planned, catch_out_of_memory([&] { return writing(); }, [&] {
    key = plan_key();
    take_plan(key);  // before any plan of this batch: the kept placements are its plans'
    {
      PhaseTimer t(&profile(), Phase::kPlan);
      staged_.describe(puts, io(), nc_.header(), step, decomposition_of());
    }
    plan_direct_here(staged.movable_segments(), staged.placed(), spec_.stripe_size, &direct);
    targets_.reserve(io().vars.size());
    return ok_status();
  }));
  const Agreed before = std::exchange(previous_.agreed, Agreed{});
  WriteVotes votes;
  votes.changed =
      previous_.puts.same_as_last(puts, step) && before.valid && !before.read &&
              before.key == key
          ? 0
          : 1;
  votes.bytes = direct.bytes;
  votes.ineligible = spec_.direct && direct.eligible ? 0 : 1;
  const uint64_t staging = may_stage(direct) ? staged.bytes() : 0;
  const uint64_t round = std::min(spec_.round_bytes, step_span(step));
  const int buffers = round_buffers(step, round);
  const bool reserved = reserve(staging, buffers, round);
  votes.out_of_memory = reserved ? 0 : 1;
  TAPIO_RETURN_IF_ERROR(vote(puts, planned, &votes));
  if (votes.out_of_memory > 0)
    return reserved ? ok_status() : out_of_memory(staging, buffers, round);
  // A batch every rank repeats one step later keeps what the previous one agreed on.
  const bool steady = votes.changed == 0;
  if (steady) votes.cannot_direct = before.cannot_direct;
  else if (votes.ineligible == 0)
    TAPIO_RETURN_IF_ERROR(vote_direct(staged.ranges(), direct, &votes.cannot_direct));
  previous_.agreed.valid = true;
  previous_.agreed.cannot_direct = votes.cannot_direct;
  previous_.agreed.step = step;
  previous_.agreed.key = std::move(key);
  batch_targets(step, &targets_);  // the same on every rank
  const std::vector<Target>& targets = targets_;
  if (targets.empty()) return ok_status();
  uint64_t target_bytes = 0;
  for (const Target& t : targets) target_bytes += t.extent.length;
  // Direct when every rank can, and (with fill) the ranks' disjoint pieces cover every
  // variable written, so there is no gap to fill.
  if (votes.cannot_direct == 0 && (!spec_.file.fill || votes.bytes == target_bytes)) {
    {
      PhaseTimer t(&profile(), Phase::kSwap);
      staged.swap_all(bufs_.staging.prepare(staged.bytes()));
    }
    return write_direct(direct);
  }
  return write_rounds(staged, step, tiles(votes), targets, steady ? &before : nullptr);
}

// Through the aggregators: the layout, the routes, the counts (or the previous batch's, moved
// by a record), the node slots, then the round pipeline.
Status CollectiveEngine::write_rounds(const collective::Staged& staged, uint64_t step,
                                      bool tiled, const std::vector<Target>& targets,
                                      const Agreed* before) {
  collective::WriteBatch batch{step, &staged, {}, routed_, route_runs_, 0, {}, targets, tiled,
                               false, {}, {}};
  const uint64_t lo = batch.targets.front().extent.offset;
  const plan::Extent range{lo, batch.targets.back().extent.end() - lo};
  if (before && move_rounds(*before, range, &batch)) {
    batch.repeat = tiled || before->rounds_kept;
  } else {
    batch.layout = layout_for(range.offset, range.end());
    route(staged.segments(), batch.layout);
    TAPIO_RETURN_IF_ERROR(expected_messages(batch.layout, batch.runs, &batch.expected, &batch));
  }
  const netcdf::Header& h = nc_.header();
  previous_.agreed.rounds = true;
  previous_.agreed.range = range;
  previous_.agreed.all_records = std::all_of(batch.targets.begin(), batch.targets.end(),
                                    [&](const Target& t) { return h.is_record(h.vars[t.var]); });
  previous_.agreed.rounds_kept = !tiled;
  previous_.agreed.layout = batch.layout;
  previous_.agreed.expected = batch.expected;
  TAPIO_RETURN_IF_ERROR(prepare_node_slots(batch.layout));
  profile().rounds += batch.layout.rounds;
  // The staging buffer holds what goes as messages (or, without shared slots, what an
  // aggregator copies from itself); pieces for this node's slots are swapped in directly.
  {
    PhaseTimer t(&profile(), Phase::kSwap);
    const bool messages =
        std::any_of(batch.runs.begin(), batch.runs.end(), [&](const plan::RouteRun& x) {
          return !agg_.slots || agg_.node_rank[x.agg] < 0;
        });
    if (messages) staged.swap_all(bufs_.staging.prepare(staged.bytes()));
  }
  return collective::RoundPipeline(parts(), batch).run();
}

bool CollectiveEngine::move_rounds(const Agreed& before, const plan::Extent& range,
                                   collective::WriteBatch* batch) {
  const uint64_t record = nc_.header().record_size();
  // Records later (modulo 2^64: a batch of another file may lie before `before`, and every
  // offset moved by `by` wraps back the same way).
  const uint64_t by = (batch->step - before.step) * record;
  // Two-level batches are planned every time: their node sums are not kept (and whether a
  // rank gathers differs from node to node, where this answer must be the same everywhere).
  if (!before.rounds || !before.all_records || spec_.two_level ||
      (spec_.stripe_grid && record % std::max<uint64_t>(spec_.stripe_size, 1) != 0) ||
      !(range == plan::Extent{before.range.offset + by, before.range.length}))
    return false;
  PhaseTimer t(&profile(), Phase::kPlan);
  batch->layout = moved_rounds(before, by, &batch->expected);
  batch->shift = routed_shift_;
  return true;
}

plan::Layout CollectiveEngine::moved_rounds(const Agreed& before, uint64_t by,
                                            std::vector<uint32_t>* expected) {
  plan::Layout layout = before.layout;
  for (plan::Extent& d : layout.domains) d.offset += by;
  routed_shift_ += by;  // the routes themselves stay as planned
  *expected = before.expected;
  return layout;
}

void CollectiveEngine::wait_for_queued_writes() {
  if (data_.writer().started()) {
    PhaseTimer t(&profile(), Phase::kWrite);
    data_.writer().wait_queued();  // a failure stays for the commit it belongs to
  }
  // This node's ranks copy into the shared slots only after their aggregators waited.
  if (agg_.node) keep(&deferred_, agg_.node->node().barrier());
}

Status CollectiveEngine::write_direct(const plan::DirectPlan& direct) {
  if (direct.requests.empty()) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(io::File * file, data_.get());
  std::vector<io::Piece> pieces;
  pieces.reserve(direct.requests.size());
  for (const plan::DirectRequest& q : direct.requests)
    pieces.push_back(io::Piece{q.file.offset, bufs_.staging.data() + q.mem, q.file.length});
  if (data_.async()) {  // from the staging buffer, which the next batch reuses only after
    data_.writer().write(
        file, std::move(pieces), data_.eager(),
        collective::background_write_context(where(), current_step(), comm().rank()));
    return data_.sync_for_step();
  }
  PhaseTimer t(&profile(), Phase::kWrite);
  TAPIO_RETURN_IF_ERROR(io::write_pieces(*file, pieces, data_.eager()));
  return data_.sync_for_step();
}

}  // namespace tapio
