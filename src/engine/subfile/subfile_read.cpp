// Subfile reader, data: each reader finds the blocks its selection meets through the
// catalog's per-step interval index and reads only the 1 MiB checksum chunks it needs,
// verifying each right after reading it. Large reads a rank makes itself, in parallel with the
// others, into the user's buffer when the bytes land there whole; small ones go through the
// rank serving the subfile (subfile_fetch.cpp), which reads what several ranks want once.
#include <algorithm>
#include <cstring>

#include "engine/subfile/subfile_reader.h"
#include "format/netcdf/header.h"
#include "format/subfile/block_sums.h"
#include "plan/intersect.h"

namespace tapio {

Result<io::File*> SubfileReader::data_file(uint32_t generation, uint32_t subfile) {
  auto& f = data_files_[{generation, subfile}];
  if (!f) {
    TAPIO_ASSIGN_OR_RETURN(
        f, io::open_layered(p_.storage(), p_.file_path(subfile::data_name(generation, subfile)),
                            io::OpenMode::kReadOnly, &p_.profile.io, p_.spec.layers));
  }
  return f.get();
}


namespace {

// The NetCDF fill value of a variable (its _FillValue when it has one), as the NetCDF engines
// use for elements nobody wrote.
void fill_value(const VariableDef& def, uint8_t* out) {
  const Attribute* fv = def.find_attr("_FillValue");
  if (fv && fv->type == def.type && fv->count() == 1) {
    std::memcpy(out, fv->data.data(), type_size(def.type));
  } else {
    netcdf::default_fill(netcdf::to_nc_type(def.type), out);
  }
}

// The step holding var's blocks at step s: s itself, or for a fixed variable the last step
// that wrote it (catalog.steps() if none did).
uint64_t blocks_step(int var, const IoDef& io, subfile::Catalog& catalog, uint64_t s) {
  if (io.vars[var].record) return s;
  const auto& fixed = catalog.fixed_steps();
  for (auto t = fixed.rbegin(); t != fixed.rend(); ++t)
    if (!catalog.query(*t, static_cast<uint32_t>(var), 0, UINT64_MAX).empty()) return *t;
  return catalog.steps();
}

// Appends n, or extends the last need when n continues it both in the block and in the
// destination: a selection read as it was written (a block's rows) is one need per block,
// which lands in the user's buffer as read.
void add_need(std::vector<subfile::Need>* needs, const subfile::Need& n) {
  if (!needs->empty()) {
    subfile::Need& last = needs->back();
    if (last.step == n.step && last.entry == n.entry && last.pos + last.bytes == n.pos &&
        last.dst + last.bytes == n.dst) {
      last.bytes += n.bytes;
      return;
    }
  }
  needs->push_back(n);
}

// Per get and step: the pieces of blocks it needs (what no block holds reads as fill). The
// steps must be loaded. Where a get's selection meets a stored block (and the interval of the
// first dimension it spans) is planned once: the same selection read again — in another step,
// of another variable — meets the same stored selections of the writers' tables.
std::vector<subfile::Need> needs_of(const std::vector<GetOp>& gets, const IoDef& io,
                                    subfile::Catalog& catalog, ReadPlans* plans) {
  std::vector<subfile::Need> needs;
  for (const GetOp& g : gets) {
    const VariableDef& def = io.vars[g.var];
    const size_t esize = type_size(def.type);
    const auto var = static_cast<uint32_t>(g.var);
    ReadPlans::Known* known = plans->intern(g.var, g.sel);
    const ReadPlan& bounds = plans->plan(known, def.shape, [&](const plan::Selection& sel) {
      ReadPlan p;
      plan::first_dim_bounds(sel, def.shape, &p.lo, &p.hi);
      return p;
    });
    // A joined variable's length is the read step's, which need not be the current step's.
    std::vector<uint64_t> shape = def.shape;
    if (def.joined) shape[0] = std::max(shape[0], bounds.hi);
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count; ++s) {
      uint8_t* base = static_cast<uint8_t*>(g.data) + (s - g.step_start) * g.elements * esize;
      const uint64_t t = blocks_step(g.var, io, catalog, s);
      uint64_t covered = 0;
      if (t < catalog.steps())
        for (uint32_t i : catalog.query(t, var, bounds.lo, bounds.hi)) {
          const plan::Selection* stored = catalog.entry(t, i).sel;
          ReadPlans::Key key = shape;
          key.push_back(reinterpret_cast<uintptr_t>(stored));  // the writer's table keeps it
          const ReadPlan& meet = plans->plan(known, key, [&](const plan::Selection& sel) {
            return ReadPlan{plan::intersect(*stored, sel, shape)};
          });
          for (const plan::Overlap& o : meet.overlaps) {
            add_need(&needs, subfile::Need{t, i, o.a_mem * esize, o.length * esize,
                                           base + o.b_mem * esize});
            covered += o.length;
          }
        }
      if (covered < g.elements) {
        uint8_t fill[8];
        fill_value(def, fill);
        for (uint64_t i = 0; i < g.elements; ++i) std::memcpy(base + i * esize, fill, esize);
      }
    }
  }
  return needs;
}

}  // namespace

