// Element types: size, name, and the byte-order conversion every format needs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tapio/tapio_types.h"

namespace tapio {

using DataType = tapio_type;

bool type_is_valid(int type);
size_t type_size(DataType type);
std::string_view type_name(DataType type);        // "int8", ..., "float64", "char"
bool type_from_name(std::string_view name, DataType* out);

// Swap the byte order of `count` elements of `elem_size` bytes from src to dst (may alias).
// One function over a byte span serves every type; 1-byte elements are copied.
void byteswap_copy(void* dst, const void* src, size_t count, size_t elem_size);

// `count` pieces of `piece_bytes` (whole elements) from src to dst, each side at its own
// stride, with their byte order swapped: a segment of small pieces (a map's single elements or
// short runs) in one loop rather than a call per piece.
void byteswap_strided(void* dst, uint64_t dst_stride, const void* src, uint64_t src_stride,
                      uint64_t piece_bytes, uint64_t count, size_t elem_size);

// True on a little-endian host (all supported hosts today; checked, not assumed, by callers).
constexpr bool host_is_little_endian() {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  return false;
#else
  return true;
#endif
}

// Convert between host order and big-endian (NetCDF's order).
inline void host_to_big_endian(void* dst, const void* src, size_t count, size_t elem_size);
inline void big_endian_to_host(void* dst, const void* src, size_t count, size_t elem_size);
// The same over strided pieces (byteswap_strided).
inline void host_to_big_endian_strided(void* dst, uint64_t dst_stride, const void* src,
                                       uint64_t src_stride, uint64_t piece_bytes, uint64_t count,
                                       size_t elem_size);
inline void big_endian_to_host_strided(void* dst, uint64_t dst_stride, const void* src,
                                       uint64_t src_stride, uint64_t piece_bytes, uint64_t count,
                                       size_t elem_size);

}  // namespace tapio

#include "core/types_inl.h"
