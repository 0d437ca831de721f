// The NetCDF file of the serial, mpiio and collective engines (netcdf_dataset.h): the header
// built from the definitions, create / append / read opening, committing a step (fill, then
// numrecs), and closing.
#include "engine/netcdf/netcdf_dataset.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "engine/netcdf/netcdf_file.h"
#include "format/netcdf/layout.h"
#include "format/netcdf/ragged.h"
#include "format/netcdf/schema.h"

namespace tapio {

void fill_image_into(const netcdf::Var& v, uint64_t total, uint8_t* out) {
  const uint64_t esize = netcdf::nc_type_size(v.type);
  if (total == 0) return;
  netcdf::fill_value(v, out);
  host_to_big_endian(out, out, 1, esize);
  // Doubling copies: the pattern filled so far is copied after itself, in log2(total) calls.
  for (uint64_t done = esize, all = total * esize; done < all; done *= 2)
    std::memcpy(out + done, out, std::min(done, all - done));
}

std::vector<uint8_t> fill_image(const netcdf::Var& v, uint64_t total) {
  std::vector<uint8_t> image(total * netcdf::nc_type_size(v.type));
  fill_image_into(v, total, image.data());
  return image;
}

DatasetEnv dataset_env(const Resources& res, const OpenSpec& open, Profile* profile,
                       NetcdfSpec spec) {
  return DatasetEnv{res.comm, res.io, open.path, open.mode, profile, spec, open.striping, {},
                    &storage_of(res)};
}

Status NetcdfDataset::agree(const Status& local) {
  PhaseTimer t(env_.profile, Phase::kAgree);
  return comm::agree(comm(), local);
}

Status NetcdfDataset::open(uint64_t* first_step) {
  *first_step = 0;
  return env_.mode == OpenMode::kWrite ? create() : open_existing(first_step);
}

Status NetcdfDataset::note_puts(const std::vector<PutOp>& puts,
                                std::vector<uint64_t>* also_summed) {
  const size_t nvars = env_.io->vars.size();
  std::vector<uint64_t> sums(nvars, 0);  // per variable, how many of my puts touch it
  for (const PutOp& p : puts) sums[p.var] += 1;
  if (also_summed) sums.insert(sums.end(), also_summed->begin(), also_summed->end());
  {
    // The sums decide which collectives follow (a variable's gather, the overlap check), so a
    // rank whose reduction failed must not leave alone: the failure is agreed on at once.
    PhaseTimer t(env_.profile, Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(
        agree(comm().allreduce_sum(sums.data(), static_cast<int>(sums.size()))));
  }
  if (also_summed) std::copy(sums.begin() + nvars, sums.end(), also_summed->begin());
  record_.batch.assign(nvars, 0);
  for (size_t v = 0; v < nvars; ++v) {
    if (!sums[v]) continue;
    record_.batch[v] = 1;
    record_.step[v] = true;
    fixed_written_[v] = fixed_written_[v] || !env_.io->vars[v].record;
  }
  return ok_status();
}

uint64_t data_end_of(const netcdf::Header& h) {
  uint64_t end = netcdf::header_extent(h);
  const uint64_t record = h.record_size();
  for (const auto& v : h.vars) {
    const uint64_t bytes = h.elements(v) * netcdf::nc_type_size(v.type);
    if (!h.is_record(v)) {
      end = std::max(end, v.begin + bytes);
    } else if (h.numrecs > 0) {
      end = std::max(end, h.data_offset(v, h.numrecs - 1, record) + bytes);
    }
  }
  return end;
}

uint64_t NetcdfDataset::data_end() const { return data_end_of(header_); }

// Every rank builds the header (pure), so all agree on definition errors without messages.
Status NetcdfDataset::build_header() {
  const auto joined = std::find_if(env_.io->vars.begin(), env_.io->vars.end(),
                                   [](const VariableDef& v) { return v.joined; });
  if (joined == env_.io->vars.end() || env_.spec.joined_reserve == 0) {
    TAPIO_ASSIGN_OR_RETURN(header_, netcdf::header_from_io(*env_.io, env_.spec.version,
                                                                env_.spec.record_dim));
    return netcdf::compute_layout(header_, env_.spec.layout);
  }
  if (env_.spec.async)  // a step's commit rewrites the header: docs/design.md
    return error(TAPIO_ERR_UNSUPPORTED, "variable '{}' is a joined array, which a NetCDF file "
                 "takes without async only: set async = false, or use the subfile engine",
                 joined->name);
  TAPIO_ASSIGN_OR_RETURN(ragged_, RaggedSamples::for_writing(*env_.io, env_.spec.version,
                                                             env_.spec.layout,
                                                             env_.spec.joined_reserve, &header_));
  return ok_status();
}

Status NetcdfDataset::lock_file(bool create) {
  io::LockRequest request;
  request.create = create;
  request.striped = env_.striping.has_value();
  TAPIO_ASSIGN_OR_RETURN(lock_, io::lock_writer(*env_.storage, env_.path,
                                                env_.spec.file_locking, request));
  return ok_status();
}

Status NetcdfDataset::lock_and_create() {
  TAPIO_RETURN_IF_ERROR(lock_file(true));
  TAPIO_ASSIGN_OR_RETURN(file_, io::open_layered(*env_.storage, env_.path, io::OpenMode::kCreate,
                                                 &env_.profile->io, env_.layers, env_.striping));
  return ok_status();
}

Status NetcdfDataset::create() {
  Status local = build_header().with_context(where());
  // Rank 0 locks and creates the file within the same agreement as the definitions' check.
  if (local.ok() && comm().rank() == 0) local = lock_and_create();
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  record_.step.assign(header_.vars.size(), false);
  fixed_written_.assign(header_.vars.size(), false);
  return comm::agree(comm(), comm().rank() == 0 ? create_on_root() : ok_status());
}

// Rank 0: the header, and the fixed-size section reserved now, so that a file cut short by a
// crash is still consistent with its header: every committed step lies inside the file.
Status NetcdfDataset::create_on_root() {
  PhaseTimer t(env_.profile, Phase::kMetadata);
  TAPIO_RETURN_IF_ERROR(write_shown_header());
  return file_->truncate(data_end());
}

Status NetcdfDataset::write_shown_header() {
  const auto bytes = netcdf::encode(has_joined() ? ragged_.on_disk(header_) : header_);
  return file_->write_at(0, bytes.data(), bytes.size());
}

Status NetcdfDataset::open_existing(uint64_t* first_step) {
  const io::OpenMode mode =
      env_.mode == OpenMode::kRead ? io::OpenMode::kReadOnly : io::OpenMode::kReadWrite;
  if (env_.mode == OpenMode::kAppend)  // before the header is read: no writer may move it
    TAPIO_RETURN_IF_ERROR(comm::agree(comm(), comm().rank() == 0 ? lock_file(false) : ok_status()));
  TAPIO_ASSIGN_OR_RETURN(file_,
                         ncfile::open_on_root(comm(), *env_.storage, env_.path, mode,
                                              &env_.profile->io, env_.layers));
  {
    PhaseTimer t(env_.profile, Phase::kMetadata);
    TAPIO_ASSIGN_OR_RETURN(header_, ncfile::bcast_header(comm(), file_.get()));
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), check_size()));
  TAPIO_RETURN_IF_ERROR(read_samples());
  TAPIO_ASSIGN_OR_RETURN(IoDef from_file, netcdf::io_from_header(header_, env_.io->name));
  netcdf::mark_joined(header_, netcdf::sample_dims(header_), &from_file);
  if (has_joined() && env_.mode == OpenMode::kAppend &&
      (env_.spec.joined_reserve == 0 || env_.spec.async))
    return error(TAPIO_ERR_UNSUPPORTED, "{}: the file holds joined arrays (CF ragged arrays), "
                 "which only the collective engine without async appends to", where());
  if (env_.mode == OpenMode::kRead) {
    from_file.engine = env_.io->engine;
    from_file.params = env_.io->params;
    *env_.io = std::move(from_file);
    return ok_status();
  }
  *first_step = header_.numrecs;
  committed_ = header_.numrecs;
  fixed_written_.assign(header_.vars.size(), true);
  record_.step.assign(header_.vars.size(), false);
  TAPIO_RETURN_IF_ERROR(merge_append_definitions(from_file));
  ragged_.take_room(&header_);  // the rows the layout leaves each sample dimension
  return ok_status();
}

