// What every engine that writes one NetCDF file shares: the header built from the definitions,
// create / append / read opening, committing a step (fill, then numrecs), and closing.
#include "engine/netcdf_engine.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/netcdf_file.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/schema.h"

namespace tapio {
// `total` elements of v's fill value, big-endian, as they go to the file.
std::vector<uint8_t> fill_image(const netcdf::Var& v, uint64_t total) {
  const size_t esize = netcdf::nc_type_size(v.type);
  uint8_t value[8];
  netcdf::fill_value(v, value);
  host_to_big_endian(value, value, 1, esize);
  std::vector<uint8_t> image(total * esize);
  for (uint64_t i = 0; i < total; ++i) std::memcpy(image.data() + i * esize, value, esize);
  return image;
}


NetcdfEngine::NetcdfEngine(EngineEnv env) : Engine(std::move(env)) {}

Status NetcdfEngine::open_file() {
  return env_.mode == OpenMode::kWrite ? create() : open_existing();
}

Status NetcdfEngine::note_puts(const std::vector<PutOp>& puts, std::vector<uint64_t>* also_summed) {
  const size_t nvars = io().vars.size();
  std::vector<uint64_t> sums(nvars, 0);  // per variable, how many of my puts touch it
  for (const PutOp& p : puts) sums[p.var] += 1;
  if (also_summed) sums.insert(sums.end(), also_summed->begin(), also_summed->end());
  {
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm().allreduce_sum(sums.data(), static_cast<int>(sums.size())));
  }
  if (also_summed) std::copy(sums.begin() + nvars, sums.end(), also_summed->begin());
  touched_now_.assign(nvars, 0);
  for (size_t v = 0; v < nvars; ++v) {
    if (!sums[v]) continue;
    touched_now_[v] = 1;
    step_touched_[v] = true;
    fixed_written_[v] = fixed_written_[v] || !io().vars[v].record;
  }
  return ok_status();
}

bool NetcdfEngine::has_record_vars() const { return header_.record_dimid() >= 0; }

uint64_t NetcdfEngine::available_steps() const {
  return env_.mode == OpenMode::kRead ? header_.numrecs : step_;
}

uint64_t NetcdfEngine::data_end() const {
  // The exact bytes of data (not vsize, which pads to 4: a file whose last variable has an odd
  // size legitimately ends before the padding).
  uint64_t end = netcdf::header_extent(header_);
  for (const auto& v : header_.vars) {
    const uint64_t bytes = header_.elements(v) * netcdf::nc_type_size(v.type);
    if (!header_.is_record(v)) {
      end = std::max(end, v.begin + bytes);
    } else if (header_.numrecs > 0) {
      end = std::max(end, header_.data_offset(v, header_.numrecs - 1) + bytes);
    }
  }
  return end;
}

