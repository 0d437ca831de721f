// The header model: types, shapes, record size and data offsets.
#include "format/netcdf/header.h"

#include "format/netcdf/arith.h"

namespace tapio::netcdf {
namespace {

struct TypeRow {
  NcType nc;
  DataType tapio;
  size_t size;
};
// nc_type = NC_BYTE | NC_CHAR | NC_SHORT | NC_INT | NC_FLOAT | NC_DOUBLE       (all versions)
//         | NC_UBYTE | NC_USHORT | NC_UINT | NC_INT64 | NC_UINT64             (CDF-5 only)
constexpr TypeRow kTypes[] = {
    {NC_BYTE, TAPIO_INT8, 1},      {NC_CHAR, TAPIO_CHAR, 1},     {NC_SHORT, TAPIO_INT16, 2},
    {NC_INT, TAPIO_INT32, 4},      {NC_FLOAT, TAPIO_FLOAT32, 4}, {NC_DOUBLE, TAPIO_FLOAT64, 8},
    {NC_UBYTE, TAPIO_UINT8, 1},    {NC_USHORT, TAPIO_UINT16, 2}, {NC_UINT, TAPIO_UINT32, 4},
    {NC_INT64, TAPIO_INT64, 8},    {NC_UINT64, TAPIO_UINT64, 8},
};

const TypeRow* row_of(NcType t) {
  for (const auto& row : kTypes)
    if (row.nc == t) return &row;
  return nullptr;
}

uint64_t dim_length(const Header& h, int32_t id) {
  return id >= 0 && size_t(id) < h.dims.size() ? h.dims[id].length : 0;
}

}  // namespace

size_t nc_type_size(NcType t) {
  const TypeRow* row = row_of(t);
  return row ? row->size : 0;
}

bool nc_type_valid(int32_t t, int version) {
  if (version != 1 && version != 2 && version != 5) return false;
  if (t >= NC_BYTE && t <= NC_DOUBLE) return true;
  return version == 5 && t >= NC_UBYTE && t <= NC_UINT64;
}

NcType to_nc_type(DataType t) {
  for (const auto& row : kTypes)
    if (row.tapio == t) return row.nc;
  return NcType(0);  // invalid input: nc_type_size() of the result is 0
}

DataType from_nc_type(NcType t) {
  const TypeRow* row = row_of(t);
  return row ? row->tapio : DataType(0);
}

uint64_t Attr::count() const {
  const size_t size = nc_type_size(type);
  return size ? values.size() / size : 0;
}

int Header::record_dimid() const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].length == 0) return int(i);
  return -1;
}

bool Header::is_record(const Var& v) const {
  const int rec = record_dimid();
  return rec >= 0 && !v.dimids.empty() && v.dimids[0] == rec;
}

// Note on padding: with exactly one record variable, records are not padded to 4 bytes, so
// the record size is that variable's unpadded slab; otherwise it is the sum of the vsizes.
uint64_t Header::record_size() const {
  uint64_t sum = 0;
  const Var* only = nullptr;
  int count = 0;
  for (const auto& v : vars) {
    if (!is_record(v)) continue;
    sum += v.vsize;
    only = &v;
    ++count;
  }
  if (count == 1) return elements(*only) * nc_type_size(only->type);
  return sum;
}

uint64_t Header::data_offset(const Var& v, uint64_t rec) const {
  return is_record(v) ? data_offset(v, rec, record_size()) : v.begin;
}

uint64_t Header::data_offset(const Var& v, uint64_t rec, uint64_t record_size) const {
  return is_record(v) ? v.begin + rec * record_size : v.begin;
}

std::vector<uint64_t> Header::shape(const Var& v) const {
  std::vector<uint64_t> out;
  const size_t first = is_record(v) ? 1 : 0;
  for (size_t i = first; i < v.dimids.size(); ++i) out.push_back(dim_length(*this, v.dimids[i]));
  return out;
}

uint64_t Header::elements(const Var& v) const {
  uint64_t n = 1;
  for (uint64_t len : shape(v)) {
    if (detail::mul_overflows(n, len, &n)) return UINT64_MAX;  // validate() rejects these
  }
  return n;
}

const Var* Header::find_var(const std::string& name) const {
  for (const auto& v : vars)
    if (v.name == name) return &v;
  return nullptr;
}

int Header::find_dim(const std::string& name) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == name) return int(i);
  return -1;
}

Result<uint64_t> compute_vsize(const Header& h, const Var& v) {
  for (int32_t id : v.dimids) {
    if (id < 0 || size_t(id) >= h.dims.size()) {
      return error(TAPIO_ERR_FORMAT, "dimension id {} out of range in variable '{}'", id,
                   v.name);
    }
  }
  uint64_t bytes = nc_type_size(v.type);
  bool overflow = false;
  for (uint64_t len : h.shape(v)) overflow |= detail::mul_overflows(bytes, len, &bytes);
  uint64_t vsize = 0;
  if (overflow || detail::round_up_overflows(bytes, 4, &vsize)) {
    return error(TAPIO_ERR_FORMAT, "size of variable '{}' overflows 64 bits", v.name);
  }
  return vsize;
}

}  // namespace tapio::netcdf
