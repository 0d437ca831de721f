// mpiio engine, data paths. A batch of puts (or gets) becomes one list of pieces — a run of one
// variable at one step: its byte offset in the file and where its elements are in the user's
// buffer — sorted by file offset (MPI-IO filetypes must be monotone). The pieces are byte-
// swapped run by run into a staging buffer laid out in that file order, so the memory side of
// the one write_all is contiguous and the file side is an hindexed type over the merged pieces.
//
// Profile: MPI-IO hides what storage sees (ROMIO / OMPIO aggregate, sieve and split the
// requests), so this engine does not invent POSIX counters for the data: profile().io holds
// what rank 0's own POSIX handle did (header, numrecs, fill), the write / read phases hold the
// time in the collective calls, and the messages/bytes fields stay 0 because MPI-IO's internal
// exchange is not visible here.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

#include <fmt/ranges.h>

#include "core/out_of_memory.h"
#include "engine/mpiio/mpiio_engine.h"

namespace tapio {
namespace {

struct Piece {
  uint64_t file = 0;      // byte offset in the file
  uint64_t elements = 0;  // run length
  uint32_t esize = 0;
  int var = 0;
  uint8_t* user = nullptr;  // the run in the user's buffer (const for puts)
  uint64_t bytes() const { return elements * esize; }
};

bool by_file(const Piece& a, const Piece& b) { return a.file < b.file; }

using comm::Extents;

// My pieces of a batch of puts (sorted by file offset), and how many elements of each
// variable I put.
std::vector<Piece> put_pieces(const std::vector<PutOp>& puts, const IoDef& io,
                              const netcdf::Header& h, uint64_t step,
                              std::vector<uint64_t>* elements) {
  std::vector<Piece> pieces;
  elements->assign(io.vars.size(), 0);
  const uint64_t record = h.record_size();
  for (const PutOp& p : puts) {
    const netcdf::Var& nv = h.vars[p.var];
    const uint32_t esize = static_cast<uint32_t>(netcdf::nc_type_size(nv.type));
    const uint64_t base = h.data_offset(nv, h.is_record(nv) ? step : 0, record);
    auto* data = static_cast<uint8_t*>(const_cast<void*>(p.data));
    plan::for_each_run(*p.sel, io.vars[p.var].shape, [&](const plan::Run& run, uint64_t mem) {
      if (run.length > 0)
        pieces.push_back(Piece{base + run.offset * esize, run.length, esize, p.var,
                               data + mem * esize});
    });
    (*elements)[p.var] += p.elements;
  }
  std::sort(pieces.begin(), pieces.end(), by_file);
  return pieces;
}

// The bytes of `pieces`.
uint64_t bytes_of(const std::vector<Piece>& pieces) {
  uint64_t bytes = 0;
  for (const Piece& p : pieces) bytes += p.bytes();
  return bytes;
}

// The pieces byte-swapped into `staging` (of bytes_of(pieces)) in file order, touching pieces
// merged into extents.
Extents stage(const std::vector<Piece>& pieces, ByteBuffer* staging) {
  uint8_t* out = staging->data();
  Extents extents;
  uint64_t pos = 0;
  for (const Piece& p : pieces) {
    host_to_big_endian(out + pos, p.user, p.elements, p.esize);
    pos += p.bytes();
    if (!extents.empty() && extents.back().first + extents.back().second == p.file)
      extents.back().second += p.bytes();
    else
      extents.emplace_back(p.file, p.bytes());
  }
  return extents;
}

}  // namespace

Status MpiioEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  // Async: a batch after perform_puts finds the previous batch's write started; MPI-IO allows
  // no set_view before it completes (a failure is kept for that batch's step's commit).
  if (nc_.async()) keep(&failed_, finish_write());
  const size_t nvars = io().vars.size();
  // A rank that cannot list its pieces still enters the collectives, with none, and its
  // failure is agreed on in the first (the touched variables' sums).
  std::vector<Piece> pieces;
  std::vector<uint64_t>& elements = elements_;  // taken at open: nvars + 1
  Status local = catch_out_of_memory([&] { return writing(); }, [&] {
    pieces = put_pieces(puts, io(), nc_.header(), step, &elements);
    return ok_status();
  });
  if (!local.ok()) pieces.clear();
  // Summed with the touched variables: the elements put of each variable, and the ranks whose
  // puts differ from their previous batch's. When some rank's did, the batch is checked for
  // overlapping pieces (overlap_check.h) before any byte moves.
  elements.resize(nvars, 0);
  elements.push_back(repeated_.same_as_last(puts, step) ? 0 : 1);
  TAPIO_RETURN_IF_ERROR(nc_.note_puts(puts, &elements, local));
  if (elements[nvars] > 0) {
    std::vector<PutShape> mine;
    local = catch_out_of_memory([&] { return writing(); }, [&] {
      for (const PutOp& p : puts) mine.push_back(PutShape{p.var, p.sel.get()});
      return ok_status();
    });
    if (!local.ok()) mine.clear();
    keep(&local, check_overlaps(comm(), resources().topology, io(), mine,
                                [&](int var) { return at_step(var, step); }, &profile()));
    local = agree(local);
  }
  TAPIO_RETURN_IF_ERROR(prepare_file(step, elements, &local));
  if (!local.ok()) pieces.clear();  // keep entering the collective, with zero bytes
  // Pooled, not zeroed: every byte is a piece's (a zero-filled vector per batch cost page
  // faults and a memset of the step's size, as in the serial engine). With async the write
  // only starts (MPI_File_iwrite_all), and its buffer stays until the next batch or commit.
  PooledBuffer pooled(resources().buffers);
  ByteBuffer& staging = nc_.async() ? started_staging_ : pooled.get();
  // A rank short of memory still enters the collective write, with zero bytes.
  if (!staging.try_prepare(bytes_of(pieces))) {
    keep(&local, out_of_memory(writing(), bytes_of(pieces)));
    pieces.clear();
  }
  Extents extents;
  {
    PhaseTimer t(&profile(), Phase::kSwap);
    keep(&local, catch_out_of_memory([&] { return writing(); }, [&] {
      extents = stage(pieces, &staging);
      return ok_status();
    }));
  }
  if (!spec_.file.fill && local.ok()) local = reserve_extents(extents, step);
  const uint64_t bytes = local.ok() ? staging.size() : 0;
  if (!local.ok()) extents.clear();
  PhaseTimer t(&profile(), Phase::kWrite);
  if (nc_.async()) {
    started_step_ = step;
    started_variables_ = batch_variables();
    const Status started = fh_->start_write(extents, staging.data(), bytes);
    return local.ok() ? started : local;
  }
  const Status moved = fh_->transfer(true, extents, staging.data(), bytes);
  return local.ok() ? moved.with_context(fmt::format("step {}, {}", step, batch_variables()))
                    : local;
}

