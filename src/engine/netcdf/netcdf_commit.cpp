// Committing a step of a NetCDF file (netcdf_dataset.h): the data agreed, then rank 0 fills
// what nobody wrote and writes numrecs; and closing (fill of unwritten fixed variables, sync).
#include "engine/netcdf/netcdf_dataset.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/out_of_memory.h"
#include "engine/netcdf/netcdf_file.h"
#include "format/netcdf/layout.h"

namespace tapio {

Status NetcdfDataset::before_puts(const Status& local, Status* deferred, uint64_t* redo) {
  if (env_.spec.async) {
    const Status settled = settle_pending(redo);
    if (!settled.ok()) {
      *deferred = Status();  // this step's puts go with it: the step is written again from *redo
      return settled;
    }
  }
  return agree(local);
}

Status NetcdfDataset::after_puts(uint64_t step, Status written, Status* deferred) {
  if (!env_.spec.async) {
    TAPIO_RETURN_IF_ERROR(agree(written));
    return commit(step, std::exchange(*deferred, Status()));
  }
  keep(&written, std::exchange(*deferred, Status()));
  TAPIO_RETURN_IF_ERROR(agree(written));
  hold_commit(step);
  return ok_status();
}

Status NetcdfDataset::commit(uint64_t step, const Status& local) {
  // Rank 0's commit (fill, numrecs) between the agreements: an allocation failing there fails
  // the step on every rank, as a failed write does.
  const Status committed =
      agree(catch_out_of_memory([&] { return fmt::format("committing step {} of {}", step, where()); },
                                [&] { return commit_step(step, local); }));
  if (!committed.ok() && has_joined()) ragged_.rollback();  // the next step retries its rows
  return committed;
}

Status NetcdfDataset::commit_step(uint64_t step, Status local) {
  std::vector<bool> touched(header_.vars.size(), false);
  std::swap(touched, record_.step);
  if (!has_record_vars()) return local;
  header_.numrecs = step + 1;
  if (has_joined()) ragged_.commit(joined_rows_);
  if (comm().rank() != 0 || !local.ok()) return local;
  std::optional<netcdf::Header> shown;
  if (has_joined()) {  // the counts are data of the record: written before it is committed
    shown = ragged_.on_disk(header_);
    for (const RaggedSamples::Count& c : ragged_.last_counts()) {
      touched[c.var] = true;
      PhaseTimer t(env_.profile, Phase::kWrite);
      TAPIO_RETURN_IF_ERROR(file_->write_at(header_.data_offset(header_.vars[c.var], step),
                                            c.value, sizeof c.value)
                                .with_context(where()));
    }
  }
  return commit_record(*file_, header_, touched, env_.spec, env_.profile,
                       shown ? &*shown : nullptr)
      .with_context(where());
}

Status commit_record(io::File& file, const netcdf::Header& h, const std::vector<bool>& touched,
                     const NetcdfSpec& spec, Profile* profile, const netcdf::Header* shown) {
  const uint64_t step = h.numrecs - 1, record = h.record_size();
  // Record variables nobody put in this step hold fill values, as in netCDF's fill mode.
  if (spec.fill)
    for (size_t v = 0; v < h.vars.size(); ++v)
      if (h.is_record(h.vars[v]) && !touched[v])
        TAPIO_RETURN_IF_ERROR(write_fill_at(file, h, static_cast<int>(v), step, profile, record)
                                  .with_context(fmt::format("variable '{}'", h.vars[v].name)));
  // The file reaches the end of the new record even if its last variable was not written
  // (fill = false), or readers would find it shorter than its header says.
  std::optional<PhaseTimer> t;
  if (profile) t.emplace(profile, Phase::kMetadata);
  TAPIO_ASSIGN_OR_RETURN(const uint64_t size, file.size());
  const uint64_t end = data_end_of(h);
  if (size < end) TAPIO_RETURN_IF_ERROR(file.truncate(end));
  // Data first, then numrecs: a reader (or a crash) never sees a half-written step; with
  // fsync = step numrecs is synced too, so the step is on storage when its commit returns.
  const bool sync = spec.fsync == Fsync::kStep;
  auto synced = [&] {
    std::optional<PhaseTimer> s;
    if (profile) s.emplace(profile, Phase::kSync);
    return file.sync();
  };
  if (sync) TAPIO_RETURN_IF_ERROR(synced());
  if (shown) {  // numrecs and the sample dimensions' lengths in one write
    const auto bytes = netcdf::encode(*shown);
    TAPIO_RETURN_IF_ERROR(file.write_at(0, bytes.data(), bytes.size()));
  } else {
    TAPIO_RETURN_IF_ERROR(ncfile::write_numrecs(file, h, h.numrecs));
  }
  // Without a sync, a buffering layer's numrecs still reaches the system when the commit returns.
  return sync ? synced() : file.flush();
}

Status NetcdfDataset::sync_file() {
  PhaseTimer s(env_.profile, Phase::kSync);
  return file_->sync();
}

Status NetcdfDataset::close(Status local) {
  if (comm().rank() != 0) return local;
  const bool writing = env_.mode != OpenMode::kRead;
  if (writing && local.ok() && env_.spec.fill) {
    for (size_t v = 0; v < header_.vars.size() && local.ok(); ++v) {
      if (header_.is_record(header_.vars[v]) || fixed_written_[v]) continue;
      if (!ragged_.is_joined(static_cast<int>(v)))
        local = write_fill(static_cast<int>(v), 0);
      else if (ragged_.never_written(static_cast<int>(v)))  // its placeholder row
        local = write_fill_at(*file_, ragged_.on_disk(header_), static_cast<int>(v), 0,
                              env_.profile, 0)  // a fixed variable: no records
                    .with_context(where());
    }
  }
  if (writing && local.ok() && env_.spec.fsync != Fsync::kNever) {
    PhaseTimer t(env_.profile, Phase::kSync);
    local = file_->sync();
  }
  const Status closed = file_->close();
  return local.ok() ? closed : local;
}

Status NetcdfDataset::write_fill(int var, uint64_t step) {
  const uint64_t record = header_.is_record(header_.vars[var]) ? header_.record_size() : 0;
  return write_fill_at(*file_, header_, var, step, env_.profile, record)
      .with_context(fmt::format("{}, variable '{}'", where(), header_.vars[var].name));
}

Status write_fill_at(io::File& file, const netcdf::Header& h, int var, uint64_t step,
                     Profile* profile, uint64_t record_size) {
  // One pattern of at most kFillChunk bytes written again and again: memory stays bounded
  // however large the variable.
  constexpr uint64_t kFillChunk = uint64_t{4} << 20;
  const netcdf::Var& nv = h.vars[var];
  const uint64_t esize = netcdf::nc_type_size(nv.type), bytes = h.elements(nv) * esize;
  const std::vector<uint8_t> image = fill_image(nv, std::min(h.elements(nv), kFillChunk / esize));
  std::optional<PhaseTimer> t;
  if (profile) t.emplace(profile, Phase::kWrite);
  const uint64_t at = h.data_offset(nv, step, record_size);
  for (uint64_t done = 0; done < bytes; done += image.size())
    TAPIO_RETURN_IF_ERROR(
        file.write_at(at + done, image.data(), std::min<uint64_t>(image.size(), bytes - done)));
  return ok_status();
}

}  // namespace tapio
