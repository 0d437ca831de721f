// Fill values: the NetCDF defaults, or a variable's own _FillValue.
#include <cstring>

#include "format/netcdf/header.h"

namespace tapio::netcdf {
namespace {

template <typename T>
void put(void* out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

}  // namespace

// FILL_CHAR = \x00; FILL_BYTE = \x81; FILL_SHORT = \x80 \x01; FILL_INT = \x80 \x00 \x00 \x01;
// FILL_FLOAT = \x7C \xF0 \x00 \x00; FILL_DOUBLE = \x47 \x9E \x00 ... (9.9692099683868690e+36)
// and the CDF-5 types' NC_FILL_UBYTE ... NC_FILL_UINT64 of netcdf.h.
void default_fill(NcType t, void* out) {
  switch (t) {
    case NC_BYTE: put<int8_t>(out, -127); break;
    case NC_CHAR: put<char>(out, 0); break;
    case NC_SHORT: put<int16_t>(out, -32767); break;
    case NC_INT: put<int32_t>(out, -2147483647); break;
    case NC_FLOAT: put<float>(out, 9.9692099683868690e+36f); break;
    case NC_DOUBLE: put<double>(out, 9.9692099683868690e+36); break;
    case NC_UBYTE: put<uint8_t>(out, 255); break;
    case NC_USHORT: put<uint16_t>(out, 65535); break;
    case NC_UINT: put<uint32_t>(out, 4294967295u); break;
    case NC_INT64: put<int64_t>(out, -9223372036854775806LL); break;
    case NC_UINT64: put<uint64_t>(out, 18446744073709551614ULL); break;
  }
  // An invalid type writes nothing: its size is 0.
}

// "If _FillValue is defined then it should be scalar and of the same type as the variable";
// one that is not (wrong type, or not exactly one element) is ignored for the default.
void fill_value(const Var& v, void* out) {
  for (const Attr& a : v.attrs) {
    if (a.name != "_FillValue") continue;
    if (a.type == v.type && a.count() == 1) {
      std::memcpy(out, a.values.data(), nc_type_size(v.type));
      return;
    }
    break;
  }
  default_fill(v.type, out);
}

}  // namespace tapio::netcdf