// Before the collective, rank 0 prepares the file on its POSIX handle, and a barrier orders
// that before the data:
// - The storage the batch writes is reserved (fallocate), so that a full disk fails here, with
//   the errno: OMPIO (Open MPI's default MPI-IO) reports no failed write, and its write_all
//   returns success for data a full disk never took (docs/reliability.md). With fill, the
//   batch's variables and a new record are written whole (data, then fill values): rank 0
//   reserves all of it. Without fill a file may be sparse by design (a 2^40-element variable
//   of small blocks): every rank reserves its own extents (reserve_extents), and rank 0 only
//   extends the file.
// - Either way a new record becomes part of the file before its data, exactly to where commit
//   would extend it (so the file stays the serial engine's): collective buffering reads the
//   holes of an aggregator's span (variable padding, variables not in this batch) before
//   writing it back; past the end of the file OMPIO's read comes back short and the
//   aggregator writes back stale buffer bytes where the serial engine leaves zeros (seen with
//   Open MPI 4.1).
// - Variables that this batch leaves partly unwritten get their fill value first, like the
//   serial engine.
Status MpiioEngine::prepare_file(uint64_t step, const std::vector<uint64_t>& elements,
                                 Status* local) {
  const netcdf::Header& h = nc_.header();
  const std::vector<uint8_t>& touched = nc_.touched();
  const uint64_t end = batch_end(step);
  const bool reserve = end > reserved_end_;
  if (reserve) {
    reserved_end_ = end;
    if (comm().rank() == 0 && local->ok()) *local = reserve_to(end, step);
  }
  bool filled = false;
  for (size_t v = 0; v < touched.size(); ++v) {
    if (!touched[v] || elements[v] >= h.elements(h.vars[v]) || !spec_.file.fill) continue;
    filled = true;
    if (comm().rank() == 0 && local->ok())
      *local = nc_.write_fill(static_cast<int>(v), h.is_record(h.vars[v]) ? step : 0);
  }
  if (!filled && !reserve) return ok_status();
  PhaseTimer t(&profile(), Phase::kAgree);
  return comm().barrier();
}

