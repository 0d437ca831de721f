// Block lists of the subfile format (format/subfile/block_list.h) on hostile bytes: the input
// is a writer's lists in order, each a u16 length and its bytes, decoded against the writer's
// growing table of selections (as a reader does, step by step). Checks: allocation stays
// within a constant times the input plus the run bound; every block refers to a selection of
// the table; a decoded list re-encodes and decodes to the same list.
#include <cstdlib>

#include "alloc_bound.h"
#include "format/subfile/block_list.h"
#include "format/subfile/records.h"

using namespace tapio;

namespace {

// What a reader passes: bounds the runs of a list's new selections together.
constexpr uint64_t kMaxRuns = 1 << 16;

bool same(const subfile::BlockList& a, const subfile::BlockList& b) {
  if (a.writer != b.writer || a.subfile != b.subfile || a.offset != b.offset ||
      a.stats != b.stats || !(a.new_selections == b.new_selections) || !(a.shapes == b.shapes) ||
      a.sums.size() != b.sums.size())
    return false;
  for (size_t i = 0; i < a.sums.size(); ++i)
    if (a.sums[i].chunks != b.sums[i].chunks || a.shapes[i].codec != b.shapes[i].codec ||
        a.shapes[i].stored_bytes() != b.shapes[i].stored_bytes())
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AllocationBound bound;
  subfile::WriterTable table;
  for (size_t at = 0; at + 2 <= size;) {
    const size_t n = std::min<size_t>(data[at] | data[at + 1] << 8, size - at - 2);
    const uint8_t* list_bytes = data + at + 2;
    at += 2 + n;
    auto list = subfile::decode_block_list(list_bytes, n, table, kMaxRuns);
    if (!list.ok()) break;
    for (const subfile::BlockShape& b : list->shapes)
      if (b.selection >= table.selections.size() + list->new_selections.size()) std::abort();
    for (size_t i = 0; i < list->shapes.size(); ++i)
      if (list->sums[i].chunks.size() != subfile::chunk_count(list->shapes[i].stored_bytes()))
        std::abort();
    const std::vector<uint8_t> encoded = subfile::encode_block_list(*list);
    auto again = subfile::decode_block_list(encoded.data(), encoded.size(), table, kMaxRuns);
    if (!again.ok() || !same(*list, *again)) std::abort();
    table.apply(*list);
  }
  bound.check(size, 64, 64 * kMaxRuns + 4096, "decode_block_list");
  return 0;
}
