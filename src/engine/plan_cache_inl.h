#pragma once
#include <algorithm>
#include <map>

#include "format/subfile/selections.h"

namespace tapio {

template <typename Plan>
class PlanCache<Plan>::Known {
 private:
  friend class PlanCache<Plan>;
  explicit Known(plan::SharedSelection sel) : sel_(std::move(sel)) {}
  plan::SharedSelection sel_;  // the first object with this content
  int holders_ = 0;  // variables whose latest batch used it
  std::map<Key, Plan> plans_;
  uint64_t bytes() const {
    uint64_t b = sizeof(*this) + sel_->runs.capacity() * sizeof(plan::Run) +
                 (sel_->start.size() + sel_->count.size()) * 8;
    for (const auto& [key, p] : plans_) b += key.size() * 8 + p.memory();
    return b;
  }
};

template <typename Plan>
typename PlanCache<Plan>::Known* PlanCache<Plan>::intern(int var,
                                                         const plan::SharedSelection& sel) {
  std::vector<Use>& used = used_[var];
  for (const Use& u : used)
    if (u.sel == sel) return u.known;
  for (const Use& u : held_[var])
    if (u.sel == sel) {
      used.push_back(u);
      return u.known;
    }
  Known* known = nullptr;
  if (auto a = by_address_.find(sel.get()); a != by_address_.end()) known = a->second;
  if (!known) {
    const uint64_t hash = subfile::selection_hash(*sel);
    for (auto [it, end] = by_hash_.equal_range(hash); it != end && !known; ++it)
      if (*it->second->sel_ == *sel) known = it->second.get();
    if (!known) {
      auto made = std::unique_ptr<Known>(new Known(sel));
      known = made.get();
      by_hash_.emplace(hash, std::move(made));
      by_address_.emplace(sel.get(), known);
      count(known->bytes());
    }
  }
  // One use a known selection per variable and batch, through the first object that brought
  // it: equal copies made afresh for every put (tapio_put_sel's boxes) must not grow the list
  // that every intern scans.
  for (const Use& u : used)
    if (u.known == known) return known;
  used.push_back(Use{known, sel});
  return known;
}

template <typename Plan>
template <typename Make>
const Plan& PlanCache<Plan>::plan(Known* known, const Key& key, Make&& make) {
  auto it = known->plans_.find(key);
  if (it != known->plans_.end()) {
    ++profile_->plans.reused;
    return it->second;
  }
  ++profile_->plans.made;
  it = known->plans_.emplace(key, make(*known->sel_)).first;
  count(key.size() * 8 + it->second.memory());
  return it->second;
}

template <typename Plan>
void PlanCache<Plan>::end_batch() {
  for (auto& [var, used] : used_) {
    std::vector<Use>& held = held_[var];
    for (const Use& u : used) ++u.known->holders_;
    for (const Use& u : held) --u.known->holders_;
    held = std::move(used);
  }
  used_.clear();
  for (auto it = by_hash_.begin(); it != by_hash_.end();) {
    if (it->second->holders_ > 0) {
      ++it;
      continue;
    }
    bytes_ -= it->second->bytes();
    by_address_.erase(it->second->sel_.get());
    it = by_hash_.erase(it);
  }
}

template <typename Plan>
void PlanCache<Plan>::count(uint64_t delta_bytes) {
  bytes_ += delta_bytes;
  profile_->plans.cache_bytes = std::max(profile_->plans.cache_bytes, bytes_);
}

}  // namespace tapio
