#pragma once
#include <cstring>

namespace tapio {

inline void host_to_big_endian(void* dst, const void* src, size_t count, size_t elem_size) {
  if (host_is_little_endian()) {
    byteswap_copy(dst, src, count, elem_size);
  } else if (dst != src) {
    std::memmove(dst, src, count * elem_size);
  }
}

inline void big_endian_to_host(void* dst, const void* src, size_t count, size_t elem_size) {
  host_to_big_endian(dst, src, count, elem_size);  // the swap is its own inverse
}

inline void host_to_big_endian_strided(void* dst, uint64_t dst_stride, const void* src,
                                       uint64_t src_stride, uint64_t piece_bytes, uint64_t count,
                                       size_t elem_size) {
  byteswap_strided(dst, dst_stride, src, src_stride, piece_bytes, count,
                   host_is_little_endian() ? elem_size : 1);  // size 1: copied as they are
}

inline void big_endian_to_host_strided(void* dst, uint64_t dst_stride, const void* src,
                                       uint64_t src_stride, uint64_t piece_bytes, uint64_t count,
                                       size_t elem_size) {
  host_to_big_endian_strided(dst, dst_stride, src, src_stride, piece_bytes, count, elem_size);
}

}  // namespace tapio
