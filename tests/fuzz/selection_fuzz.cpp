// The compact selection encoding of the subfile format (format/subfile/selections.h) on
// hostile bytes: the first 2 bytes bound the runs (as a variable's element count does in a
// reader), the rest is one encoded selection. Checks: decoding never allocates more than its
// input and the run bound allow; what decodes re-encodes to a selection that decodes equal.
#include <cstdlib>

#include "alloc_bound.h"
#include "format/subfile/selections.h"

using namespace tapio;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint64_t max_runs = 1 + (data[0] | data[1] << 8);
  fuzz::AllocationBound bound;
  subfile::LeReader r(data + 2, size - 2);
  plan::Selection sel;
  const bool ok = subfile::decode_selection(r, max_runs, &sel);
  // A run is 16 bytes; a growing vector holds its old and its new (twice as large) array at
  // once, up to 3 × 16 bytes per run it ends with.
  bound.check(size, 64, 48 * max_runs + 4096, "decode_selection");
  if (!ok) return 0;
  if (sel.kind == plan::Selection::Kind::kRuns && sel.runs.size() > max_runs) std::abort();
  std::vector<uint8_t> encoded;
  subfile::LeWriter w(encoded);
  subfile::encode_selection(w, sel);
  subfile::LeReader back(encoded.data(), encoded.size());
  plan::Selection again;
  if (!subfile::decode_selection(back, max_runs, &again) || !(again == sel) || back.left() != 0)
    std::abort();
  return 0;
}
