// block_list = writer varint | subfile varint | flags u8 | offset varint
//              | nnew varint | selection x nnew                       (format/subfile/selections)
//              | nblocks varint | (var varint, selection varint, length varint
//                                  [, codec u8, stored varint -- with kCoded]) x nblocks
//              | per block: [min (8), max (8) -- with kStats] | checksum u64 x ceil(stored / 1 MiB)
// flags: kStats (bit 1): min/max are stored; kCoded (bit 2, format version 3): each block
// says how it is stored (stored = length when codec is 0). (Bit 0 is reserved: 0.)
#include "format/subfile/block_list.h"


#include "format/subfile/le_bytes.h"
#include "format/subfile/records.h"
#include "format/subfile/selections.h"

namespace tapio::subfile {
namespace {

constexpr uint8_t kStats = 2;
constexpr uint8_t kCoded = 4;

bool any_coded(const BlockList& list) {
  for (const BlockShape& b : list.shapes)
    if (b.codec != Codec::kNone) return true;
  return false;
}

Status malformed(const char* what, uint32_t writer) {
  return error(TAPIO_ERR_FORMAT, "malformed block list of writer {}: {}", writer, what);
}

// A coded block is stored in fewer bytes than it holds (else it is stored as put) and holds at
// most kMaxRatio times them, so what a reader allocates to decode it is bounded by what it
// reads.
Status decode_coding(LeReader& r, uint32_t writer, BlockShape* b) {
  const uint8_t codec = r.u8();
  const uint64_t stored = r.varint();
  if (!r.ok() || codec >= kCodecs ||
      (codec == 0 ? stored != b->length
                  : stored >= b->length || stored == 0 || b->length / kMaxRatio > stored))
    return malformed("a block's operator or stored size", writer);
  b->codec = static_cast<Codec>(codec);
  b->stored = codec == 0 ? 0 : stored;
  return ok_status();
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
  const bool coded = any_coded(list);
  w.u8((list.stats ? kStats : 0) | (coded ? kCoded : 0));
  w.varint(list.offset);
  w.varint(list.new_selections.size());
  for (const plan::Selection& s : list.new_selections) encode_selection(w, s);
  w.varint(list.shapes.size());
  for (const BlockShape& b : list.shapes) {
    w.varint(b.var);
    w.varint(b.selection);
    w.varint(b.length);
    if (!coded) continue;
    w.u8(static_cast<uint8_t>(b.codec));
    w.varint(b.stored_bytes());
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
  if (!r.ok() || writer > UINT32_MAX || subfile > UINT32_MAX || (flags & ~(kStats | kCoded)))
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
    if (flags & kCoded) TAPIO_RETURN_IF_ERROR(decode_coding(r, list.writer, &b));
  }
  list.sums.resize(n);
  for (size_t i = 0; i < n; ++i) {
    BlockSums& s = list.sums[i];
    if (list.stats) {
      r.bytes(s.min, 8);
      r.bytes(s.max, 8);
    }
    const uint64_t chunks = chunk_count(list.shapes[i].stored_bytes());
    if (!r.ok() || chunks > r.left() / 8) return malformed("checksums", list.writer);
    s.chunks.resize(chunks);
    for (uint64_t& c : s.chunks) c = r.u64();
  }
  if (!r.ok() || r.left() != 0) return malformed("trailing bytes", list.writer);
  return list;
}

}  // namespace tapio::subfile
