// Subfile engine, read side: the index and metadata are fetched by rank 0 and broadcast
// (metadata_read = delegate) or read by every rank (all), in metadata_prefetch-sized reads;
// each reader then finds the blocks its selection meets through the catalog's per-step
// interval index and reads only the 1 MiB checksum chunks it needs, verifying each right after
// reading it. Large reads a rank makes itself, in parallel with the others, into the user's
// buffer when the bytes land there whole; small ones go through the rank serving the subfile
// (subfile_fetch.cpp), which reads what several ranks want once.
#include <algorithm>
#include <cstring>

#include "format/subfile/block_sums.h"
#include "engine/subfile/subfile_engine.h"
#include "format/netcdf/header.h"
#include "plan/intersect.h"

namespace tapio {
namespace {

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  const size_t at = out.size();
  out.resize(at + 8);
  std::memcpy(out.data() + at, &v, 8);
}

uint64_t get_u64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

enum : uint64_t { kNoNews = 0, kStillOpen = 1, kEnded = 2 };

// The bytes of a dataset's data files (data.G.K): every run of a selection has a byte there at
// least, so this bounds what the metadata may make a reader allocate (Catalog::set_data_bytes).
// One directory listing: the data files are one per group, not per step.
Result<uint64_t> data_bytes(io::Storage& storage, const std::string& dir) {
  Result<std::vector<io::StoredFile>> files = storage.list(dir, subfile::kDataPrefix);
  if (!files.ok())
    return files.status().with_context(fmt::format("dataset '{}': its data files", dir));
  uint64_t total = 0;
  for (const io::StoredFile& f : *files) total += f.size;
  return total;
}

}  // namespace

Status SubfileEngine::open_read() {
  Status local = ok_status();
  if (comm().rank() == 0 || !spec_.delegate_reads) {
    auto index = storage().open(file_path(subfile::kIndexName), io::OpenMode::kReadOnly,
                                &profile().io);
    local = index.status();
    if (local.ok()) {
      index_ = std::move(index).value();
      auto md = storage().open(file_path(subfile::kMetadataName), io::OpenMode::kReadOnly,
                               &profile().io);
      local = md.status();
      if (local.ok()) md_ = std::move(md).value();
    }
  }
  // A dataset whose writer has not committed a step yet has no variables and no steps.
  return load_metadata(local);
}

