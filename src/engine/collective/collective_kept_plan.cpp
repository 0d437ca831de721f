// A plan kept from one file to the next (collective_engine.h, KeptPlan). E3SM and CESM
// write a history file per month, often of one record, with the same variables and maps as the
// month before, and their data models read a forcing file per month through the same maps:
// planned again, each file's first batch would plan its decompositions, route its pieces,
// count its messages, and have every aggregator check and mark each rank's lists, where a
// steady batch only moves the previous plan. A file that closes leaves its last batch's plan
// in the context (engine/kept_plans.h), under the batch's plan_key(), writes and reads apart;
// the first batch of a later file of that key takes it, and repeats it when the vote finds
// every rank putting (getting) what it put (got) then.
#include <memory>
#include <new>
#include <utility>

#include "engine/collective/collective_engine.h"

namespace tapio {

struct CollectiveEngine::KeptPlan final : PlanMemory {
  // The decompositions, which the placements below point into (plans_).
  PlanCache<plan::Decomposition> plans{nullptr};
  RepeatedPuts puts;  // writes
  Agreed agreed;
  collective::Placements placed;  // the direct plan's (previous_)
  plan::DirectPlan direct;
  uint64_t direct_min = 0;
  std::vector<plan::RoutedSegment> routed;
  std::vector<plan::RouteRun> runs;
  uint64_t shift = 0;
  std::vector<collective::KeptRound> rounds;  // an aggregator's

  // What it holds: O(local pieces) (the shared selections are the variables').
  uint64_t bytes() const {
    uint64_t n = plans.bytes() + routed.capacity() * sizeof(plan::RoutedSegment) +
                 runs.capacity() * sizeof(plan::RouteRun) +
                 direct.requests.capacity() * sizeof(plan::DirectRequest);
    for (const collective::KeptRound& r : rounds)
      n += sizeof(r) + r.extents.capacity() * sizeof(plan::Extent) +
           r.gaps.capacity() * sizeof(collective::KeptRound::Gap);
    return n;
  }
};

std::vector<uint64_t> CollectiveEngine::plan_key() const {
  const netcdf::Header& h = nc_.header();
  std::vector<uint64_t> key = {h.record_size(),
                               spec_.file.fill,
                               spec_.round_bytes,
                               spec_.stripe_size,
                               spec_.stripe_grid,
                               smaller_rounds_.min_rounds,
                               smaller_rounds_.least_bytes,
                               spec_.pipeline,
                               spec_.shared_memory,
                               spec_.direct,
                               spec_.two_level,
                               spec_.file.async,
                               static_cast<uint64_t>(spec_.collect_order),
                               static_cast<uint64_t>(agg_.slot_count),
                               agg_.slot_bytes,
                               static_cast<uint64_t>(comm().size()),
                               agg_.ranks.size()};
  key.insert(key.end(), agg_.ranks.begin(), agg_.ranks.end());
  for (const netcdf::Var& v : h.vars) {
    key.insert(key.end(), {v.begin, v.vsize, static_cast<uint64_t>(v.type), h.is_record(v),
                           v.dimids.size()});
    for (int32_t d : v.dimids) key.push_back(h.dims[d].length);
  }
  return key;
}

// Writes and reads keep their plans apart: a read's rounds are not a write's.
const char* CollectiveEngine::plan_kind() const {
  return mode() == OpenMode::kRead ? "collective-read" : "collective";
}

// Every file whose last batch was agreed adds an entry, alike on every rank; it holds a plan
// only where this rank closed well and the plan is one the engine moves: through the
// aggregators, and for writes record variables only (with async output or two-level
// aggregation a batch is planned in full anyway). A rank without the batch's key (its
// memory ran out making it) forgets every entry instead.
void CollectiveEngine::keep_plan(bool closed) {
  KeptPlans* kept_plans = tapio::kept_plans(resources(), plan_kind());
  const Agreed& last = previous_.agreed;
  if (!kept_plans || !last.valid) return;
  const bool reading = mode() == OpenMode::kRead;
  std::vector<uint64_t>& made = reading ? read_key_ : previous_.agreed.key;
  if (made.empty()) return kept_plans->clear();
  std::unique_ptr<KeptPlan> kept;
  if (closed && last.rounds && (reading || last.all_records) && !spec_.file.async &&
      !spec_.two_level && !nc_.has_joined()) {
    try {
      kept = std::make_unique<KeptPlan>();
    } catch (const std::bad_alloc&) {
      // an entry without a plan: the next file of this key plans afresh
    }
  }
  std::vector<uint64_t> key = std::move(made);  // moved: closing allocates nothing
  if (kept) {                                 // that could fail it
    kept->plans.adopt(std::move(plans_));
    kept->puts = std::move(previous_.puts);
    kept->puts.continue_in_another_file();
    kept->agreed = std::move(previous_.agreed);
    kept->placed = std::move(previous_.placed);
    kept->direct = std::move(previous_.direct);
    kept->direct_min = previous_.direct_min;
    kept->routed = std::move(routed_);
    kept->runs = std::move(route_runs_);
    kept->shift = routed_shift_;
    kept->rounds = std::move(bufs_.kept);
    profile().plans.kept_bytes = kept->bytes() + key.capacity() * sizeof(uint64_t);
  }
  kept_plans->add_or_forget(std::move(key), std::move(kept));
}

// At the file's first batch, before it plans anything: the placements kept point into the
// kept decompositions, which become this file's (a cache that already planned something
// takes nothing, since its plans are referred to).
void CollectiveEngine::take_plan(const std::vector<uint64_t>& key) {
  if (std::exchange(looked_for_plan_, true)) return;
  KeptPlans* kept_plans = tapio::kept_plans(resources(), plan_kind());
  if (!kept_plans || key.empty()) return;
  KeptPlans::Entry taken = kept_plans->take(key);
  auto* kept = dynamic_cast<KeptPlan*>(taken.second.get());
  if (!kept || !plans_.empty()) return;
  plans_.adopt(std::move(kept->plans));
  previous_.puts = std::move(kept->puts);
  previous_.agreed = std::move(kept->agreed);
  previous_.agreed.key = std::move(taken.first);  // a write batch compares it with its own
  previous_.placed = std::move(kept->placed);
  previous_.direct = std::move(kept->direct);
  previous_.direct_min = kept->direct_min;
  routed_ = std::move(kept->routed);
  route_runs_ = std::move(kept->runs);
  routed_shift_ = kept->shift;
  bufs_.kept = std::move(kept->rounds);
}

}  // namespace tapio
