// netCDF's type ids (PIO's) and tapio's element types.
#include "pio/pio_state.h"

namespace tapio_pio {

bool valid_type(nc_type t) { return t >= NC_BYTE && t <= NC_UINT64; }

tapio_type to_tapio(nc_type t) {
  switch (t) {
    case NC_BYTE: return TAPIO_INT8;
    case NC_CHAR: return TAPIO_CHAR;
    case NC_SHORT: return TAPIO_INT16;
    case NC_INT: return TAPIO_INT32;
    case NC_FLOAT: return TAPIO_FLOAT32;
    case NC_DOUBLE: return TAPIO_FLOAT64;
    case NC_UBYTE: return TAPIO_UINT8;
    case NC_USHORT: return TAPIO_UINT16;
    case NC_UINT: return TAPIO_UINT32;
    case NC_INT64: return TAPIO_INT64;
    default: return TAPIO_UINT64;
  }
}

nc_type from_tapio(tapio_type t) {
  switch (t) {
    case TAPIO_INT8: return NC_BYTE;
    case TAPIO_CHAR: return NC_CHAR;
    case TAPIO_INT16: return NC_SHORT;
    case TAPIO_INT32: return NC_INT;
    case TAPIO_FLOAT32: return NC_FLOAT;
    case TAPIO_FLOAT64: return NC_DOUBLE;
    case TAPIO_UINT8: return NC_UBYTE;
    case TAPIO_UINT16: return NC_USHORT;
    case TAPIO_UINT32: return NC_UINT;
    case TAPIO_INT64: return NC_INT64;
    default: return NC_UINT64;
  }
}

size_t type_size(nc_type t) {
  switch (t) {
    case NC_BYTE:
    case NC_CHAR:
    case NC_UBYTE: return 1;
    case NC_SHORT:
    case NC_USHORT: return 2;
    case NC_INT:
    case NC_FLOAT:
    case NC_UINT: return 4;
    default: return 8;
  }
}

}  // namespace tapio_pio
