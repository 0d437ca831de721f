// Header decoder. Every field goes through ByteReader, which checks bounds; every count is
// checked against the bytes left in the file before anything is allocated for it.
#include "core/names.h"
#include "format/netcdf/bytes.h"
#include "format/netcdf/extents.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf {
namespace {

using detail::ByteReader;

constexpr uint32_t kNcDimension = 0x0A;
constexpr uint32_t kNcVariable = 0x0B;
constexpr uint32_t kNcAttribute = 0x0C;

// Smallest encoding of one list element, in NON_NEG widths W and 4-byte words, for bounding
// counts: dim = name(W) dim_length(W); attr = name(W) nc_type(4) nelems(W);
// var = name(W) nelems(W) vatt_list(4+W) nc_type(4) vsize(W) begin(4).
uint64_t min_dim_bytes(int w) { return 2 * w; }
uint64_t min_attr_bytes(int w) { return 2 * w + 4; }
uint64_t min_var_bytes(int w) { return 4 * w + 12; }

// magic = 'C' 'D' 'F' VERSION;  VERSION = \x01 | \x02 | \x05
Status get_magic(ByteReader& r, Header* h) {
  uint8_t magic[4];
  TAPIO_RETURN_IF_ERROR(r.bytes(magic, 4, "magic"));
  if (magic[0] == 0x89 && magic[1] == 'H' && magic[2] == 'D' && magic[3] == 'F') {
    return error(TAPIO_ERR_FORMAT, "not a NetCDF classic file (bad magic: HDF5/NetCDF-4)");
  }
  if (magic[0] != 'C' || magic[1] != 'D' || magic[2] != 'F') {
    return error(TAPIO_ERR_FORMAT, "not a NetCDF file (bad magic)");
  }
  if (magic[3] != 1 && magic[3] != 2 && magic[3] != 5) {
    return error(TAPIO_ERR_FORMAT, "unsupported version byte {}", int(magic[3]));
  }
  h->version = magic[3];
  r.set_version(h->version);
  return ok_status();
}

// name = nelems namestring
Status get_name(ByteReader& r, const char* what, std::string* name) {
  uint64_t n = 0;
  const uint64_t at = r.pos();
  TAPIO_RETURN_IF_ERROR(r.non_neg(&n, what));
  TAPIO_RETURN_IF_ERROR(r.need(n, what));  // bounds n before the string is sized
  name->assign(size_t(n), '\0');
  TAPIO_RETURN_IF_ERROR(r.bytes(name->data(), n, what));
  TAPIO_RETURN_IF_ERROR(r.skip_pad(n, what));
  const std::string why = name_grammar_problem(*name);
  if (!why.empty()) {
    return error(TAPIO_ERR_FORMAT, "invalid {} '{}' at byte {}: it {}", what,
                 printable_name(*name), at, why);
  }
  return ok_status();
}

// list = ABSENT | TAG nelems [elem ...];  ABSENT = ZERO ZERO (ZERO ZERO64 in CDF-5).
// A list tag with a zero count is accepted as well, as the reference library does.
Status get_list_head(ByteReader& r, uint32_t tag, const char* what, uint64_t* nelems) {
  uint32_t got = 0;
  const uint64_t at = r.pos();
  TAPIO_RETURN_IF_ERROR(r.u32(&got, what));
  TAPIO_RETURN_IF_ERROR(r.non_neg(nelems, what));
  if (got == 0 && *nelems != 0) {
    return error(TAPIO_ERR_FORMAT, "{} at byte {}: ABSENT tag with count {}", what, at, *nelems);
  }
  if (got != 0 && got != tag) {
    return error(TAPIO_ERR_FORMAT, "{} at byte {}: tag 0x{:08x}, expected 0x{:08x} or ABSENT",
                 what, at, got, tag);
  }
  return ok_status();
}

// nc_type: a 32-bit tag, valid for the file's version.
Status get_type(ByteReader& r, const char* what, NcType* type) {
  uint32_t t = 0;
  const uint64_t at = r.pos();
  TAPIO_RETURN_IF_ERROR(r.u32(&t, what));
  if (!nc_type_valid(int32_t(t), r.version())) {
    return error(TAPIO_ERR_FORMAT, "{} at byte {}: type {} is not valid in CDF-{}", what, at,
                 int32_t(t), r.version());
  }
  *type = NcType(t);
  return ok_status();
}

// attr = name nc_type nelems [values ...];  values are padded to 4 bytes.
Status get_attr(ByteReader& r, Attr* a) {
  TAPIO_RETURN_IF_ERROR(get_name(r, "attribute name", &a->name));
  TAPIO_RETURN_IF_ERROR(get_type(r, "attribute type", &a->type));
  uint64_t count = 0;
  TAPIO_RETURN_IF_ERROR(r.non_neg(&count, "attribute length"));
  const size_t size = nc_type_size(a->type);
  TAPIO_RETURN_IF_ERROR(r.need_count(count, size, "attribute values"));
  a->values.resize(size_t(count * size));
  TAPIO_RETURN_IF_ERROR(r.big_endian(a->values.data(), count, size, "attribute values"));
  return r.skip_pad(count * size, "attribute padding");
}

// att_list = ABSENT | NC_ATTRIBUTE nelems [attr ...]
Status get_att_list(ByteReader& r, std::vector<Attr>* attrs) {
  uint64_t n = 0;
  TAPIO_RETURN_IF_ERROR(get_list_head(r, kNcAttribute, "attribute list", &n));
  TAPIO_RETURN_IF_ERROR(r.need_count(n, min_attr_bytes(detail::non_neg_width(r.version())),
                                     "attribute list"));
  attrs->resize(size_t(n));
  for (Attr& a : *attrs) TAPIO_RETURN_IF_ERROR(get_attr(r, &a));
  return ok_status();
}

// dim_list = ABSENT | NC_DIMENSION nelems [dim ...];  dim = name dim_length
Status get_dim_list(ByteReader& r, std::vector<Dim>* dims) {
  uint64_t n = 0;
  TAPIO_RETURN_IF_ERROR(get_list_head(r, kNcDimension, "dimension list", &n));
  TAPIO_RETURN_IF_ERROR(r.need_count(n, min_dim_bytes(detail::non_neg_width(r.version())),
                                     "dimension list"));
  dims->resize(size_t(n));
  for (Dim& d : *dims) {
    TAPIO_RETURN_IF_ERROR(get_name(r, "dimension name", &d.name));
    TAPIO_RETURN_IF_ERROR(r.non_neg(&d.length, "dimension length"));  // dim_length = NON_NEG
  }
  return ok_status();
}

// nelems [dimid ...];  dimid = NON_NEG, an index into dim_list.
Status get_dimids(ByteReader& r, size_t ndims, Var* v) {
  uint64_t rank = 0;
  TAPIO_RETURN_IF_ERROR(r.non_neg(&rank, "variable rank"));
  TAPIO_RETURN_IF_ERROR(r.need_count(rank, detail::non_neg_width(r.version()), "dimension ids"));
  v->dimids.resize(size_t(rank));
  for (int32_t& id : v->dimids) {
    uint64_t raw = 0;
    const uint64_t at = r.pos();
    TAPIO_RETURN_IF_ERROR(r.non_neg(&raw, "dimension id"));
    if (raw >= ndims) {
      return error(TAPIO_ERR_FORMAT, "dimension id {} out of range in variable '{}' (byte {})",
                   raw, printable_name(v->name), at);
    }
    id = int32_t(raw);
  }
  return ok_status();
}

// var = name nelems [dimid ...] vatt_list nc_type vsize begin
Status get_var(ByteReader& r, size_t ndims, Var* v) {
  TAPIO_RETURN_IF_ERROR(get_name(r, "variable name", &v->name));
  TAPIO_RETURN_IF_ERROR(get_dimids(r, ndims, v));
  TAPIO_RETURN_IF_ERROR(get_att_list(r, &v->attrs));  // vatt_list = att_list
  TAPIO_RETURN_IF_ERROR(get_type(r, "variable type", &v->type));
  TAPIO_RETURN_IF_ERROR(r.non_neg(&v->vsize, "vsize"));  // vsize = NON_NEG
  return r.offset(&v->begin, "begin");                   // begin = OFFSET
}

// var_list = ABSENT | NC_VARIABLE nelems [var ...]
Status get_var_list(ByteReader& r, size_t ndims, std::vector<Var>* vars) {
  uint64_t n = 0;
  TAPIO_RETURN_IF_ERROR(get_list_head(r, kNcVariable, "variable list", &n));
  TAPIO_RETURN_IF_ERROR(r.need_count(n, min_var_bytes(detail::non_neg_width(r.version())),
                                     "variable list"));
  vars->resize(size_t(n));
  for (Var& v : *vars) TAPIO_RETURN_IF_ERROR(get_var(r, ndims, &v));
  return ok_status();
}

// header = magic numrecs dim_list gatt_list var_list
Status get_header(ByteReader& r, Header* h) {
  TAPIO_RETURN_IF_ERROR(get_magic(r, h));
  const uint64_t at = r.pos();
  // numrecs = NON_NEG | STREAMING: read raw so that CDF-5 STREAMING (all ones) is accepted.
  uint8_t raw[8];
  TAPIO_RETURN_IF_ERROR(r.bytes(raw, numrecs_width(h->version), "numrecs"));
  h->numrecs = decode_numrecs(h->version, raw);
  if (h->version == 5 && (h->numrecs >> 63) && h->numrecs != UINT64_MAX) {
    return error(TAPIO_ERR_FORMAT, "negative numrecs at byte {}", at);
  }
  TAPIO_RETURN_IF_ERROR(get_dim_list(r, &h->dims));
  TAPIO_RETURN_IF_ERROR(get_att_list(r, &h->attrs));  // gatt_list = att_list
  return get_var_list(r, h->dims.size(), &h->vars);
}

// vsize is redundant with the shape ("Note on vsize"): the model keeps the value computed
// from the shape, as the reference library does, so a CDF-2 vsize stored as 2^32-1 for a
// large variable, or a wrong stored value, does not mislead data offsets.
Status set_vsizes(Header* h) {
  for (Var& v : h->vars) {
    TAPIO_ASSIGN_OR_RETURN(v.vsize, compute_vsize(*h, v));
  }
  return ok_status();
}

}  // namespace

Result<Header> decode(const uint8_t* data, size_t size, uint64_t file_size, size_t* need_more) {
  if (need_more) *need_more = 0;
  ByteReader r(data, size, file_size);
  Header h;
  Status s = get_header(r, &h);
  if (!s.ok()) {
    if (need_more) *need_more = size_t(r.need_more());
    return s;
  }
  // vsize first, so that validate() checks the values the model will hold.
  TAPIO_RETURN_IF_ERROR(set_vsizes(&h));
  TAPIO_RETURN_IF_ERROR(validate(h));
  TAPIO_RETURN_IF_ERROR(check_extents(h, r.pos()));
  return h;
}

}  // namespace tapio::netcdf