// Rank 0: a file shorter than its header claims is truncated.
Status NetcdfDataset::check_size() {
  if (comm().rank() != 0) return ok_status();
  TAPIO_ASSIGN_OR_RETURN(const uint64_t size, file_->size());
  if (size >= data_end()) return ok_status();
  return error(TAPIO_ERR_FORMAT,
               "file '{}' is truncated: its header describes {} records ending at byte {} but "
               "the file has {} bytes",
               env_.path, header_.numrecs, data_end(), size);
}

namespace {
// An integer of NetCDF type t, big-endian in `raw`, as int64 (a uint64 above INT64_MAX is
// negative: no count is that large).
int64_t integer_at(netcdf::NcType t, const uint8_t* raw) {
  auto as = [&](auto value) {
    big_endian_to_host(&value, raw, 1, sizeof value);
    return static_cast<int64_t>(value);
  };
  switch (t) {
    case netcdf::NC_BYTE: return as(int8_t{});
    case netcdf::NC_UBYTE: return as(uint8_t{});
    case netcdf::NC_SHORT: return as(int16_t{});
    case netcdf::NC_USHORT: return as(uint16_t{});
    case netcdf::NC_INT: return as(int32_t{});
    case netcdf::NC_UINT: return as(uint32_t{});
    case netcdf::NC_INT64: return as(int64_t{});
    default: return as(uint64_t{});
  }
}
}  // namespace