// Per block, the checksum chunks the needs touch become one request (step, entry, from, to);
// a rank reads it itself when it is large or is exactly one need (bytes the rank wants whole:
// read into place), else through the subfile's server. needs are sorted by block here.
void SubfileReader::plan_requests(std::vector<subfile::Need>* needs, Requests* own,
                                  Requests* served) {
  PhaseTimer t(&p_.profile, Phase::kPlan);
  std::stable_sort(needs->begin(), needs->end(),
                   [](const subfile::Need& a, const subfile::Need& b) {
                     if (a.step != b.step) return a.step < b.step;
                     return a.entry != b.entry ? a.entry < b.entry : a.pos < b.pos;
                   });
  const uint64_t C = subfile::kChecksumChunk;
  const std::vector<subfile::Need>& n = *needs;
  for (size_t k = 0; k < n.size();) {
    const subfile::Entry& e = catalog_.entry(n[k].step, n[k].entry);
    if (e.codec != subfile::Codec::kNone) {  // read whole by this rank, then decoded
      size_t m = k + 1;
      while (m < n.size() && n[m].step == n[k].step && n[m].entry == n[k].entry) ++m;
      own->list.push_back(ChunkRequest{n[k].step, n[k].entry, 0, e.length});
      own->needs.emplace_back(k, m);
      k = m;
      continue;
    }
    uint64_t c1 = (n[k].pos + n[k].bytes + C - 1) / C;
    size_t m = k + 1;
    while (m < n.size() && n[m].step == n[k].step && n[m].entry == n[k].entry &&
           n[m].pos / C <= c1) {
      c1 = std::max(c1, (n[m].pos + n[m].bytes + C - 1) / C);
      ++m;
    }
    ChunkRequest q{n[k].step, n[k].entry, n[k].pos / C * C, std::min(c1 * C, e.length)};
    if (m == k + 1 && n[k].pos == q.from && n[k].bytes == q.to - q.from) q.dst = n[k].dst;
    Requests& to = q.dst || q.to - q.from >= p_.spec.merge_below ? *own : *served;
    to.list.push_back(q);
    to.needs.emplace_back(k, m);
    k = m;
  }
}

// Copies each need of request q out of its bytes (unless they were read in place).
void SubfileReader::deliver(const ChunkRequest& q, std::pair<size_t, size_t> range,
                            const std::vector<subfile::Need>& needs, const uint8_t* bytes) {
  if (q.dst) return;
  PhaseTimer t(&p_.profile, Phase::kCopy);
  for (size_t k = range.first; k < range.second; ++k) {
    std::memcpy(needs[k].dst, bytes + (needs[k].pos - q.from), needs[k].bytes);
    p_.profile.bytes_copied += needs[k].bytes;
  }
}

