#include "core/out_of_memory.h"

#include <vector>

namespace tapio {

Status out_of_memory(const std::string& doing, uint64_t bytes) {
  if (bytes == 0)
    return error(TAPIO_ERR_NOMEM, "out of memory while {} (an allocation failed)", doing);
  return error(TAPIO_ERR_NOMEM, "out of memory while {}: cannot allocate {} bytes", doing, bytes);
}

Status room_for(std::initializer_list<uint64_t> sizes, const std::string& doing) {
  std::vector<std::unique_ptr<uint8_t[]>> held;
  for (uint64_t n : sizes) {
    if (n == 0) continue;
    held.emplace_back(n <= SIZE_MAX ? new (std::nothrow) uint8_t[n] : nullptr);
    if (!held.back()) return out_of_memory(doing, n);
  }
  return ok_status();
}

}  // namespace tapio