// New index records since the last call and metadata regions, as one blob: all their regions
// when they add up to at most metadata_prefetch bytes (one read ahead serves every later
// get), else those of the steps flagged as holding what later steps refer to (a reader of a
// few blocks of a long run reads only their steps' regions, later):
//   news u64, count u64, all u64, data bytes u64, format version u64, time u64 (of the latest
//   record, 0 unknown), count x 64-byte records, then the regions read, in order
Result<std::vector<uint8_t>> SubfileEngine::fetch_new_metadata() {
  PhaseTimer t(&profile(), Phase::kMetadata);
  TAPIO_ASSIGN_OR_RETURN(const uint64_t size, index_->size());
  if (index_end_ == 0) TAPIO_RETURN_IF_ERROR(read_index_header());
  const uint64_t complete = (size - index_end_) / subfile::kStepRecordSize;
  std::vector<uint8_t> raw(complete * subfile::kStepRecordSize);
  if (!raw.empty()) TAPIO_RETURN_IF_ERROR(index_->read_exact(index_end_, raw.data(), raw.size()));
  std::vector<subfile::StepRecord> steps;
  uint64_t news = kNoNews, used = 0, time = 0;
  for (uint64_t i = 0; i < complete; ++i) {
    auto r = subfile::decode_step(raw.data() + i * subfile::kStepRecordSize,
                                  subfile::kStepRecordSize);
    if (!r.ok()) {
      if (i + 1 == complete) break;  // a record being written (or torn by a crash): not yet
      return error(TAPIO_ERR_CHECKSUM,
                   "file '{}': index record {} is corrupt (`tapio repair` rebuilds the index)",
                   index_->path(), i + index_end_ / subfile::kStepRecordSize - 1);
    }
    used = i + 1;
    news = r->kind == subfile::StepKind::kEnd ? kEnded : kStillOpen;
    time = r->time;
    if (r->kind == subfile::StepKind::kStep) steps.push_back(*r);
  }
  index_end_ += used * subfile::kStepRecordSize;
  uint64_t total = 0;
  for (const auto& s : steps) total += s.md_length;
  const bool all = total <= spec_.prefetch;
  if (!steps.empty()) {
    TAPIO_ASSIGN_OR_RETURN(const uint64_t md_size, md_->size());
    for (const auto& s : steps)
      TAPIO_RETURN_IF_ERROR(subfile::check_region(s, md_size)
                                .with_context(fmt::format("file '{}'", index_->path())));
  }
  // Listed after the index was read, so the data of every step it holds is in the files; not
  // when no step is new (a live reader's polls).
  uint64_t data = 0;
  if (!steps.empty()) {
    TAPIO_ASSIGN_OR_RETURN(data, data_bytes(storage(), path()));
  }
  std::vector<uint8_t> blob;
  put_u64(blob, news);
  put_u64(blob, steps.size());
  put_u64(blob, all ? 1 : 0);
  put_u64(blob, data);
  put_u64(blob, version_);
  put_u64(blob, time);
  for (const auto& s : steps) {
    const auto bytes = subfile::encode_step(s);
    blob.insert(blob.end(), bytes.begin(), bytes.end());
  }
  for (const auto& s : steps) {
    if (!all && !s.flags) continue;
    const size_t at = blob.size();
    blob.resize(at + s.md_length);
    TAPIO_RETURN_IF_ERROR(md_->read_exact(s.md_offset, blob.data() + at, s.md_length));
  }
  return blob;
}

// The index's header, checked; the records start after it.
Status SubfileEngine::read_index_header() {
  uint8_t header[subfile::kIndexHeaderSize];
  TAPIO_RETURN_IF_ERROR(index_->read_exact(0, header, sizeof header));
  TAPIO_RETURN_IF_ERROR(subfile::check_index_header(header, sizeof header, &version_)
                            .with_context(fmt::format("file '{}'", index_->path())));
  index_end_ = sizeof header;
  return ok_status();
}

Status SubfileEngine::load_metadata(Status local) {
  std::vector<uint8_t> blob;
  if (local.ok() && (comm().rank() == 0 || !spec_.delegate_reads)) {
    auto fetched = fetch_new_metadata();
    local = fetched.status();
    if (local.ok()) blob = std::move(fetched).value();
  }
  TAPIO_RETURN_IF_ERROR(agree(local));
  if (spec_.delegate_reads) {
    PhaseTimer t(&profile(), Phase::kExchange);
    // What follows depends on the blob: a rank whose broadcast failed must not go on alone.
    TAPIO_RETURN_IF_ERROR(agree(comm().bcast_bytes(blob, 0)));
  }
  PhaseTimer t(&profile(), Phase::kMetadata);
  const uint64_t news = get_u64(blob.data());
  const uint64_t n = get_u64(blob.data() + 8);
  const bool all = get_u64(blob.data() + 16) != 0;
  if (n > 0) catalog_.set_data_bytes(get_u64(blob.data() + 24));
  version_ = static_cast<uint32_t>(get_u64(blob.data() + 32));
  const uint64_t time = get_u64(blob.data() + 40);
  // Unrecorded (before version 5): the writer was last active when this reader saw it.
  if (news != kNoNews || last_activity_ == 0)
    last_activity_ = time ? time : subfile::record_time();
  const uint64_t commit_size = records_writer_state() ? subfile::kCommitRecordSize : 0;
  const uint8_t* records = blob.data() + 48;
  const uint8_t* region = records + n * subfile::kStepRecordSize;
  const std::string md_path = fmt::format("file '{}'", file_path(subfile::kMetadataName));
  for (uint64_t i = 0; i < n; ++i) {
    auto r = subfile::decode_step(records + i * subfile::kStepRecordSize, subfile::kStepRecordSize);
    TAPIO_RETURN_IF_ERROR(r.status());
    TAPIO_RETURN_IF_ERROR(catalog_.add_record(*r).with_context(md_path));
    md_end_ = std::max(md_end_, r->md_offset + r->md_length + commit_size);
    if (!all && !r->flags) continue;
    TAPIO_RETURN_IF_ERROR(catalog_.load_step(r->step, region, r->md_length).with_context(md_path));
    region += r->md_length;
  }
  if (news != kNoNews) catalog_.mark_ended(news == kEnded);
  if (mode() == OpenMode::kRead && catalog_.has_definitions()) adopt_definitions();
  return ok_status();
}

