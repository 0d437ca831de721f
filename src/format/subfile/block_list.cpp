// block_list = writer varint | subfile varint | flags u8 | offset varint
//              | nnew varint | selection x nnew                       (format/subfile/selections)
//              | nblocks varint | (var varint, selection varint, length varint) x nblocks
//              | per block: [min (8), max (8) -- with kStats] | checksum u64 x ceil(length / 1 MiB)
// flags: kStats (bit 1): min/max are stored. (Bit 0 is reserved: 0.)
#include "format/subfile/block_list.h"


#include "format/subfile/le_bytes.h"
#include "format/subfile/records.h"
#include "format/subfile/selections.h"

namespace tapio::subfile {
namespace {

constexpr uint8_t kStats = 2;

Status malformed(const char* what, uint32_t writer) {
  return error(TAPIO_ERR_FORMAT, "malformed block list of writer {}: {}", writer, what);
}

}  // namespace

uint64_t chunk_count(uint64_t length) { return (length + kChecksumChunk - 1) / kChecksumChunk; }

void WriterTable::apply(const BlockList& list) {
  selections.insert(selections.end(), list.new_selections.begin(), list.new_selections.end());
}

std::vector<uint8_t> encode_block_list(const BlockList& list) {
  std::vector<uint8_t> out;
  LeWriter w(out);
  w.varint(list.writer);
  w.varint(list.subfile);
  w.u8(list.stats ? kStats : 0);
  w.varint(list.offset);
  w.varint(list.new_selections.size());
  for (const plan::Selection& s : list.new_selections) encode_selection(w, s);
  w.varint(list.shapes.size());
  for (const BlockShape& b : list.shapes) {
    w.varint(b.var);
    w.varint(b.selection);
    w.varint(b.length);
  }
  for (const BlockSums& s : list.sums) {
    if (list.stats) {
      w.bytes(s.min, 8);
      w.bytes(s.max, 8);
    }
    for (uint64_t c : s.chunks) w.u64(c);
  }
  return out;
}

Result<uint32_t> peek_writer(const uint8_t* data, size_t size) {
  LeReader r(data, size);
  const uint64_t writer = r.varint();
  if (!r.ok() || writer > UINT32_MAX) return error(TAPIO_ERR_FORMAT, "malformed block list");
  return static_cast<uint32_t>(writer);
}

Result<BlockList> decode_block_list(const uint8_t* data, size_t size, const WriterTable& table,
                                    uint64_t max_runs) {
  LeReader r(data, size);
  BlockList list;
  const uint64_t writer = r.varint(), subfile = r.varint();
  const uint8_t flags = r.u8();
  list.offset = r.varint();
  if (!r.ok() || writer > UINT32_MAX || subfile > UINT32_MAX || (flags & ~kStats))
    return malformed("header", 0);
  list.writer = static_cast<uint32_t>(writer);
  list.subfile = static_cast<uint32_t>(subfile);
  list.stats = (flags & kStats) != 0;
  const uint64_t fresh = r.varcount(2);
  list.new_selections.resize(fresh);
  uint64_t runs_left = max_runs;
  for (plan::Selection& s : list.new_selections) {
    if (!decode_selection(r, runs_left, &s))
      return malformed("a selection is malformed or has more runs than its data can hold",
                       list.writer);
    runs_left -= s.runs.size();
  }
  const uint64_t known = table.selections.size() + fresh;
  const uint64_t n = r.varcount(3);
  if (!r.ok()) return malformed("block count", list.writer);
  list.shapes.resize(n);
  for (BlockShape& b : list.shapes) {
    const uint64_t var = r.varint(), sel = r.varint();
    b.length = r.varint();
    if (!r.ok() || var > UINT32_MAX || sel >= known) return malformed("block", list.writer);
    b.var = static_cast<uint32_t>(var);
    b.selection = static_cast<uint32_t>(sel);
  }
  list.sums.resize(n);
  for (size_t i = 0; i < n; ++i) {
    BlockSums& s = list.sums[i];
    if (list.stats) {
      r.bytes(s.min, 8);
      r.bytes(s.max, 8);
    }
    const uint64_t chunks = chunk_count(list.shapes[i].length);
    if (!r.ok() || chunks > r.left() / 8) return malformed("checksums", list.writer);
    s.chunks.resize(chunks);
    for (uint64_t& c : s.chunks) c = r.u64();
  }
  if (!r.ok() || r.left() != 0) return malformed("trailing bytes", list.writer);
  return list;
}

}  // namespace tapio::subfile