Status NetcdfDataset::read_samples() {
  const std::vector<netcdf::SampleDim> dims = netcdf::sample_dims(header_);
  if (dims.empty()) return ok_status();
  std::vector<uint8_t> packed;  // rank 0 reads each count variable's values, as int64
  Status local = ok_status();
  if (comm().rank() == 0) {
    PhaseTimer t(env_.profile, Phase::kMetadata);
    const uint64_t record = header_.record_size();
    for (const netcdf::SampleDim& d : dims) {
      const netcdf::Var& v = header_.vars[d.count_var];
      const size_t esize = netcdf::nc_type_size(v.type);
      for (uint64_t rec = 0; rec < header_.numrecs && local.ok(); ++rec) {
        uint8_t raw[8] = {};
        size_t got = 0;
        local = file_->read_at(header_.data_offset(v, rec, record), raw, esize, &got);
        const int64_t value = integer_at(v.type, raw);
        const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
        packed.insert(packed.end(), bytes, bytes + sizeof value);
      }
    }
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local.with_context(where())));
  TAPIO_RETURN_IF_ERROR(comm().bcast_bytes(packed, 0));
  size_t at = 0;  // the same order as read
  auto counts = [&](int) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> values(header_.numrecs);
    std::memcpy(values.data(), packed.data() + at, values.size() * sizeof(int64_t));
    at += values.size() * sizeof(int64_t);
    return values;
  };
  auto samples = RaggedSamples::for_reading(header_, counts);
  if (!samples.ok()) return samples.status().with_context(where());
  ragged_ = std::move(samples).value();
  return ok_status();
}

std::vector<plan::Selection> NetcdfDataset::stored_blocks(int var, uint64_t step) const {
  std::vector<uint64_t> shape = env_.io->vars[var].shape;
  if (ragged_.is_joined(var)) shape[0] = ragged_.rows_at(var, step);
  return {plan::Selection::box(std::vector<uint64_t>(shape.size(), 0), shape)};
}

Status NetcdfDataset::plan_joined_step(const std::function<uint64_t(int)>& rows_of_var,
                                       uint64_t step) {
  if (!has_joined()) return ok_status();
  auto rows = ragged_.step_rows(header_, rows_of_var, step);
  if (!rows.ok()) return rows.status().with_context(where());
  joined_rows_ = std::move(rows).value();
  return ok_status();
}

Status NetcdfDataset::fit_joined(const std::function<uint64_t(int)>& rows_of_var,
                                 const std::function<uint64_t(int)>& written_of_var,
                                 uint64_t step) {
  if (!has_joined()) return ok_status();
  netcdf::Header written = header_;  // this step's record may hold earlier batches' data
  written.numrecs = step + 1;
  auto grown = ragged_.grown(header_, ragged_.rows_by_dim(rows_of_var), env_.spec.layout,
                             data_end_of(written));
  if (!grown.ok()) return grown.status().with_context(where());
  if (!grown->has_value()) return ok_status();
  netcdf::Header& to = **grown;
  TAPIO_RETURN_IF_ERROR(agree(
      copy_share(ragged_.moves(header_, to, written_of_var, step)).with_context(where())));
  // Every rank's share is written (and synced with fsync = step) before the header points to
  // it, as a step's data precedes its numrecs.
  Status shown = ok_status();
  if (comm().rank() == 0) {
    PhaseTimer t(env_.profile, Phase::kMetadata);
    const auto bytes = netcdf::encode(ragged_.on_disk(to));
    shown = file_->write_at(0, bytes.data(), bytes.size());
    if (shown.ok() && env_.spec.fsync == Fsync::kStep) shown = sync_file();
  }
  TAPIO_RETURN_IF_ERROR(agree(shown.with_context(where())));
  header_ = std::move(to);
  ragged_.reserve_as(header_);
  return ok_status();
}

