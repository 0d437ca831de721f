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

using Extents = std::vector<std::pair<uint64_t, uint64_t>>;  // (file offset, bytes)

}  // namespace

Status MpiioEngine::write_puts(const std::vector<PutOp>& puts, uint64_t step) {
  const size_t nvars = io().vars.size();
  Status local;

  // My pieces, and how many elements of each variable I put.
  std::vector<Piece> pieces;
  std::vector<uint64_t> elements(nvars, 0);
  for (const PutOp& p : puts) {
    const netcdf::Var& nv = header_.vars[p.var];
    const uint32_t esize = static_cast<uint32_t>(netcdf::nc_type_size(nv.type));
    const uint64_t base = header_.data_offset(nv, header_.is_record(nv) ? step : 0);
    auto* data = static_cast<uint8_t*>(const_cast<void*>(p.data));
    plan::for_each_run(p.sel, io().vars[p.var].shape, [&](const plan::Run& run, uint64_t mem) {
      if (run.length > 0)
        pieces.push_back(Piece{base + run.offset * esize, run.length, esize, p.var,
                               data + mem * esize});
    });
    elements[p.var] += p.elements;
  }
  std::sort(pieces.begin(), pieces.end(), by_file);
  // Summed with the touched variables: the elements put of each variable, and the ranks whose
  // puts differ from their previous batch's. When some rank's did, the batch is checked for
  // overlapping pieces (overlap_check.h) before any byte moves.
  elements.push_back(repeated_.same_as_last(puts, step) ? 0 : 1);
  TAPIO_RETURN_IF_ERROR(note_puts(puts, &elements));
  if (elements[nvars] > 0) {
    std::vector<PutShape> mine;
    for (const PutOp& p : puts) mine.push_back(PutShape{p.var, &p.sel});
    local = agree(check_overlaps(comm(), env_.topology, io(), mine,
                                 [&](int var) { return at_step(var, step); }, &profile()));
  }

  // Before the collective, rank 0 prepares the file on its POSIX handle, and a barrier orders
  // that before the data:
  // - A new record is first made part of the file (exactly to where commit would extend it,
  //   so the file stays the serial engine's). Collective buffering reads the holes of an
  //   aggregator's span (variable padding, variables not in this batch) before writing it
  //   back; past the end of the file OMPIO's read comes back short and the aggregator writes
  //   back stale buffer bytes where the serial engine leaves zeros (seen with Open MPI 4.1).
  // - Variables that this batch leaves partly unwritten get their fill value first, like the
  //   serial engine.
  bool prepare = false;
  if (extended_records_ <= step)
    for (size_t v = 0; v < nvars && !prepare; ++v)
      prepare = touched_now_[v] && header_.is_record(header_.vars[v]);
  if (prepare) {
    extended_records_ = step + 1;
    if (comm().rank() == 0 && local.ok()) local = extend_to_record(step);
  }
  const bool fill = env_.params.get_bool("fill");
  bool filled = false;
  for (size_t v = 0; v < nvars; ++v) {
    if (!touched_now_[v]) continue;
    const uint64_t total = header_.elements(header_.vars[v]);
    if (elements[v] < total && fill) {
      filled = true;
      if (comm().rank() == 0 && local.ok())
        local = write_fill(static_cast<int>(v), header_.is_record(header_.vars[v]) ? step : 0);
    }
  }
  if (filled || prepare) {
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm().barrier());
  }

  // Stage in file order, byte-swapping whole runs; merge touching pieces into extents.
  if (!local.ok()) pieces.clear();  // keep entering the collective, with zero bytes
  uint64_t bytes = 0;
  for (const Piece& p : pieces) bytes += p.bytes();
  std::vector<uint8_t> staging(bytes);
  Extents extents;
  uint64_t pos = 0;
  std::optional<PhaseTimer> swapping(std::in_place, &profile(), Phase::kSwap);
  for (const Piece& p : pieces) {
    host_to_big_endian(staging.data() + pos, p.user, p.elements, p.esize);
    pos += p.bytes();
    if (!extents.empty() && extents.back().first + extents.back().second == p.file)
      extents.back().second += p.bytes();
    else
      extents.emplace_back(p.file, p.bytes());
  }
  swapping.reset();
  PhaseTimer t(&profile(), Phase::kWrite);
  const Status moved = transfer(true, extents, staging.data(), bytes);
  return local.ok() ? moved : local;
}

// An error path only (every rank knows the puts of `var` overlap, not where): the ranks' runs
// of var go to rank 0, which names two ranks and their elements as the serial engine does.
Status MpiioEngine::extend_to_record(uint64_t step) {
  uint64_t end = 0;
  for (const netcdf::Var& v : header_.vars)
    if (header_.is_record(v))
      end = std::max(end, header_.data_offset(v, step) +
                              header_.elements(v) * netcdf::nc_type_size(v.type));
  PhaseTimer t(&profile(), Phase::kMetadata);
  auto size = file_->size();
  TAPIO_RETURN_IF_ERROR(size.status().with_context(where()));
  if (*size >= end) return ok_status();
  return file_->truncate(end).with_context(where());
}

Status MpiioEngine::read_gets(const std::vector<GetOp>& gets) {
  // Every (get, step, run) is a piece; pieces may overlap (two gets of the same elements), so
  // overlapping and touching pieces merge into extents and each piece is read once from its
  // extent's place in the buffer.
  std::vector<Piece> pieces;
  for (const GetOp& g : gets) {
    const netcdf::Var& nv = header_.vars[g.var];
    const uint32_t esize = static_cast<uint32_t>(netcdf::nc_type_size(nv.type));
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s) {
      const uint64_t base = header_.data_offset(nv, s);
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
  std::vector<uint8_t> buffer(bytes);
  {
    PhaseTimer t(&profile(), Phase::kRead);
    TAPIO_RETURN_IF_ERROR(transfer(false, extents, buffer.data(), bytes));
  }
  PhaseTimer t(&profile(), Phase::kSwap);
  for (size_t i = 0; i < pieces.size(); ++i)
    big_endian_to_host(pieces[i].user, buffer.data() + where_in_buffer[i], pieces[i].elements,
                       pieces[i].esize);
  return ok_status();
}

}  // namespace tapio
