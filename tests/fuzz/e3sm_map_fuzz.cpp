// The E3SM-IO map reader's checks (examples/e3sm/map_split.h) on hostile arrays; the map's
// NetCDF header itself is the netcdf_header target's (its corpus holds the maps' headers).
// Input: a u8 process range (first, count) and then dims, nreqs, offsets and lengths, each a
// u16 element count and that many little-endian int32. Checks: what split_map accepts is
// inside the array and is exactly the processes' requests in order.
#include <cstdlib>
#include <cstring>

#include "alloc_bound.h"
#include "map_split.h"

using namespace tapio;

namespace {

bool take(const uint8_t*& p, const uint8_t* end, std::vector<int32_t>* out) {
  if (end - p < 2) return false;
  const size_t n = p[0] | p[1] << 8;
  p += 2;
  if (static_cast<size_t>(end - p) < 4 * n) return false;
  out->resize(n);
  if (n) std::memcpy(out->data(), p, 4 * n);
  p += 4 * n;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t* p = data + 2;
  const uint8_t* end = data + size;
  e3sm::MapArrays map;
  if (!take(p, end, &map.dims) || !take(p, end, &map.nreqs) || !take(p, end, &map.offsets) ||
      !take(p, end, &map.lengths))
    return 0;
  const size_t first = data[0], last = first + data[1];
  fuzz::AllocationBound bound;
  e3sm::Decomposition dec;
  const std::string wrong = e3sm::split_map(map, first, last, &dec);
  bound.check(size, 16, 4096, "e3sm::split_map");
  if (!wrong.empty()) return 0;
  uint64_t elements = 1, begin = 0;
  for (uint64_t d : dec.dims) elements *= d;
  for (size_t q = 0; q < first; ++q) begin += static_cast<uint64_t>(map.nreqs[q]);
  for (size_t i = 0; i < dec.offsets.size(); ++i) {
    if (dec.offsets[i] + dec.lengths[i] > elements) std::abort();
    if (dec.offsets[i] != static_cast<uint64_t>(map.offsets[begin + i])) std::abort();
  }
  return 0;
}
