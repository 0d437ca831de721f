// The overlap check a dataset's first step can skip (subfile_writer.h, CheckedStep). A model
// writes each month's dataset with the maps of the month before: the last step of the previous
// dataset passed the check (its own, or an unchanged step's before it), so a first step in
// which every rank puts the same selections into variables of the same shapes passes it too.
// A rank whose step differs votes "changed", and every rank checks, as for any changed step.
#include <memory>
#include <new>
#include <utility>

#include "engine/subfile/subfile_writer.h"

namespace tapio {

struct SubfileWriter::CheckedStep final : PlanMemory {
  std::vector<subfile::BlockShape> shapes;  // the step's blocks
  std::deque<plan::Selection> selections;   // their selections, by BlockShape::selection
};

std::vector<uint64_t> SubfileWriter::vars_key() const {
  std::vector<uint64_t> key;
  for (const VariableDef& v : p_.io().vars) {
    key.push_back(v.joined ? 1 : 0);
    key.push_back(v.shape.size());
    key.insert(key.end(), v.shape.begin(), v.shape.end());
  }
  return key;
}

// Every dataset written whose last step committed adds an entry, alike on every rank; it
// holds the step only where this rank closed well, and not with async output (where a step's
// commit settles after the next one began).
void SubfileWriter::keep_checked_step(bool closed) {
  KeptPlans* kept_plans = tapio::kept_plans(p_.res, "subfile");
  if (!kept_plans || last_step_vars_.empty()) return;
  std::unique_ptr<CheckedStep> kept;
  if (closed && !p_.spec.async && !last_step_shapes_.empty()) {
    try {
      kept = std::make_unique<CheckedStep>();
    } catch (const std::bad_alloc&) {
      // an entry without a step: the next dataset of these shapes checks its first step
    }
  }
  if (kept) {
    kept->shapes = std::move(last_step_shapes_);
    kept->selections = std::move(table_.selections);
    uint64_t bytes = kept->shapes.capacity() * sizeof(subfile::BlockShape) +
                     last_step_vars_.capacity() * sizeof(uint64_t);
    for (const plan::Selection& s : kept->selections)
      bytes += sizeof(s) + s.runs.capacity() * sizeof(plan::Run) +
               (s.start.capacity() + s.count.capacity()) * sizeof(uint64_t);
    p_.profile.plans.kept_bytes = bytes;
  }
  kept_plans->add_or_forget(std::move(last_step_vars_), std::move(kept));
}

void SubfileWriter::take_checked_step(const std::vector<uint64_t>& vars) {
  if (std::exchange(looked_for_step_, true) || p_.spec.async) return;
  if (KeptPlans* kept_plans = tapio::kept_plans(p_.res, "subfile"))
    carried_ = std::move(kept_plans->take(vars).second);
}

bool SubfileWriter::same_as_carried(const std::vector<subfile::BlockShape>& checked) const {
  const auto* carried = dynamic_cast<const CheckedStep*>(carried_.get());
  if (!carried || checked.size() != carried->shapes.size()) return false;
  for (size_t i = 0; i < checked.size(); ++i) {
    const subfile::BlockShape& was = carried->shapes[i];
    if (checked[i].var != was.var || checked[i].length != was.length ||
        !(table_.selections[checked[i].selection] == carried->selections[was.selection]))
      return false;
  }
  return true;
}

}  // namespace tapio
