#include "core/types.h"

#include <cstdint>
#include <cstring>

namespace tapio {
namespace {
struct TypeInfo {
  DataType type;
  size_t size;
  std::string_view name;
};
constexpr TypeInfo kTypes[] = {
    {TAPIO_INT8, 1, "int8"},     {TAPIO_UINT8, 1, "uint8"},   {TAPIO_INT16, 2, "int16"},
    {TAPIO_UINT16, 2, "uint16"}, {TAPIO_INT32, 4, "int32"},   {TAPIO_UINT32, 4, "uint32"},
    {TAPIO_INT64, 8, "int64"},   {TAPIO_UINT64, 8, "uint64"}, {TAPIO_FLOAT32, 4, "float32"},
    {TAPIO_FLOAT64, 8, "float64"}, {TAPIO_CHAR, 1, "char"},
};
const TypeInfo* find(DataType t) {
  for (const auto& info : kTypes)
    if (info.type == t) return &info;
  return nullptr;
}

// One load, one bswap, one store per element: GCC and Clang vectorize this loop (pshufb), so
// a swap runs at memory speed. Safe in place (dst == src): each element is loaded before it
// is stored.
template <typename U>
U bswap(U v);
template <>
inline uint16_t bswap(uint16_t v) { return __builtin_bswap16(v); }
template <>
inline uint32_t bswap(uint32_t v) { return __builtin_bswap32(v); }
template <>
inline uint64_t bswap(uint64_t v) { return __builtin_bswap64(v); }

template <typename U>
void swap_elements(unsigned char* dst, const unsigned char* src, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    U v;
    std::memcpy(&v, src + i * sizeof(U), sizeof(U));
    v = bswap<U>(v);
    std::memcpy(dst + i * sizeof(U), &v, sizeof(U));
  }
}
template <typename U>
void swap_pieces(unsigned char* dst, uint64_t dst_stride, const unsigned char* src,
                 uint64_t src_stride, uint64_t piece_bytes, uint64_t count) {
  if (piece_bytes == sizeof(U)) {  // single elements: the loop the compiler keeps tight
    for (uint64_t k = 0; k < count; ++k) {
      U v;
      std::memcpy(&v, src + k * src_stride, sizeof(U));
      v = bswap<U>(v);
      std::memcpy(dst + k * dst_stride, &v, sizeof(U));
    }
    return;
  }
  for (uint64_t k = 0; k < count; ++k)
    swap_elements<U>(dst + k * dst_stride, src + k * src_stride, piece_bytes / sizeof(U));
}
}  // namespace

// Compared as ints: casting a value outside the enumeration to DataType is undefined.
bool type_is_valid(int type) {
  for (const auto& info : kTypes)
    if (static_cast<int>(info.type) == type) return true;
  return false;
}

size_t type_size(DataType type) {
  const TypeInfo* info = find(type);
  return info ? info->size : 0;
}

std::string_view type_name(DataType type) {
  const TypeInfo* info = find(type);
  return info ? info->name : std::string_view("invalid");
}

bool type_from_name(std::string_view name, DataType* out) {
  for (const auto& info : kTypes) {
    if (info.name == name) {
      *out = info.type;
      return true;
    }
  }
  return false;
}

void byteswap_copy(void* dst, const void* src, size_t count, size_t elem_size) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  switch (elem_size) {
    case 2: swap_elements<uint16_t>(d, s, count); break;
    case 4: swap_elements<uint32_t>(d, s, count); break;
    case 8: swap_elements<uint64_t>(d, s, count); break;
    default:
      if (d != s) std::memmove(d, s, count * elem_size);
  }
}

void byteswap_strided(void* dst, uint64_t dst_stride, const void* src, uint64_t src_stride,
                      uint64_t piece_bytes, uint64_t count, size_t elem_size) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  switch (elem_size) {
    case 2: return swap_pieces<uint16_t>(d, dst_stride, s, src_stride, piece_bytes, count);
    case 4: return swap_pieces<uint32_t>(d, dst_stride, s, src_stride, piece_bytes, count);
    case 8: return swap_pieces<uint64_t>(d, dst_stride, s, src_stride, piece_bytes, count);
    default:
      for (uint64_t k = 0; k < count; ++k)
        std::memmove(d + k * dst_stride, s + k * src_stride, piece_bytes);
  }
}

}  // namespace tapio
