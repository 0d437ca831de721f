#include "engine/joined.h"

#include <algorithm>

#include "engine/engine.h"

namespace tapio {

Status JoinedPlacer::place(const IoDef& io, const comm::Comm& comm, std::vector<PutOp>& puts,
                           bool contribute, bool last) {
  // Every engine's end_step comes here: an IO without joined variables costs one scan.
  if (std::none_of(io.vars.begin(), io.vars.end(), [](const VariableDef& v) { return v.joined; }))
    return ok_status();
  slot_.assign(io.vars.size(), -1);
  size_t n = 0;
  for (size_t i = 0; i < io.vars.size(); ++i)
    if (io.vars[i].joined) slot_[i] = static_cast<int>(n++);
  placed_.resize(n, 0);
  previous_ = placed_;
  std::vector<uint64_t> mine(n, 0);
  if (contribute)
    for (const PutOp& p : puts)
      if (slot_[p.var] >= 0) mine[slot_[p.var]] += p.sel->count[0];
  std::vector<uint64_t> next;  // where this rank's next block of each variable goes
  TAPIO_RETURN_IF_ERROR(comm.exscan_sum(mine, &next));
  for (size_t j = 0; j < n; ++j) next[j] += placed_[j];
  if (contribute)
    for (PutOp& p : puts)
      if (slot_[p.var] >= 0) {
        auto placed = std::make_shared<plan::Selection>(*p.sel);  // the handle's stays
        placed->start[0] = next[slot_[p.var]];
        next[slot_[p.var]] += placed->count[0];
        p.sel = std::move(placed);
      }
  if (last && !keep_totals_) return ok_status();
  TAPIO_RETURN_IF_ERROR(comm.allreduce_sum(mine.data(), static_cast<int>(n)));
  for (size_t j = 0; j < n; ++j) placed_[j] += mine[j];
  return ok_status();
}

JoinedPlacer::Rows JoinedPlacer::batch_rows(int var) const {
  if (var < 0 || static_cast<size_t>(var) >= slot_.size() || slot_[var] < 0 ||
      static_cast<size_t>(slot_[var]) >= placed_.size())
    return Rows{};
  return Rows{previous_[slot_[var]], placed_[slot_[var]]};
}

}  // namespace tapio
