#include "map_split.h"

namespace tapio::e3sm {

uint64_t Decomposition::elements() const {
  uint64_t n = 0;
  for (uint64_t l : lengths) n += l;
  return n;
}

std::string split_map(const MapArrays& map, size_t first, size_t last, Decomposition* out) {
  uint64_t size = 1;
  for (int32_t len : map.dims) {
    // The product stays below 2^62, so an offset plus a length (each below 2^31) cannot wrap.
    if (len <= 0) return "a dimension is not positive";
    if (size > (uint64_t{1} << 62) / static_cast<uint64_t>(len)) return "the array is too large";
    size *= static_cast<uint64_t>(len);
    out->dims.push_back(static_cast<uint64_t>(len));
  }
  if (map.offsets.size() != map.lengths.size()) return "offsets and lengths differ in count";
  if (first > last || last > map.nreqs.size()) return "processes outside the map";
  uint64_t total = 0, begin = 0, end = 0;
  for (size_t p = 0; p < map.nreqs.size(); ++p) {
    if (map.nreqs[p] < 0) return "a process has a negative request count";
    if (p == first) begin = total;
    total += static_cast<uint64_t>(map.nreqs[p]);
    if (p + 1 == last) end = total;
  }
  if (total != map.offsets.size()) return "the request counts do not add up to the requests";
  if (first == last) return "";
  for (uint64_t i = begin; i < end; ++i) {
    if (map.offsets[i] < 0 || map.lengths[i] < 0 ||
        static_cast<uint64_t>(map.offsets[i]) + static_cast<uint64_t>(map.lengths[i]) > size)
      return "a request lies outside the array";
    out->offsets.push_back(static_cast<uint64_t>(map.offsets[i]));
    out->lengths.push_back(static_cast<uint64_t>(map.lengths[i]));
  }
  return "";
}

}  // namespace tapio::e3sm
