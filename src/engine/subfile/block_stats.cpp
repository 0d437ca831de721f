#include "engine/subfile/block_stats.h"

#include <cmath>
#include <cstring>

namespace tapio::subfile {
namespace {

template <typename T>
void min_max(const void* data, uint64_t n, uint8_t* min_out, uint8_t* max_out) {
  const T* v = static_cast<const T*>(data);
  T lo{}, hi{};
  bool any = false;
  for (uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v[i])) continue;  // NaN has no place in an order
    }
    if (!any || v[i] < lo) lo = v[i];
    if (!any || v[i] > hi) hi = v[i];
    any = true;
  }
  std::memcpy(min_out, &lo, sizeof(T));
  std::memcpy(max_out, &hi, sizeof(T));
}

}  // namespace

void describe_data(DataType type, const void* data, uint64_t n, Block* b) {
  std::memset(b->min, 0, 8);
  std::memset(b->max, 0, 8);
  switch (type) {
    case TAPIO_INT8: min_max<int8_t>(data, n, b->min, b->max); break;
    case TAPIO_UINT8: min_max<uint8_t>(data, n, b->min, b->max); break;
    case TAPIO_CHAR: min_max<char>(data, n, b->min, b->max); break;
    case TAPIO_INT16: min_max<int16_t>(data, n, b->min, b->max); break;
    case TAPIO_UINT16: min_max<uint16_t>(data, n, b->min, b->max); break;
    case TAPIO_INT32: min_max<int32_t>(data, n, b->min, b->max); break;
    case TAPIO_UINT32: min_max<uint32_t>(data, n, b->min, b->max); break;
    case TAPIO_INT64: min_max<int64_t>(data, n, b->min, b->max); break;
    case TAPIO_UINT64: min_max<uint64_t>(data, n, b->min, b->max); break;
    case TAPIO_FLOAT32: min_max<float>(data, n, b->min, b->max); break;
    case TAPIO_FLOAT64: min_max<double>(data, n, b->min, b->max); break;
  }
  const auto* bytes = static_cast<const uint8_t*>(data);
  const uint64_t length = n * type_size(type);
  b->length = length;
  b->chunk_checksums.clear();
  for (uint64_t i = 0; i * kChecksumChunk < length; ++i)
    b->chunk_checksums.push_back(chunk_checksum(bytes, length, i));
}

}  // namespace tapio::subfile
