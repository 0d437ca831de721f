// Header encoder. One writer walks the grammar; with a null buffer it only counts, which is
// how encoded_size() stays equal to encode().size().
#include "format/netcdf/bytes.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf {
namespace {

using detail::ByteWriter;

constexpr uint32_t kNcDimension = 0x0A;  // NC_DIMENSION = \x00 \x00 \x00 \x0A
constexpr uint32_t kNcVariable = 0x0B;   // NC_VARIABLE  = \x00 \x00 \x00 \x0B
constexpr uint32_t kNcAttribute = 0x0C;  // NC_ATTRIBUTE = \x00 \x00 \x00 \x0C

// ABSENT = ZERO ZERO (CDF-1/2) | ZERO ZERO64 (CDF-5); otherwise TAG nelems.
void put_list_head(ByteWriter& w, uint32_t tag, size_t nelems) {
  w.u32(nelems == 0 ? 0 : tag);
  w.non_neg(nelems);
}

// name = nelems namestring; namestring = ID1 [IDN ...] padding
void put_name(ByteWriter& w, const std::string& name) {
  w.non_neg(name.size());
  w.bytes(name.data(), name.size());
  w.pad4();
}

// attr = name nc_type nelems [values ...]
// values = bytes | chars | shorts | ints | ... ; each padded to the next 4-byte boundary.
void put_attr(ByteWriter& w, const Attr& a) {
  put_name(w, a.name);
  w.u32(uint32_t(a.type));
  const uint64_t count = a.count();
  w.non_neg(count);
  w.big_endian(a.values.data(), count, nc_type_size(a.type));
  w.pad4();
}

// att_list = ABSENT | NC_ATTRIBUTE nelems [attr ...]
void put_att_list(ByteWriter& w, const std::vector<Attr>& attrs) {
  put_list_head(w, kNcAttribute, attrs.size());
  for (const Attr& a : attrs) put_attr(w, a);
}

// dim = name dim_length
void put_dim(ByteWriter& w, const Dim& d) {
  put_name(w, d.name);
  w.non_neg(d.length);
}

// var = name nelems [dimid ...] vatt_list nc_type vsize begin
void put_var(ByteWriter& w, const Var& v) {
  put_name(w, v.name);
  w.non_neg(v.dimids.size());
  for (int32_t id : v.dimids) w.non_neg(uint64_t(id));  // dimid = NON_NEG
  put_att_list(w, v.attrs);                              // vatt_list = att_list
  w.u32(uint32_t(v.type));                               // nc_type
  w.non_neg(v.vsize);                                    // vsize = NON_NEG
  w.offset(v.begin);                                     // begin = OFFSET
}

// header = magic numrecs dim_list gatt_list var_list
void put_header(ByteWriter& w, const Header& h) {
  // magic = 'C' 'D' 'F' VERSION
  const uint8_t magic[4] = {'C', 'D', 'F', uint8_t(h.version)};
  w.bytes(magic, 4);
  // numrecs = NON_NEG | STREAMING
  w.non_neg(h.numrecs);
  // dim_list = ABSENT | NC_DIMENSION nelems [dim ...]
  put_list_head(w, kNcDimension, h.dims.size());
  for (const Dim& d : h.dims) put_dim(w, d);
  // gatt_list = att_list
  put_att_list(w, h.attrs);
  // var_list = ABSENT | NC_VARIABLE nelems [var ...]
  put_list_head(w, kNcVariable, h.vars.size());
  for (const Var& v : h.vars) put_var(w, v);
}

}  // namespace

uint64_t encoded_size(const Header& h) {
  ByteWriter counter(h.version, nullptr);
  put_header(counter, h);
  return counter.size();
}

std::vector<uint8_t> encode(const Header& h) {
  std::vector<uint8_t> out(encoded_size(h));
  ByteWriter writer(h.version, out.data());
  put_header(writer, h);
  return out;
}

int numrecs_width(int version) { return detail::non_neg_width(version); }

int encode_numrecs(int version, uint64_t numrecs, uint8_t out[8]) {
  ByteWriter writer(version, out);
  writer.non_neg(numrecs);
  return int(writer.size());
}

uint64_t decode_numrecs(int version, const uint8_t* in) {
  uint64_t v = 0;
  for (int i = 0; i < numrecs_width(version); ++i) v = (v << 8) | in[i];
  return v;
}

}  // namespace tapio::netcdf
