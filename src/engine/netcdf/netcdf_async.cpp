// Asynchronous output of the NetCDF engines (the `async` parameter; docs/design.md,
// "Asynchronous output"). end_step k exchanges as usual, but rank 0's writes of step k go to a
// background thread and the step's commit waits: the agreement that step k's writes succeeded
// rides on the next end_step (or close), which then queues the commit (fill, numrecs) behind
// them. numrecs therefore never names a step some write of which has not finished, and a crash
// keeps every step whose commit finished. The background thread is the only user of rank 0's
// file while jobs are queued; it reads copies of the header, never this object. The collective
// engine's aggregators queue their data writes on threads of their own (set_engine_writes):
// the agreement waits for those too.
#include <optional>
#include <utility>

#include "engine/async_waits.h"
#include "engine/netcdf/netcdf_dataset.h"

namespace tapio {

void NetcdfDataset::hold_commit(uint64_t step) {
  pending_ = Pending{step, std::vector<bool>(header_.vars.size(), false)};
  std::swap(pending_->touched, record_.step);
  if (has_record_vars()) header_.numrecs = step + 1;
}

void NetcdfDataset::reserve(uint64_t bytes) {
  reserve_async(behind_, bytes, env_.spec.async_buffer, env_.profile);
}

void NetcdfDataset::write_behind(uint64_t bytes, std::function<Status()> job) {
  reserve(bytes);  // a no-op when the caller reserved the room already
  behind_.submit_timed(std::move(job), bytes);
}

Status NetcdfDataset::wait_behind() {
  Status st = drain_async(behind_, env_.profile);
  if (engine_writes_) keep(&st, engine_writes_());
  return st;
}

Status NetcdfDataset::background_failure() {
  return behind_.failure().with_context(
      fmt::format("rank {}: a background write failed", comm().rank()));
}

// The pending step's writes (and the commit queued before them) have finished on every rank,
// or the first failure is reported everywhere; rank 0 then says how many steps the file holds,
// the step the next one rewrites. Otherwise the pending step's commit is queued.
Status NetcdfDataset::settle_pending(uint64_t* redo) {
  if (!pending_) return ok_status();
  Pending pending = *std::exchange(pending_, std::nullopt);
  const uint64_t step = pending.step;
  Status st = agree(wait_behind());
  if (!st.ok()) {
    uint64_t committed = committed_;
    keep(&st, comm().bcast_value(&committed, 0));
    *redo = committed;
    header_.numrecs = committed;
    return st;
  }
  if (!has_record_vars() || comm().rank() != 0) return ok_status();
  netcdf::Header h = header_;
  h.numrecs = step + 1;
  const std::string ctx = fmt::format("{}, the commit of step {}", where(), step);
  behind_.submit([this, file = file_.get(), h = std::move(h), ctx, spec = env_.spec,
                   touched = std::move(pending.touched)] {
    TAPIO_RETURN_IF_ERROR(commit_record(*file, h, touched, spec, nullptr).with_context(ctx));
    committed_ = h.numrecs;  // read by the caller only after a wait (the queue's mutex)
    return ok_status();
  });
  return ok_status();
}

Status NetcdfDataset::finish_async(uint64_t* redo) {
  TAPIO_RETURN_IF_ERROR(settle_pending(redo));
  return agree(wait_behind());
}

}  // namespace tapio
