// The joined arrays of a NetCDF file (netcdf_dataset.h, ragged_samples.h): their counts read at
// open, a read step's stored block, and a write step's rows planned and fitted (the room grown
// and the data after it moved by every rank).
#include "engine/netcdf/netcdf_dataset.h"

#include <algorithm>
#include <cstring>

#include "format/netcdf/layout.h"
#include "format/netcdf/ragged.h"

namespace tapio {

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

}  // namespace tapio
