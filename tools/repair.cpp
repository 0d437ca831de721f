// tapio repair DATASET: rebuild a lost or damaged tapio.idx from tapio.md and the data files.
// From format version 5 on, each committed step's index record also follows the step's
// metadata region in tapio.md, as a commit record (docs/format.md), so the index is the list
// of those records; each step's metadata is then checked as a reader loads it, and each of its
// blocks must lie inside its data file. The old index, if any, is kept beside the new one.
// No MPI.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <optional>
#include <system_error>

#include "commands.h"
#include "engine/subfile/catalog.h"
#include "io/storage.h"
#include "writer_state.h"

namespace tapio::cli {
namespace {

namespace fs = std::filesystem;

// The index records found in tapio.md, and how far its records could be followed.
struct Found {
  std::vector<subfile::StepRecord> steps;
  std::optional<subfile::StepRecord> end;  // the writer closed after the last step
  uint64_t scanned = 0;                    // bytes of tapio.md holding whole records
};

// Walks tapio.md record by record (zero bytes are alignment padding: a commit record is padded
// to the next region). The walk stops at the first bytes that are not a whole record in order:
// what a writer left of a step it did not commit.
Found scan_metadata(const std::vector<uint8_t>& md) {
  Found found;
  uint64_t pos = 0;
  while (pos < md.size()) {
    if (md[pos] == 0) {
      ++pos;
      continue;
    }
    Result<subfile::Record> record = subfile::read_record(md.data() + pos, md.size() - pos);
    if (!record.ok()) break;
    const uint64_t end = pos + subfile::kRecordHeaderSize + record->length;
    if (record->kind == subfile::RecordKind::kCommit) {
      Result<subfile::StepRecord> r = subfile::decode_step(record->payload, record->length);
      if (!r.ok()) break;
      if (r->kind == subfile::StepKind::kEnd) {
        if (r->step != found.steps.size()) break;
        found.end = *r;
      } else if (r->step != found.steps.size() || r->md_offset + r->md_length != pos) {
        break;  // a stale copy a failed attempt left behind
      } else {
        found.steps.push_back(*r);
      }
      found.scanned = end;
      pos = end;
      continue;
    }
    found.end.reset();  // an append continued the dataset after its end
    pos = end;
  }
  return found;
}

// Every found step's metadata as a reader loads it, and its blocks inside their data files.
// The steps from the first that fails on are dropped (the error says why).
Status check_steps(const std::string& dir, const std::vector<uint8_t>& md, Found* found) {
  TAPIO_ASSIGN_OR_RETURN(std::vector<io::StoredFile> files,
                         io::posix_storage().list(dir, subfile::kDataPrefix));
  std::map<std::string, uint64_t> sizes;
  uint64_t total = 0;
  for (const io::StoredFile& f : files) total += (sizes[f.name] = f.size);
  subfile::Catalog catalog;
  catalog.set_data_bytes(total);
  for (size_t i = 0; i < found->steps.size(); ++i) {
    const subfile::StepRecord& r = found->steps[i];
    Status st = subfile::check_region(r, md.size());
    if (st.ok()) st = catalog.add_record(r);
    if (st.ok()) st = catalog.load_step(r.step, md.data() + r.md_offset, r.md_length);
    for (size_t e = 0; st.ok() && e < catalog.entries(r.step); ++e) {
      const subfile::Entry& entry = catalog.entry(r.step, static_cast<uint32_t>(e));
      const std::string name = subfile::data_name(entry.generation, entry.subfile);
      const auto file = sizes.find(name);
      const uint64_t size = file == sizes.end() ? 0 : file->second;
      if (entry.offset + entry.length > size)
        st = error(TAPIO_ERR_FORMAT, "step {}: a block ends at byte {} of '{}', which has {} bytes",
                   r.step, entry.offset + entry.length, name, size);
    }
    if (!st.ok()) {
      found->steps.resize(i);
      found->end.reset();
      return st;
    }
  }
  return ok_status();
}

std::string state_text(size_t steps, bool closed) {
  return fmt::format("{} step{} committed, {}", steps, steps == 1 ? "" : "s",
                     closed ? "closed" : "not closed");
}

// The new index next to the old, then swapped in; the old one is kept as tapio.idx.damaged.
Status write_index(const std::string& dir, const Found& found, bool had_index) {
  std::vector<uint8_t> bytes = subfile::encode_index_header();
  for (const subfile::StepRecord& r : found.steps) {
    const auto record = subfile::encode_step(r);
    bytes.insert(bytes.end(), record.begin(), record.end());
  }
  if (found.end) {
    const auto record = subfile::encode_step(*found.end);
    bytes.insert(bytes.end(), record.begin(), record.end());
  }
  const std::string index = dir + "/" + subfile::kIndexName;
  const std::string fresh = index + ".repair";
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<io::File> file,
                         io::posix_storage().open(fresh, io::OpenMode::kCreate, nullptr));
  TAPIO_RETURN_IF_ERROR(file->write_at(0, bytes.data(), bytes.size()));
  TAPIO_RETURN_IF_ERROR(file->sync());
  TAPIO_RETURN_IF_ERROR(file->close());
  std::error_code ec;
  if (had_index) fs::rename(index, index + ".damaged", ec);
  if (!ec) fs::rename(fresh, index, ec);
  if (ec) return error(TAPIO_ERR_IO, "file '{}': cannot put the new index in place: {}", index,
                       ec.message());
  return ok_status();
}

}  // namespace