Status NetcdfEngine::create() {
  // Every rank builds the header (pure), so all agree on definition errors without messages.
  auto header = netcdf::header_from_io(io(), ncfile::version(env_.params));
  Status local = header.status();
  if (local.ok()) {
    header_ = std::move(header).value();
    local = netcdf::compute_layout(header_, ncfile::layout_options(env_.params));
  }
  local = local.with_context(where());
  // Rank 0 creates the file within the same agreement as the definitions' check.
  if (local.ok() && comm().rank() == 0) {
    auto opened = io::open_posix(env_.path, io::OpenMode::kCreate, &profile().io);
    local = opened.status();
    if (local.ok()) file_ = std::move(opened).value();
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  step_touched_.assign(header_.vars.size(), false);
  fixed_written_.assign(header_.vars.size(), false);
  if (comm().rank() == 0) {
    PhaseTimer t(&profile(), Phase::kMetadata);
    const auto bytes = netcdf::encode(header_);
    local = file_->write_at(0, bytes.data(), bytes.size());
    // Reserve the fixed-size section now, so that a file cut short by a crash is still
    // consistent with its header: every committed step lies inside the file.
    if (local.ok()) local = file_->truncate(data_end());
  }
  return comm::agree(comm(), local);
}

Status NetcdfEngine::open_existing() {
  const io::OpenMode mode =
      env_.mode == OpenMode::kRead ? io::OpenMode::kReadOnly : io::OpenMode::kReadWrite;
  TAPIO_ASSIGN_OR_RETURN(file_, ncfile::open_on_root(comm(), env_.path, mode, &profile().io));
  {
    PhaseTimer t(&profile(), Phase::kMetadata);
    TAPIO_ASSIGN_OR_RETURN(header_, ncfile::bcast_header(comm(), file_.get()));
  }
  Status local = ok_status();
  if (comm().rank() == 0) {
    auto size = file_->size();
    local = size.status();
    if (local.ok() && *size < data_end())
      local = error(TAPIO_ERR_FORMAT,
                    "file '{}' is truncated: its header describes {} records ending at byte {} "
                    "but the file has {} bytes",
                    env_.path, header_.numrecs, data_end(), *size);
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  TAPIO_ASSIGN_OR_RETURN(IoDef from_file, netcdf::io_from_header(header_, io().name));
  if (env_.mode == OpenMode::kRead) {
    from_file.engine = env_.io->engine;
    from_file.params = env_.io->params;
    *env_.io = std::move(from_file);
    return ok_status();
  }
  step_ = header_.numrecs;
  fixed_written_.assign(header_.vars.size(), true);
  step_touched_.assign(header_.vars.size(), false);
  return merge_append_definitions(from_file);
}

// Append keeps the file's variables; the program may re-declare them identically and may add
// or change attributes while they fit the header's free space (header_pad at creation).
Status NetcdfEngine::merge_append_definitions(const IoDef& from_file) {
  for (const auto& v : io().vars) {
    const int i = from_file.find_var(v.name);
    if (i < 0)
      return error(TAPIO_ERR_UNSUPPORTED,
                   "{}: append cannot add variable '{}': a NetCDF file's variables are fixed at "
                   "creation",
                   where(), v.name);
    const VariableDef& f = from_file.vars[i];
    if (f.type != v.type || f.shape != v.shape || f.record != v.record)
      return error(TAPIO_ERR_SHAPE,
                   "{}: variable '{}' is declared differently from the file being appended to",
                   where(), v.name);
  }
  IoDef merged = from_file;
  merged.engine = io().engine;
  merged.params = io().params;
  for (const auto& a : io().attrs) set_attribute(merged.attrs, a);
  for (const auto& v : io().vars)
    for (const auto& a : v.attrs) set_attribute(merged.vars[merged.find_var(v.name)].attrs, a);
  auto header = netcdf::header_from_io(merged, header_.version);
  TAPIO_RETURN_IF_ERROR(header.status().with_context(where()));
  for (size_t i = 0; i < header->vars.size(); ++i) {  // layout stays the file's
    header->vars[i].begin = header_.vars[i].begin;
    header->vars[i].vsize = header_.vars[i].vsize;
  }
  header->numrecs = header_.numrecs;
  Status local = ok_status();
  const uint64_t need = netcdf::encoded_size(*header);
  const uint64_t room = netcdf::header_extent(header_);
  if (need > room) {
    local = error(TAPIO_ERR_UNSUPPORTED,
                  "{}: the new attributes need a {}-byte header but the file has room for {}; "
                  "create it with a larger header_pad",
                  where(), need, room);
  } else if (comm().rank() == 0 && need != netcdf::encoded_size(header_)) {
    const auto bytes = netcdf::encode(*header);
    local = file_->write_at(0, bytes.data(), bytes.size());
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  header_ = std::move(header).value();
  *env_.io = std::move(merged);
  return ok_status();
}

Status NetcdfEngine::write_step(const std::vector<PutOp>& puts, uint64_t step,
                                const Status& local) {
  TAPIO_RETURN_IF_ERROR(agree(local));
  TAPIO_RETURN_IF_ERROR(agree(write_puts(puts, step)));
  return agree(commit_step(step));
}

Status NetcdfEngine::commit_step(uint64_t step) {
  Status local = std::exchange(deferred_, Status());
  std::vector<bool> touched(header_.vars.size(), false);
  std::swap(touched, step_touched_);
  if (!has_record_vars()) return local;
  if (comm().rank() == 0 && local.ok()) {
    // Record variables nobody put in this step hold fill values, as in netCDF's fill mode.
    if (env_.params.get_bool("fill"))
      for (size_t v = 0; v < header_.vars.size() && local.ok(); ++v)
        if (header_.is_record(header_.vars[v]) && !touched[v])
          local = write_fill(static_cast<int>(v), step);
    header_.numrecs = step + 1;
    PhaseTimer t(&profile(), Phase::kMetadata);
    // The file must reach the end of the new record even if its last variable was not written
    // (fill = false), or readers would find it shorter than its header says.
    auto size = file_->size();
    if (local.ok()) local = size.status();
    if (local.ok() && *size < data_end()) local = file_->truncate(data_end());
    // Data first, then numrecs: a reader (or a crash) never sees a half-written step.
    if (local.ok() && env_.params.get("fsync") == "step") {
      PhaseTimer s(&profile(), Phase::kSync);
      local = file_->sync();
    }
    if (local.ok()) local = ncfile::write_numrecs(*file_, header_, header_.numrecs);
    // ...and numrecs too, so the step is on storage when end_step returns, not at the next one.
    if (local.ok() && env_.params.get("fsync") == "step") {
      PhaseTimer s(&profile(), Phase::kSync);
      local = file_->sync();
    }
  }
  header_.numrecs = step + 1;
  return local;
}

Status NetcdfEngine::close_files() {
  Status local = std::exchange(deferred_, Status());
  if (comm().rank() != 0) return local;
  const bool writing = env_.mode != OpenMode::kRead;
  if (writing && local.ok() && env_.params.get_bool("fill")) {
    for (size_t v = 0; v < header_.vars.size() && local.ok(); ++v)
      if (!header_.is_record(header_.vars[v]) && !fixed_written_[v])
        local = write_fill(static_cast<int>(v), 0);
  }
  if (writing && local.ok() && env_.params.get("fsync") != "never") {
    PhaseTimer t(&profile(), Phase::kSync);
    local = file_->sync();
  }
  const Status closed = file_->close();
  return local.ok() ? closed : local;
}

Status NetcdfEngine::write_fill(int var, uint64_t step) {
  const netcdf::Var& nv = header_.vars[var];
  const std::vector<uint8_t> image = fill_image(nv, header_.elements(nv));
  PhaseTimer t(&profile(), Phase::kWrite);
  return file_->write_at(header_.data_offset(nv, step), image.data(), image.size())
      .with_context(fmt::format("{}, variable '{}'", where(), nv.name));
}

}  // namespace tapio