uint64_t MpiioEngine::batch_end(uint64_t step) const {
  const netcdf::Header& h = nc_.header();
  const std::vector<uint8_t>& touched = nc_.touched();
  const uint64_t record = h.record_size();
  auto end_of = [&](const netcdf::Var& v) {
    return h.data_offset(v, h.is_record(v) ? step : 0, record) +
           h.elements(v) * netcdf::nc_type_size(v.type);
  };
  uint64_t end = 0;
  bool new_record = false;
  for (size_t v = 0; v < touched.size(); ++v) {
    if (!touched[v]) continue;
    if (h.is_record(h.vars[v]))
      new_record = true;
    else
      end = std::max(end, end_of(h.vars[v]));
  }
  if (new_record)
    for (const netcdf::Var& v : h.vars)
      if (h.is_record(v)) end = std::max(end, end_of(v));
  return end;
}

Status MpiioEngine::reserve_to(uint64_t end, uint64_t step) {
  PhaseTimer t(&profile(), Phase::kMetadata);
  io::File& file = *nc_.root_file();
  auto size = file.size();
  Status st = size.status();
  if (st.ok() && *size < end) {
    st = spec_.file.fill ? file.allocate(*size, end - *size) : file.truncate(end);
    if (st.code() == TAPIO_ERR_UNSUPPORTED) {
      st = without_reservation(st);
      if (st.ok()) st = file.truncate(end);
    }
  }
  return st.with_context(fmt::format("{}, step {}, {}", where(), step, batch_variables()));
}

Status MpiioEngine::reserve_extents(const comm::Extents& extents, uint64_t step) {
  // Extents nearer than this are reserved as one range, the gap included: fewer calls for an
  // interleaved pattern, and fewer unreserved holes for an aggregator to write back.
  constexpr uint64_t kGap = uint64_t{1} << 20;
  if (extents.empty()) return ok_status();
  PhaseTimer t(&profile(), Phase::kMetadata);
  io::File* file = nc_.root_file();  // rank 0's; the others open their own once
  if (!file && !own_file_) {
    auto opened = storage().open(path(), io::OpenMode::kReadWrite, &profile().io);
    if (!opened.ok()) return opened.status();
    own_file_ = std::move(opened).value();
  }
  if (!file) file = own_file_.get();
  Status st;
  uint64_t lo = extents.front().first, hi = lo;
  for (const auto& [offset, bytes] : extents) {
    if (offset > hi + kGap) {
      st = file->allocate(lo, hi - lo);
      if (!st.ok()) break;
      lo = offset;
    }
    hi = std::max(hi, offset + bytes);
  }
  if (st.ok()) st = file->allocate(lo, hi - lo);
  if (st.code() == TAPIO_ERR_UNSUPPORTED) st = without_reservation(st);
  return st.with_context(fmt::format("{}, step {}, {}", where(), step, batch_variables()));
}

