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
  std::vector<uint64_t> vars;                    // vars_key()
  std::vector<subfile::BlockShape> shapes;       // the step's blocks
  std::deque<plan::Selection> selections;        // their selections, by BlockShape::selection
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

// Not with async output, where a step's commit settles after the next one began.
void SubfileWriter::keep_checked_step() {
  std::unique_ptr<PlanMemory>* slot = plan_slot(p_.res, "subfile");
  if (!slot || p_.spec.async || last_step_shapes_.empty()) return;
  std::unique_ptr<CheckedStep> kept;
  try {
    kept = std::make_unique<CheckedStep>();
  } catch (const std::bad_alloc&) {
    return;  // the next dataset checks its first step
  }
  kept->vars = std::move(last_step_vars_);
  kept->shapes = std::move(last_step_shapes_);
  kept->selections = std::move(table_.selections);
  *slot = std::move(kept);
}

void SubfileWriter::take_checked_step() {
  std::unique_ptr<PlanMemory>* slot = plan_slot(p_.res, "subfile");
  if (!slot || p_.spec.async || !dynamic_cast<CheckedStep*>(slot->get())) return;
  carried_ = std::move(*slot);
}

bool SubfileWriter::same_as_carried(const std::vector<subfile::BlockShape>& checked,
                                    const std::vector<uint64_t>& vars) const {
  const auto* carried = static_cast<const CheckedStep*>(carried_.get());
  if (!carried || checked.size() != carried->shapes.size() || vars != carried->vars)
    return false;
  for (size_t i = 0; i < checked.size(); ++i) {
    const subfile::BlockShape& was = carried->shapes[i];
    if (checked[i].var != was.var || checked[i].length != was.length ||
        !(table_.selections[checked[i].selection] == carried->selections[was.selection]))
      return false;
  }
  return true;
}

}  // namespace tapio
