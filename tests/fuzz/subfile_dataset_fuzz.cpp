// A subfile dataset's index and metadata (tapio.idx, tapio.md) on hostile bytes, through the
// reader's own catalog (engine/subfile/catalog.h), in the order the engine reads them. The
// input is a u32 index length, the index bytes, then the metadata bytes. Unless the length's
// top bit is set, the target first rewrites every checksum (index header, step records,
// metadata records and each step's record sum) so mutations reach the decoders behind them.
// The data files are taken to hold as many bytes as the input (they bound the runs of the
// selections). Checks: allocation stays within a constant times the input; every block
// the catalog lists names a data subfile inside the dataset directory (data.G.K) and fits the
// variable it belongs to; queries of every loaded step and variable are answerable.
#include <cstdlib>
#include <cstring>

#include "alloc_bound.h"
#include "engine/subfile/catalog.h"

using namespace tapio;

namespace {

uint64_t get64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
void put64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }

// Rewrites the checksums of the records of a metadata region (as split_records walks it) and
// returns the sum the step record must hold.
uint64_t fix_region(uint8_t* region, size_t size, uint32_t align) {
  uint64_t sum = 0;
  size_t pos = 0;
  while (pos + subfile::kRecordHeaderSize <= size) {
    uint32_t magic;
    std::memcpy(&magic, region + pos, 4);
    if (magic == 0 && align > 0) {
      pos = (pos / align + 1) * align;
      continue;
    }
    const uint64_t length = get64(region + pos + 8);
    if (length > size - pos - subfile::kRecordHeaderSize) break;
    const uint64_t c = subfile::checksum(region + pos + subfile::kRecordHeaderSize, length);
    put64(region + pos + 16, c);
    sum += c;
    pos += subfile::kRecordHeaderSize + length;
  }
  return sum;
}

void fix_checksums(std::vector<uint8_t>& index, std::vector<uint8_t>& md) {
  if (index.size() < subfile::kIndexHeaderSize) return;
  put64(index.data() + 56, subfile::checksum(index.data(), 56));
  for (size_t at = subfile::kIndexHeaderSize; at + subfile::kStepRecordSize <= index.size();
       at += subfile::kStepRecordSize) {
    uint8_t* rec = index.data() + at;
    const uint64_t offset = get64(rec + 16), length = get64(rec + 24);
    uint32_t align;
    std::memcpy(&align, rec + 44, 4);
    if (offset <= md.size() && length <= md.size() - offset)
      put64(rec + 32, fix_region(md.data() + offset, length, align));
    put64(rec + 56, subfile::checksum(rec, 56));
  }
}

// What the reader does with the blocks it found: open data.G.K in the dataset directory.
void check_entries(subfile::Catalog& catalog, uint64_t step) {
  const IoDef& defs = catalog.definitions();
  for (size_t i = 0; i < catalog.entries(step); ++i) {
    const subfile::Entry& e = catalog.entry(step, i);
    const std::string name = subfile::data_name(e.generation, e.subfile);
    if (name.find('/') != std::string::npos || name.rfind("data.", 0) != 0) std::abort();
    if (e.var >= defs.vars.size()) std::abort();
    if (e.sums.chunks.size() != subfile::chunk_count(e.length)) std::abort();
  }
  for (uint32_t v = 0; v < defs.vars.size(); ++v)
    for (uint32_t i : catalog.query(step, v, 0, UINT64_MAX))
      if (i >= catalog.entries(step) || catalog.entry(step, i).var != v) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t head;
  std::memcpy(&head, data, 4);
  const size_t index_size = std::min<size_t>(head & 0x7fffffff, size - 4);
  std::vector<uint8_t> index(data + 4, data + 4 + index_size);
  std::vector<uint8_t> md(data + 4 + index_size, data + size);
  if (!(head & 0x80000000)) fix_checksums(index, md);

  fuzz::AllocationBound bound;
  subfile::Catalog catalog;
  // As if the data files held as many bytes as the input: runs are bounded by the data.
  catalog.set_data_bytes(size);
  if (!subfile::check_index_header(index.data(), index.size()).ok()) return 0;
  for (size_t at = subfile::kIndexHeaderSize; at + subfile::kStepRecordSize <= index.size();
       at += subfile::kStepRecordSize) {
    auto r = subfile::decode_step(index.data() + at, subfile::kStepRecordSize);
    if (!r.ok()) break;
    if (r->kind != subfile::StepKind::kStep) continue;
    if (!catalog.add_record(*r).ok()) break;
    if (!subfile::check_region(*r, md.size()).ok()) break;
    if (!catalog.load_step(r->step, md.data() + r->md_offset, r->md_length).ok()) break;
    check_entries(catalog, r->step);
  }
  // Up to 48 bytes per run (a growing vector of 16-byte runs), one run per data byte, plus the
  // decoded structures: a few hundred bytes per input byte at most.
  bound.check(size, 512, 1 << 20, "subfile catalog");
  return 0;
}
