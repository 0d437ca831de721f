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

}  // namespace tapio