int run_repair(const std::string& dir) {
  const Result<std::vector<uint8_t>> md = read_whole(dir + "/" + subfile::kMetadataName);
  if (!md.ok()) return fail(fmt::format("dataset '{}': {}", dir, md.status().message()));
  const Result<WriterState> old = read_writer_state(dir);
  if (old.ok() && old->version < subfile::kWriterStateVersion)
    return fail(fmt::format("dataset '{}' is of format version {}, whose tapio.md does not record "
                            "the index (version {} on): it cannot be repaired",
                            dir, old->version, subfile::kWriterStateVersion));
  Found found = scan_metadata(*md);
  const Status checked = check_steps(dir, *md, &found);
  if (!checked.ok())
    fmt::print(stderr, "tapio: warning: dataset '{}': {}; only the {} steps before it are kept\n",
               dir, checked.message(), found.steps.size());
  if (found.steps.empty() && !md->empty() && found.scanned == 0)
    return fail(fmt::format("dataset '{}': tapio.md holds no commit record (written by a tapio "
                            "before format version {}?): the index cannot be rebuilt",
                            dir, subfile::kWriterStateVersion));
  if (old.ok() && old->steps.size() == found.steps.size() && old->closed == found.end.has_value()) {
    fmt::print("dataset '{}': tapio.idx is intact ({}); nothing changed\n", dir,
               state_text(found.steps.size(), old->closed));
    return 0;
  }
  if (old.ok() && old->steps.size() > found.steps.size())
    return fail(fmt::format("dataset '{}': tapio.idx holds {} steps, tapio.md only {}: not "
                            "replacing it (steps would be lost)",
                            dir, old->steps.size(), found.steps.size()));
  const bool had_index = fs::exists(dir + "/" + subfile::kIndexName);
  const Status written = write_index(dir, found, had_index);
  if (!written.ok()) return fail(fmt::format("dataset '{}': {}", dir, written.message()));
  fmt::print("dataset '{}': tapio.idx rebuilt from tapio.md: {}{}\n", dir,
             state_text(found.steps.size(), found.end.has_value()),
             had_index ? "; the old index is kept as tapio.idx.damaged" : "");
  if (found.scanned < md->size())
    fmt::print("  ignored: bytes {} to {} of tapio.md (a step whose commit did not finish)\n",
               found.scanned, md->size());
  return 0;
}

}  // namespace tapio::cli
