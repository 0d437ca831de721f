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
    plan::for_each_run(p.sel, io.vars[p.var].shape, [&](const plan::Run& run, uint64_t mem) {
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
  Status local;
  std::vector<uint64_t> elements;
  std::vector<Piece> pieces = put_pieces(puts, io(), nc_.header(), step, &elements);
  // Summed with the touched variables: the elements put of each variable, and the ranks whose
  // puts differ from their previous batch's. When some rank's did, the batch is checked for
  // overlapping pieces (overlap_check.h) before any byte moves.
  elements.push_back(repeated_.same_as_last(puts, step) ? 0 : 1);
  TAPIO_RETURN_IF_ERROR(nc_.note_puts(puts, &elements));
  if (elements[nvars] > 0) {
    std::vector<PutShape> mine;
    for (const PutOp& p : puts) mine.push_back(PutShape{p.var, &p.sel});
    local = agree(check_overlaps(comm(), resources().topology, io(), mine,
                                 [&](int var) { return at_step(var, step); }, &profile()));
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
    extents = stage(pieces, &staging);
  }
  PhaseTimer t(&profile(), Phase::kWrite);
  started_step_ = step;
  const Status moved = nc_.async()
                           ? fh_->start_write(extents, staging.data(), staging.size())
                           : fh_->transfer(true, extents, staging.data(), staging.size());
  return local.ok() ? moved : local;
}

// Before the collective, rank 0 prepares the file on its POSIX handle, and a barrier orders
// that before the data:
// - A new record is first made part of the file (exactly to where commit would extend it, so
//   the file stays the serial engine's). Collective buffering reads the holes of an
//   aggregator's span (variable padding, variables not in this batch) before writing it
//   back; past the end of the file OMPIO's read comes back short and the aggregator writes
//   back stale buffer bytes where the serial engine leaves zeros (seen with Open MPI 4.1).
// - Variables that this batch leaves partly unwritten get their fill value first, like the
//   serial engine.
Status MpiioEngine::prepare_file(uint64_t step, const std::vector<uint64_t>& elements,
                                 Status* local) {
  const netcdf::Header& h = nc_.header();
  const std::vector<uint8_t>& touched = nc_.touched();
  bool prepare = false;
  if (extended_records_ <= step)
    for (size_t v = 0; v < touched.size() && !prepare; ++v)
      prepare = touched[v] && h.is_record(h.vars[v]);
  if (prepare) {
    extended_records_ = step + 1;
    if (comm().rank() == 0 && local->ok()) *local = extend_to_record(step);
  }
  bool filled = false;
  for (size_t v = 0; v < touched.size(); ++v) {
    if (!touched[v] || elements[v] >= h.elements(h.vars[v]) || !spec_.file.fill) continue;
    filled = true;
    if (comm().rank() == 0 && local->ok())
      *local = nc_.write_fill(static_cast<int>(v), h.is_record(h.vars[v]) ? step : 0);
  }
  if (!filled && !prepare) return ok_status();
  PhaseTimer t(&profile(), Phase::kAgree);
  return comm().barrier();
}

Status MpiioEngine::extend_to_record(uint64_t step) {
  const netcdf::Header& h = nc_.header();
  const uint64_t record = h.record_size();
  uint64_t end = 0;
  for (const netcdf::Var& v : h.vars)
    if (h.is_record(v))
      end = std::max(end, h.data_offset(v, step, record) +
                              h.elements(v) * netcdf::nc_type_size(v.type));
  PhaseTimer t(&profile(), Phase::kMetadata);
  auto size = nc_.root_file()->size();
  TAPIO_RETURN_IF_ERROR(size.status().with_context(where()));
  if (*size >= end) return ok_status();
  return nc_.root_file()->truncate(end).with_context(where());
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
      plan::for_each_run(g.sel, io().vars[g.var].shape, [&](const plan::Run& run, uint64_t mem) {
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
