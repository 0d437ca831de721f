// Subfile reader, metadata: the index and metadata are fetched by rank 0 and broadcast
// (metadata_read = delegate) or read by every rank (all), in metadata_prefetch-sized reads,
// into the catalog; a live reader looks for new index records, and learns whether the writer
// ended, may go on or is gone.
#include <algorithm>
#include <cstring>

#include "engine/subfile/subfile_reader.h"

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

Status SubfileReader::open() {
  Status local = ok_status();
  if (p_.comm.rank() == 0 || !p_.spec.metadata.delegate_reads) {
    auto index = p_.storage().open(p_.file_path(subfile::kIndexName), io::OpenMode::kReadOnly,
                                   &p_.profile.io);
    local = index.status();
    if (local.ok()) {
      index_ = std::move(index).value();
      auto md = p_.storage().open(p_.file_path(subfile::kMetadataName),
                                  io::OpenMode::kReadOnly, &p_.profile.io);
      local = md.status();
      if (local.ok()) md_ = std::move(md).value();
    }
  }
  // A dataset whose writer has not committed a step yet has no variables and no steps.
  return load_metadata(local);
}

SubfileReader::Tail SubfileReader::tail() const {
  return Tail{catalog_.definitions(), catalog_.steps(), catalog_.max_generation(), version_,
              index_end_, md_end_};
}

// New index records since the last call and metadata regions, as one blob: all their regions
// when they add up to at most metadata_prefetch bytes (one read ahead serves every later
// get), else those of the steps flagged as holding what later steps refer to (a reader of a
// few blocks of a long run reads only their steps' regions, later):
//   news u64, count u64, all u64, data bytes u64, format version u64, time u64 (of the latest
//   record, 0 unknown), count x 64-byte records, then the regions read, in order
Result<std::vector<uint8_t>> SubfileReader::fetch_new_metadata() {
  PhaseTimer t(&p_.profile, Phase::kMetadata);
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
  const bool all = total <= p_.spec.metadata.prefetch;
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
    TAPIO_ASSIGN_OR_RETURN(data, data_bytes(p_.storage(), p_.path()));
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
Status SubfileReader::read_index_header() {
  uint8_t header[subfile::kIndexHeaderSize];
  TAPIO_RETURN_IF_ERROR(index_->read_exact(0, header, sizeof header));
  TAPIO_RETURN_IF_ERROR(subfile::check_index_header(header, sizeof header, &version_)
                            .with_context(fmt::format("file '{}'", index_->path())));
  index_end_ = sizeof header;
  return ok_status();
}

Status SubfileReader::load_metadata(Status local) {
  std::vector<uint8_t> blob;
  if (local.ok() && (p_.comm.rank() == 0 || !p_.spec.metadata.delegate_reads)) {
    auto fetched = fetch_new_metadata();
    local = fetched.status();
    if (local.ok()) blob = std::move(fetched).value();
  }
  TAPIO_RETURN_IF_ERROR(p_.agree(local));
  if (p_.spec.metadata.delegate_reads) {
    PhaseTimer t(&p_.profile, Phase::kExchange);
    // What follows depends on the blob: a rank whose broadcast failed must not go on alone.
    TAPIO_RETURN_IF_ERROR(p_.agree(p_.comm.bcast_bytes(blob, 0)));
  }
  PhaseTimer t(&p_.profile, Phase::kMetadata);
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
  const std::string md_path = fmt::format("file '{}'", p_.file_path(subfile::kMetadataName));
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
  if (p_.open.mode == OpenMode::kRead && catalog_.has_definitions()) adopt_definitions();
  return ok_status();
}

// After the last committed step: the writer closed, may add more, or is gone (committed and
// opened nothing for writer_timeout seconds). Every rank takes part in the one reduction
// whatever it saw: with delegate_reads = false each rank reads the index itself and may not
// have seen the end record yet, and a rank that returned early would leave the others in it.
// Clocks differ a little between ranks: the writer is gone when every rank deems it so; ranks
// that disagree on the end wait for the next look.
Result<StepStatus> SubfileReader::end_of_steps() {
  const bool ended = catalog_.ended();
  const uint64_t now = subfile::record_time();
  const uint64_t idle = now > last_activity_ ? now - last_activity_ : 0;
  const bool waiting = !ended && (p_.spec.writer_timeout == 0 || idle < p_.spec.writer_timeout);
  uint64_t any[3] = {waiting, ended, !ended};  // waiting, ended, not ended: maxima over ranks
  TAPIO_RETURN_IF_ERROR(p_.agree(p_.comm.allreduce_max(any, 3)));
  if (!any[2]) return StepStatus::kEndOfStream;
  return any[0] || any[1] ? StepStatus::kNotReady : StepStatus::kWriterGone;
}

// Read mode: the dataset's definitions become the IO's (its name, engine and parameters kept).
void SubfileReader::adopt_definitions() {
  IoDef defs = catalog_.definitions();
  defs.name = p_.io().name;
  defs.engine = p_.io().engine;
  defs.params = p_.io().params;
  *p_.mutable_io() = std::move(defs);
}

// Local: a step's blocks, read from the metadata file by this rank the first time it needs them.
Status SubfileReader::ensure_loaded(uint64_t step) {
  if (catalog_.loaded(step)) return ok_status();
  PhaseTimer t(&p_.profile, Phase::kMetadata);
  if (!md_) {
    TAPIO_ASSIGN_OR_RETURN(md_, p_.storage().open(p_.file_path(subfile::kMetadataName),
                                                  io::OpenMode::kReadOnly, &p_.profile.io));
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

// Read-only files: closed without a sync.
Status SubfileReader::close() {
  Status local = ok_status();
  for (auto* f : {md_.get(), index_.get()})
    if (f) keep(&local, f->close());
  for (auto& [key, f] : data_files_)
    if (f) keep(&local, f->close());  // null: its open failed (a missing file), reported then
  return local;
}

}  // namespace tapio