// One reduction tells every rank whether anyone needs the servers and whether anyone failed:
// reads that every rank makes itself (the same decomposition as written) cost that one
// collective, whose answer is the agreement.
Status SubfileReader::read_gets(const std::vector<GetOp>& gets) {
  ReadPlans::Batch planning(&plans_);
  Status local = ok_status();
  for (const GetOp& g : gets) {  // the steps these gets read, loaded by this rank
    if (!p_.io().vars[g.var].record) continue;  // fixed variables' steps are always loaded
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count && local.ok(); ++s)
      local = ensure_loaded(s);
  }
  std::vector<subfile::Need> needs;
  Requests own, served;
  if (local.ok()) {
    PhaseTimer t(&p_.profile, Phase::kPlan);
    needs = needs_of(gets, p_.io(), catalog_, &plans_);
  }
  if (local.ok()) plan_requests(&needs, &own, &served);
  ByteBuffer scratch, decoded;
  for (size_t r = 0; r < own.list.size() && local.ok(); ++r) {
    const ChunkRequest& q = own.list[r];
    uint8_t* out = q.dst ? q.dst : scratch.prepare(q.to - q.from);
    local = read_own(q, out);
    if (!local.ok()) break;
    if (catalog_.entry(q.step, q.entry).codec == subfile::Codec::kNone) {
      deliver(q, own.needs[r], needs, out);
      continue;
    }
    Result<const uint8_t*> bytes = decode(q, out, &decoded);
    local = bytes.status();
    if (local.ok()) deliver(q, own.needs[r], needs, *bytes);
  }
  uint64_t votes[2] = {served.list.empty() ? 0u : 1u, local.ok() ? 0u : 1u};
  {
    PhaseTimer t(&p_.profile, Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(p_.comm.allreduce_sum(votes, 2));
  }
  if (votes[0] == 0) return votes[1] == 0 ? ok_status().as_agreed() : p_.agree(local);
  std::vector<std::vector<uint8_t>> replies;
  {
    PhaseTimer t(&p_.profile, Phase::kExchange);
    TAPIO_RETURN_IF_ERROR(fetch_chunks(served.list, &replies));
  }
  for (size_t r = 0; r < served.list.size(); ++r)
    deliver(served.list[r], served.needs[r], needs, replies[r].data());
  if (!local.ok()) return local;
  return deferred_read_error_.ok() ? ok_status() : std::exchange(deferred_read_error_, Status());
}

// Reads a request chunk by chunk, each verified right after it is read, while it is in cache.
Status SubfileReader::read_own(const ChunkRequest& q, uint8_t* out) {
  const subfile::Entry& e = catalog_.entry(q.step, q.entry);
  TAPIO_ASSIGN_OR_RETURN(io::File * file, data_file(e.generation, e.subfile));
  for (uint64_t from = q.from; from < q.to; from += subfile::kChecksumChunk) {
    const uint64_t n = std::min(subfile::kChecksumChunk, q.to - from);
    {
      PhaseTimer t(&p_.profile, Phase::kRead);
      TAPIO_RETURN_IF_ERROR(file->read_exact(e.offset + from, out + (from - q.from), n));
    }
    PhaseTimer t(&p_.profile, Phase::kChecksum);
    TAPIO_RETURN_IF_ERROR(
        verify(ChunkRequest{q.step, q.entry, from, from + n}, out + (from - q.from)));
  }
  return ok_status();
}

Status SubfileReader::verify(const ChunkRequest& q, const uint8_t* bytes) const {
  const subfile::Entry& e = catalog_.entry(q.step, q.entry);
  for (uint64_t c = q.from / subfile::kChecksumChunk; c * subfile::kChecksumChunk < q.to; ++c) {
    const uint64_t from = c * subfile::kChecksumChunk;
    const uint64_t len = std::min(subfile::kChecksumChunk, e.length - from);
    if (c < e.sums.chunks.size() &&
        subfile::chunk_checksum(bytes + (from - q.from), len) == e.sums.chunks[c])
      continue;
    return error(TAPIO_ERR_CHECKSUM,
                 "file '{}', step {}, variable '{}': data checksum mismatch in bytes [{}, {}) "
                 "(the data is corrupt)",
                 p_.file_path(subfile::data_name(e.generation, e.subfile)), q.step,
                 p_.io().vars[e.var].name, e.offset + from, e.offset + from + len);
  }
  return ok_status();
}

// Local: the writers' selections of `var` at `step` (a fixed variable's: at the last step that
// wrote it; none if no step did).
Result<std::vector<plan::Selection>> SubfileReader::stored_blocks(int var, uint64_t step) {
  step = blocks_step(var, p_.io(), catalog_, step);
  if (step >= catalog_.steps()) return std::vector<plan::Selection>{};
  TAPIO_RETURN_IF_ERROR(ensure_loaded(step));
  std::vector<plan::Selection> blocks;
  for (uint32_t i : catalog_.query(step, static_cast<uint32_t>(var), 0, UINT64_MAX))
    blocks.push_back(*catalog_.entry(step, i).sel);
  return blocks;
}

}  // namespace tapio