// After the last committed step: the writer closed, may add more, or is gone (committed and
// opened nothing for writer_timeout seconds). Every rank takes part in the one reduction
// whatever it saw: with delegate_reads = false each rank reads the index itself and may not
// have seen the end record yet, and a rank that returned early would leave the others in it.
// Clocks differ a little between ranks: the writer is gone when every rank deems it so; ranks
// that disagree on the end wait for the next look.
Result<StepStatus> SubfileEngine::end_of_steps() {
  const bool ended = catalog_.ended();
  const uint64_t now = subfile::record_time();
  const uint64_t idle = now > last_activity_ ? now - last_activity_ : 0;
  const bool waiting = !ended && (spec_.writer_timeout == 0 || idle < spec_.writer_timeout);
  uint64_t any[3] = {waiting, ended, !ended};  // waiting, ended, not ended: maxima over ranks
  TAPIO_RETURN_IF_ERROR(agree(comm().allreduce_max(any, 3)));
  if (!any[2]) return StepStatus::kEndOfStream;
  return any[0] || any[1] ? StepStatus::kNotReady : StepStatus::kWriterGone;
}

// Read mode: the dataset's definitions become the IO's (its name, engine and parameters kept).
void SubfileEngine::adopt_definitions() {
  IoDef defs = catalog_.definitions();
  defs.name = io().name;
  defs.engine = io().engine;
  defs.params = io().params;
  *mutable_io() = std::move(defs);
}

// Local: a step's blocks, read from the metadata file by this rank the first time it needs them.
Status SubfileEngine::ensure_loaded(uint64_t step) {
  if (catalog_.loaded(step)) return ok_status();
  PhaseTimer t(&profile(), Phase::kMetadata);
  if (!md_) {
    TAPIO_ASSIGN_OR_RETURN(md_, storage().open(file_path(subfile::kMetadataName),
                                               io::OpenMode::kReadOnly, &profile().io));
  }
  const subfile::StepRecord& r = catalog_.record(step);
  TAPIO_ASSIGN_OR_RETURN(const uint64_t md_size, md_->size());
  TAPIO_RETURN_IF_ERROR(subfile::check_region(r, md_size)
                            .with_context(fmt::format("file '{}'", md_->path())));
  std::vector<uint8_t> region(r.md_length);
  TAPIO_RETURN_IF_ERROR(md_->read_exact(r.md_offset, region.data(), region.size()));
  return catalog_.load_step(step, region.data(), region.size())
      .with_context(fmt::format("file '{}'", md_->path()));
}

