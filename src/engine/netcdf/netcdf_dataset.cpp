// The NetCDF file of the serial, mpiio and collective engines (netcdf_dataset.h): the header
// built from the definitions, create / append / read opening, and which variables a batch
// touched. Committing and closing are in netcdf_commit.cpp, the joined arrays in
// netcdf_joined.cpp.
#include "engine/netcdf/netcdf_dataset.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "core/out_of_memory.h"
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
                                std::vector<uint64_t>* also_summed, const Status& local) {
  const size_t nvars = env_.io->vars.size();
  std::vector<uint64_t>& sums = sums_;  // per variable, how many of my puts touch it
  sums.assign(nvars, 0);
  for (const PutOp& p : puts) sums[p.var] += 1;
  if (also_summed) sums.insert(sums.end(), also_summed->begin(), also_summed->end());
  {
    // The sums decide which collectives follow (a variable's gather, the overlap check), so a
    // rank whose reduction failed must not leave alone: the failure is agreed on at once.
    PhaseTimer t(env_.profile, Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm::agree(
        comm(), local, comm().allreduce_sum(sums.data(), static_cast<int>(sums.size()))));
  }
  if (also_summed) std::copy(sums.begin() + nvars, sums.end(), also_summed->begin());
  note_batch(sums.data());
  return ok_status();
}

void NetcdfDataset::note_batch(const uint64_t* puts_per_var) {
  const size_t nvars = env_.io->vars.size();
  record_.batch.assign(nvars, 0);
  for (size_t v = 0; v < nvars; ++v) {
    if (!puts_per_var[v]) continue;
    record_.batch[v] = 1;
    record_.step[v] = true;
    fixed_written_[v] = fixed_written_[v] || !env_.io->vars[v].record;
  }
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
  // Rank 0 locks, creates and lays out the file within the same agreement as the
  // definitions' check (every rank builds the same header: it fails on every rank or none,
  // but for an allocation, which the agreement carries too).
  const Status local = catch_out_of_memory(fmt::format("creating {}", where()), [&] {
    TAPIO_RETURN_IF_ERROR(build_header().with_context(where()));
    sums_.reserve(2 * header_.vars.size() + 8);  // note_puts' buffer, or an engine's (sums())
    if (comm().rank() != 0) return ok_status();
    TAPIO_RETURN_IF_ERROR(lock_and_create());
    return create_on_root();
  });
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  record_.step.assign(header_.vars.size(), false);
  fixed_written_.assign(header_.vars.size(), false);
  return ok_status();
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
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), catch_out_of_memory(where(), [&] {
    if (env_.mode == OpenMode::kAppend) sums_.reserve(2 * header_.vars.size() + 8);  // as create
    return check_size();
  })));
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

}  // namespace tapio
