// Block lists of the subfile format (docs/format.md, "Block lists"): what one writer rank put
// in one step — which variable and selection each block holds, where the blocks are, their
// min/max and checksums. Pure code over bytes.
//
// A writer's selections are stored once: each list may add new ones to the writer's table,
// and blocks refer to them by id (as PIO refers to a decomposition by id), so a map shared by
// many variables and steps is written once per dataset. A writer's blocks of one step lie back
// to back in its subfile from the list's offset. A list that adds no selection refers to
// nothing but the writer's table, so a reader decodes any step on its own once it knows the
// steps that added selections.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "core/status.h"
#include "format/subfile/operators.h"
#include "plan/selection.h"

namespace tapio::subfile {

// What a block holds: a variable's selection (an id in its writer's table) and its bytes —
// `length` as put, `stored` in the subfile when an operator encoded it.
struct BlockShape {
  uint32_t var = 0;
  uint32_t selection = 0;
  uint64_t length = 0;
  Codec codec = Codec::kNone;
  uint64_t stored = 0;  // with an operator: fewer than length (else the block is stored as put)
  uint64_t stored_bytes() const { return codec == Codec::kNone ? length : stored; }
  // The shape, not how it was encoded this time (a step whose stored sizes differ from the
  // previous one's puts the same elements in the same places).
  bool operator==(const BlockShape& o) const {
    return var == o.var && selection == o.selection && length == o.length;
  }
};

// A block's statistics (in the variable's type, little-endian; zero when not recorded) and
// one XXH3-64 checksum per kChecksumChunk bytes of its stored data.
struct BlockSums {
  uint8_t min[8] = {}, max[8] = {};
  std::vector<uint64_t> chunks;
};

// One writer's blocks of one step.
struct BlockList {
  uint32_t writer = 0;   // the writing rank, within its writer generation
  uint32_t subfile = 0;  // the data subfile its blocks are in
  uint64_t offset = 0;   // where the first block starts; each next one starts where it ends
  bool stats = true;     // min/max recorded
  std::vector<plan::Selection> new_selections;  // appended to the writer's table, in order
  std::vector<BlockShape> shapes;
  std::vector<BlockSums> sums;  // one per shape
};

// What a writer's lists refer to: its selections, by id. They never move once added (a
// deque), so readers may keep pointers to them.
struct WriterTable {
  std::deque<plan::Selection> selections;
  // Add a list's new selections (after encoding or decoding it).
  void apply(const BlockList& list);
};

std::vector<uint8_t> encode_block_list(const BlockList& list);
// Decode one list; `max_runs` bounds the runs of its new selections together (a reader passes
// what the variables and the data files can hold, so a hostile list cannot make it allocate
// without bound). TAPIO_ERR_FORMAT on malformed input, too many runs, or a reference outside
// the table.
Result<BlockList> decode_block_list(const uint8_t* data, size_t size, const WriterTable& table,
                                    uint64_t max_runs);
// The writer of an encoded list, without decoding it.
Result<uint32_t> peek_writer(const uint8_t* data, size_t size);
// Checksums a block of `length` bytes has.
uint64_t chunk_count(uint64_t length);

}  // namespace tapio::subfile
