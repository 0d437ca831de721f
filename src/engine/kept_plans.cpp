#include "engine/kept_plans.h"

#include <algorithm>
#include <new>

namespace tapio {

void KeptPlans::add(std::vector<uint64_t> key, std::unique_ptr<PlanMemory> plan) {
  const auto same = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.first == key; });
  if (same != entries_.end()) entries_.erase(same);
  entries_.emplace_back(std::move(key), std::move(plan));
  if (entries_.size() > kMaxFiles) entries_.pop_front();
}

void KeptPlans::add_or_forget(std::vector<uint64_t> key, std::unique_ptr<PlanMemory> plan) {
  try {
    add(std::move(key), std::move(plan));
  } catch (const std::bad_alloc&) {
    clear();
  }
}

KeptPlans::Entry KeptPlans::take(const std::vector<uint64_t>& key) {
  const auto same = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const Entry& e) { return e.first == key; });
  if (same == entries_.end()) return {};
  Entry taken = std::move(*same);
  entries_.erase(same);
  return taken;
}

}  // namespace tapio
