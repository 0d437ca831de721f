// The plans of this rank's decompositions, kept from batch to batch (issue 26): a plan (the
// segments of a selection, its overlaps with a stored block, ...) is made the first time a
// selection is used and found again by its content — whichever variable, put or get, and step
// uses the same selection — instead of being re-planned every step. Selections are compared
// whole (a 64-bit xxHash finds the candidates), so a selection that changes gets a new plan.
//
// Memory stays O(local pieces): a plan is held while some variable's latest batch used its
// selection; when a variable's selections change, plans no variable uses any more are dropped
// at the end of the batch (end_batch). The profile counts plans made and reused and the bytes
// held (profile.h).
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/profile.h"
#include "plan/selection.h"

namespace tapio {

template <typename Plan>  // Plan::memory(): bytes it holds
class PlanCache {
 public:
  // A selection known to the cache, valid until end_batch.
  class Known;

  explicit PlanCache(Profile* profile) : profile_(profile) {}

  // The selection `sel`, used by variable `var` in this batch: found by its address when the
  // variable used that same object in its latest batch (a map given again every step) or the
  // object first brought it (a decomposition many variables share), else by its content.
  Known* intern(int var, const plan::SharedSelection& sel);

  // The plan of `known` for `key` (what else it depends on: the shape, an element size, a
  // stored block's identity), made by make(selection) the first time.
  using Key = std::vector<uint64_t>;
  template <typename Make>
  const Plan& plan(Known* known, const Key& key, Make&& make);

  // The end of a batch: each variable used in it holds only this batch's selections; plans of
  // selections no variable holds are dropped.
  void end_batch();

  uint64_t bytes() const { return bytes_; }  // held now
  bool empty() const { return by_hash_.empty(); }
  // Takes the selections and plans of `other` (a closed file's, for a later file of its
  // layout), counted in this cache's profile (if it has one) from now on; this cache must be
  // empty (nothing refers to its plans).
  void adopt(PlanCache&& other) {
    Profile* const mine = profile_;
    *this = std::move(other);
    profile_ = mine;
    if (profile_) count(0);
  }

  // A batch of puts or gets from construction to destruction (then end_batch), begun in the
  // profile too.
  class Batch {
   public:
    explicit Batch(PlanCache* cache) : cache_(cache) { cache->profile_->phases.begin_batch(); }
    ~Batch() { cache_->end_batch(); }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

   private:
    PlanCache* cache_;
  };

 private:
  Profile* profile_;
  uint64_t bytes_ = 0;
  std::unordered_multimap<uint64_t, std::unique_ptr<Known>> by_hash_;
  // Each known selection by the address of the object that brought it (which it keeps alive):
  // a decomposition every variable shares (tapio_var_set_decomp) is found without reading it.
  std::unordered_map<const plan::Selection*, Known*> by_address_;
  // A variable's use of a known selection, through the object it passed (variables with equal
  // maps each pass their own: E3SM's 16 variables of a decomposition).
  struct Use {
    Known* known;
    plan::SharedSelection sel;
  };
  std::unordered_map<int, std::vector<Use>> held_, used_;  // by variable: latest, this batch
  void count(uint64_t delta_bytes);
};

}  // namespace tapio

#include "engine/plan_cache_inl.h"
