// Calls f(T{}) with the C++ element type of a tapio_type, so untyped buffers can go through
// the typed C++ API (Engine::put / Engine::get).
#pragma once
#include <cstdint>

#include "tapio/tapio.hpp"

namespace tapio::cli {

template <typename F>
void with_type(tapio_type type, F&& f) {
  switch (type) {
    case TAPIO_INT8: return f(int8_t{});
    case TAPIO_UINT8: return f(uint8_t{});
    case TAPIO_INT16: return f(int16_t{});
    case TAPIO_UINT16: return f(uint16_t{});
    case TAPIO_INT32: return f(int32_t{});
    case TAPIO_UINT32: return f(uint32_t{});
    case TAPIO_INT64: return f(int64_t{});
    case TAPIO_UINT64: return f(uint64_t{});
    case TAPIO_FLOAT32: return f(float{});
    case TAPIO_FLOAT64: return f(double{});
    case TAPIO_CHAR: return f(char{});
  }
  throw Error(TAPIO_ERR_TYPE, "unknown element type " + std::to_string(int(type)));
}

}  // namespace tapio::cli