Status MpiioEngine::without_reservation(const Status& refused) const {
  if (fh_->reports_failed_writes()) return ok_status();
  return Status(refused.code(), refused.message() +
                                    "; Open MPI's OMPIO reports no failed write, so the mpiio "
                                    "engine writes only into reserved storage: run it with "
                                    "ROMIO (OMPI_MCA_io=romio321) or use the collective engine");
}

std::string MpiioEngine::batch_variables() const {
  constexpr size_t kNamed = 3;
  const std::vector<uint8_t>& touched = nc_.touched();
  std::vector<std::string> names;
  size_t count = 0;
  for (size_t v = 0; v < touched.size(); ++v)
    if (touched[v] && count++ < kNamed) names.push_back(fmt::format("'{}'", io().vars[v].name));
  std::string text = fmt::format("variable{} {}", count == 1 ? "" : "s", fmt::join(names, ", "));
  if (count > kNamed) text += fmt::format(" and {} more", count - kNamed);
  return text;
}

Status MpiioEngine::read_gets(const std::vector<GetOp>& gets) {
  // Every (get, step, run) is a piece; pieces may overlap (two gets of the same elements), so
  // overlapping and touching pieces merge into extents and each piece is read once from its
  // extent's place in the buffer.
  std::vector<Piece> pieces;
  const uint64_t record = nc_.header().record_size();
  for (const GetOp& g : gets) {
    const netcdf::Var& nv = nc_.header().vars[g.var];
    const uint32_t esize = static_cast<uint32_t>(netcdf::nc_type_size(nv.type));
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s) {
      const uint64_t base = nc_.header().data_offset(nv, s, record);
      uint8_t* data = static_cast<uint8_t*>(g.data) + (s - g.step_start) * g.elements * esize;
      plan::for_each_run(*g.sel, io().vars[g.var].shape, [&](const plan::Run& run, uint64_t mem) {
        if (run.length > 0)
          pieces.push_back(Piece{base + run.offset * esize, run.length, esize, g.var,
                                 data + mem * esize});
      });
    }
  }
  std::sort(pieces.begin(), pieces.end(), by_file);
  Extents extents;
  std::vector<uint64_t> where_in_buffer(pieces.size());
  uint64_t bytes = 0;  // buffer bytes before the current extent
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    if (extents.empty() || p.file > extents.back().first + extents.back().second) {
      if (!extents.empty()) bytes += extents.back().second;
      extents.emplace_back(p.file, p.bytes());
    } else {
      extents.back().second =
          std::max(extents.back().first + extents.back().second, p.file + p.bytes()) -
          extents.back().first;
    }
    where_in_buffer[i] = bytes + (p.file - extents.back().first);
  }
  if (!extents.empty()) bytes += extents.back().second;
  PooledBuffer pooled(resources().buffers);
  // A rank short of memory still enters the collective read, with zero bytes.
  if (!pooled.get().try_prepare(bytes)) {
    Status local = out_of_memory(fmt::format("reading {}", where()), bytes);
    keep(&local, fh_->transfer(false, {}, nullptr, 0));
    return local;
  }
  uint8_t* buffer = pooled.get().data();
  {
    PhaseTimer t(&profile(), Phase::kRead);
    TAPIO_RETURN_IF_ERROR(fh_->transfer(false, extents, buffer, bytes));
  }
  PhaseTimer t(&profile(), Phase::kSwap);
  for (size_t i = 0; i < pieces.size(); ++i)
    big_endian_to_host(pieces[i].user, buffer + where_in_buffer[i], pieces[i].elements,
                       pieces[i].esize);
  return ok_status();
}

}  // namespace tapio
