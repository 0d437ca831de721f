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

}  // namespace tapio