Status NetcdfDataset::copy_share(const std::vector<RaggedSamples::Move>& moves) {
  constexpr uint64_t kGranule = 1u << 20;
  uint64_t largest = 0;  // nothing may move: the alignment padding took the growth
  for (const RaggedSamples::Move& m : moves) largest = std::max(largest, m.bytes);
  if (largest == 0) return ok_status();
  std::unique_ptr<io::File> own;  // rank 0 has the file open; the others open it for this
  io::File* file = file_.get();
  if (!file) {
    TAPIO_ASSIGN_OR_RETURN(own, env_.storage->open(env_.path, io::OpenMode::kReadWrite,
                                                   &env_.profile->io));
    file = own.get();
  }
  const auto rank = static_cast<uint64_t>(comm().rank());
  const auto size = static_cast<uint64_t>(comm().size());
  {
    PhaseTimer t(env_.profile, Phase::kWrite);
    std::vector<uint8_t> buffer(std::min<uint64_t>(8 * kGranule, largest));
    for (const RaggedSamples::Move& m : moves) {
      const uint64_t share = (m.bytes + size * kGranule - 1) / (size * kGranule) * kGranule;
      const uint64_t lo = std::min(m.bytes, rank * share), hi = std::min(m.bytes, lo + share);
      for (uint64_t at = lo; at < hi;) {
        size_t got = 0;
        const auto want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), hi - at));
        TAPIO_RETURN_IF_ERROR(file->read_at(m.from + at, buffer.data(), want, &got));
        if (got == 0) break;  // past the end of the file: nothing written there yet
        TAPIO_RETURN_IF_ERROR(file->write_at(m.to + at, buffer.data(), got));
        at += got;
      }
    }
  }
  if (env_.spec.fsync == Fsync::kStep) {
    PhaseTimer t(env_.profile, Phase::kSync);
    TAPIO_RETURN_IF_ERROR(file->sync());
  }
  return own ? own->close() : ok_status();
}

// Append keeps the file's variables; the program may re-declare them identically and may add
// or change attributes while they fit the header's free space (header_pad at creation).
Status NetcdfDataset::merge_append_definitions(const IoDef& from_file) {
  const IoDef& io = *env_.io;
  for (const auto& v : io.vars) {
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
  TAPIO_RETURN_IF_ERROR(check_declared_dims_kept(io, from_file).with_context(where()));
  IoDef merged = from_file;
  merged.engine = io.engine;
  merged.params = io.params;
  for (const auto& a : io.attrs) set_attribute(merged.attrs, a);
  for (const auto& v : io.vars)
    for (const auto& a : v.attrs) set_attribute(merged.vars[merged.find_var(v.name)].attrs, a);
  TAPIO_ASSIGN_OR_RETURN(netcdf::Header header, appended_header(merged));
  Status local = ok_status();
  const uint64_t need = netcdf::encoded_size(header);
  const uint64_t room = netcdf::header_extent(header_);
  if (need > room) {
    local = error(TAPIO_ERR_UNSUPPORTED,
                  "{}: the new attributes need a {}-byte header but the file has room for {}; "
                  "create it with a larger header_pad",
                  where(), need, room);
  } else if (comm().rank() == 0 && need != netcdf::encoded_size(header_)) {
    const auto bytes = netcdf::encode(header);
    local = file_->write_at(0, bytes.data(), bytes.size());
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  header_ = std::move(header);
  *env_.io = std::move(merged);
  return ok_status();
}

// The header of the merged definitions, with the file's layout and record count.
Result<netcdf::Header> NetcdfDataset::appended_header(const IoDef& merged) const {
  if (has_joined()) {  // the file's header (its definitions are fixed) with merged attributes
    netcdf::Header header = header_;
    header.attrs.clear();
    for (const Attribute& a : merged.attrs) header.attrs.push_back(netcdf::to_nc_attr(a));
    for (size_t i = 0; i < header.vars.size(); ++i) {
      header.vars[i].attrs.clear();
      for (const Attribute& a : merged.vars[i].attrs)
        header.vars[i].attrs.push_back(netcdf::to_nc_attr(a));
    }
    return header;
  }
  const int record = header_.record_dimid();  // appending keeps the file's name for it
  auto header = netcdf::header_from_io(
      merged, header_.version, record < 0 ? netcdf::kRecordDim : header_.dims[record].name);
  TAPIO_RETURN_IF_ERROR(header.status().with_context(where()));
  for (size_t i = 0; i < header->vars.size(); ++i) {  // layout stays the file's
    header->vars[i].begin = header_.vars[i].begin;
    header->vars[i].vsize = header_.vars[i].vsize;
  }
  header->numrecs = header_.numrecs;
  return header;
}

Status NetcdfDataset::write_step(uint64_t step, const Status& local,
                                 const std::function<Status()>& write_puts, Status* deferred,
                                 uint64_t* redo) {
  if (env_.spec.async) return write_step_async(step, local, write_puts, deferred, redo);
  TAPIO_RETURN_IF_ERROR(agree(local));
  TAPIO_RETURN_IF_ERROR(agree(write_puts()));
  const Status committed = agree(commit_step(step, std::exchange(*deferred, Status())));
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