Result<io::File*> SubfileEngine::data_file(uint32_t generation, uint32_t subfile) {
  auto& f = data_files_[{generation, subfile}];
  if (!f) {
    TAPIO_ASSIGN_OR_RETURN(f, io::open_layered(storage(),
                                               file_path(subfile::data_name(generation, subfile)),
                                               io::OpenMode::kReadOnly, &profile().io,
                                               spec_.layers));
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
void SubfileEngine::plan_requests(std::vector<subfile::Need>* needs, Requests* own,
                                  Requests* served) {
  PhaseTimer t(&profile(), Phase::kPlan);
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
    Requests& to = q.dst || q.to - q.from >= spec_.merge_below ? *own : *served;
    to.list.push_back(q);
    to.needs.emplace_back(k, m);
    k = m;
  }
}

// Copies each need of request q out of its bytes (unless they were read in place).
void SubfileEngine::deliver(const ChunkRequest& q, std::pair<size_t, size_t> range,
                            const std::vector<subfile::Need>& needs, const uint8_t* bytes) {
  if (q.dst) return;
  PhaseTimer t(&profile(), Phase::kCopy);
  for (size_t k = range.first; k < range.second; ++k) {
    std::memcpy(needs[k].dst, bytes + (needs[k].pos - q.from), needs[k].bytes);
    profile().bytes_copied += needs[k].bytes;
  }
}

// One reduction tells every rank whether anyone needs the servers and whether anyone failed:
// reads that every rank makes itself (the same decomposition as written) cost that one
// collective, whose answer is the agreement.
Status SubfileEngine::read_gets(const std::vector<GetOp>& gets) {
  ReadPlans::Batch planning(&plans_);
  Status local = ok_status();
  for (const GetOp& g : gets) {  // the steps these gets read, loaded by this rank
    if (!io().vars[g.var].record) continue;  // fixed variables' steps are always loaded
    for (uint64_t s = g.step_start; s < g.step_start + g.step_count && local.ok(); ++s)
      local = ensure_loaded(s);
  }
  std::vector<subfile::Need> needs;
  Requests own, served;
  if (local.ok()) {
    PhaseTimer t(&profile(), Phase::kPlan);
    needs = needs_of(gets, io(), catalog_, &plans_);
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
    PhaseTimer t(&profile(), Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(comm().allreduce_sum(votes, 2));
  }
  if (votes[0] == 0) return votes[1] == 0 ? ok_status().as_agreed() : agree(local);
  std::vector<std::vector<uint8_t>> replies;
  {
    PhaseTimer t(&profile(), Phase::kExchange);
    TAPIO_RETURN_IF_ERROR(fetch_chunks(served.list, &replies));
  }
  for (size_t r = 0; r < served.list.size(); ++r)
    deliver(served.list[r], served.needs[r], needs, replies[r].data());
  if (!local.ok()) return local;
  return deferred_read_error_.ok() ? ok_status() : std::exchange(deferred_read_error_, Status());
}

// Reads a request chunk by chunk, each verified right after it is read, while it is in cache.
Status SubfileEngine::read_own(const ChunkRequest& q, uint8_t* out) {
  const subfile::Entry& e = catalog_.entry(q.step, q.entry);
  TAPIO_ASSIGN_OR_RETURN(io::File * file, data_file(e.generation, e.subfile));
  for (uint64_t from = q.from; from < q.to; from += subfile::kChecksumChunk) {
    const uint64_t n = std::min(subfile::kChecksumChunk, q.to - from);
    {
      PhaseTimer t(&profile(), Phase::kRead);
      TAPIO_RETURN_IF_ERROR(file->read_exact(e.offset + from, out + (from - q.from), n));
    }
    PhaseTimer t(&profile(), Phase::kChecksum);
    TAPIO_RETURN_IF_ERROR(
        verify(ChunkRequest{q.step, q.entry, from, from + n}, out + (from - q.from)));
  }
  return ok_status();
}

Status SubfileEngine::verify(const ChunkRequest& q, const uint8_t* bytes) const {
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
                 file_path(subfile::data_name(e.generation, e.subfile)), q.step,
                 io().vars[e.var].name, e.offset + from, e.offset + from + len);
  }
  return ok_status();
}

// Local: the writers' selections of `var` at `step` (a fixed variable's: at the last step that
// wrote it; none if no step did).
Result<std::vector<plan::Selection>> SubfileEngine::stored_blocks(int var, uint64_t step) {
  step = blocks_step(var, io(), catalog_, step);
  if (step >= catalog_.steps()) return std::vector<plan::Selection>{};
  TAPIO_RETURN_IF_ERROR(ensure_loaded(step));
  std::vector<plan::Selection> blocks;
  for (uint32_t i : catalog_.query(step, static_cast<uint32_t>(var), 0, UINT64_MAX))
    blocks.push_back(*catalog_.entry(step, i).sel);
  return blocks;
}

}  // namespace tapio
