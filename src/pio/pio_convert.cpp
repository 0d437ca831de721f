// Small conversions between netCDF types (attributes, fill values), with netCDF's range rule.
#include <cmath>
#include <cstring>
#include <limits>

#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

template <class T>
void store(void* out, size_t i, T value) {
  std::memcpy(static_cast<unsigned char*>(out) + i * sizeof(T), &value, sizeof(T));
}

template <class T>
T load(const void* in, size_t i) {
  T value;
  std::memcpy(&value, static_cast<const unsigned char*>(in) + i * sizeof(T), sizeof(T));
  return value;
}

// Element i of `in` as long double (exact for every netCDF type but 64-bit beyond 2^64).
long double value_at(const void* in, nc_type t, size_t i) {
  switch (t) {
    case NC_BYTE: return load<signed char>(in, i);
    case NC_SHORT: return load<short>(in, i);
    case NC_INT: return load<int>(in, i);
    case NC_FLOAT: return load<float>(in, i);
    case NC_DOUBLE: return load<double>(in, i);
    case NC_UBYTE: return load<unsigned char>(in, i);
    case NC_USHORT: return load<unsigned short>(in, i);
    case NC_UINT: return load<unsigned int>(in, i);
    case NC_INT64: return load<long long>(in, i);
    default: return load<unsigned long long>(in, i);
  }
}

template <class T>
bool put_checked(void* out, size_t i, long double v) {
  if (std::is_floating_point<T>::value) {
    const bool fits = std::isnan(v) || std::isinf(v) ||
                      std::fabs(v) <= static_cast<long double>(std::numeric_limits<T>::max());
    store<T>(out, i, static_cast<T>(v));
    return fits;
  }
  const bool fits = v >= static_cast<long double>(std::numeric_limits<T>::lowest()) &&
                    v <= static_cast<long double>(std::numeric_limits<T>::max());
  store<T>(out, i, fits ? static_cast<T>(v) : T{});
  return fits;
}

bool put_value(void* out, nc_type t, size_t i, long double v) {
  switch (t) {
    case NC_BYTE: return put_checked<signed char>(out, i, v);
    case NC_SHORT: return put_checked<short>(out, i, v);
    case NC_INT: return put_checked<int>(out, i, v);
    case NC_FLOAT: return put_checked<float>(out, i, v);
    case NC_DOUBLE: return put_checked<double>(out, i, v);
    case NC_UBYTE: return put_checked<unsigned char>(out, i, v);
    case NC_USHORT: return put_checked<unsigned short>(out, i, v);
    case NC_UINT: return put_checked<unsigned int>(out, i, v);
    case NC_INT64: return put_checked<long long>(out, i, v);
    default: return put_checked<unsigned long long>(out, i, v);
  }
}

}  // namespace

int convert_values(const void* in, nc_type from, void* out, nc_type to, size_t n) {
  if ((from == NC_CHAR) != (to == NC_CHAR)) return PIO_ECHAR;
  if (from == to) {
    if (n) std::memcpy(out, in, n * type_size(from));
    return PIO_NOERR;
  }
  bool fits = true;
  for (size_t i = 0; i < n; ++i) fits = put_value(out, to, i, value_at(in, from, i)) && fits;
  return fits ? PIO_NOERR : PIO_ERANGE;
}

void default_fill(nc_type t, void* out) {
  switch (t) {
    case NC_BYTE: store<signed char>(out, 0, NC_FILL_BYTE); break;
    case NC_CHAR: store<char>(out, 0, NC_FILL_CHAR); break;
    case NC_SHORT: store<short>(out, 0, NC_FILL_SHORT); break;
    case NC_INT: store<int>(out, 0, NC_FILL_INT); break;
    case NC_FLOAT: store<float>(out, 0, NC_FILL_FLOAT); break;
    case NC_DOUBLE: store<double>(out, 0, NC_FILL_DOUBLE); break;
    case NC_UBYTE: store<unsigned char>(out, 0, NC_FILL_UBYTE); break;
    case NC_USHORT: store<unsigned short>(out, 0, NC_FILL_USHORT); break;
    case NC_UINT: store<unsigned int>(out, 0, NC_FILL_UINT); break;
    case NC_INT64: store<long long>(out, 0, NC_FILL_INT64); break;
    default: store<unsigned long long>(out, 0, NC_FILL_UINT64);
  }
}

}  // namespace tapio_pio
