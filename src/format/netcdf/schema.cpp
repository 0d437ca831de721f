#include "format/netcdf/schema.h"

namespace tapio::netcdf {
namespace {

Result<int32_t> dim_id(const IoDef& io, Header& h, const std::string& name, uint64_t length,
                       const std::string& var) {
  const int found = h.find_dim(name);
  if (found < 0) {
    h.dims.push_back(Dim{name, length});
    return static_cast<int32_t>(h.dims.size() - 1);
  }
  if (h.dims[found].length != length)
    return error(TAPIO_ERR_SHAPE, "dimension '{}' has length {} in variable '{}' but {} {}",
                 name, length, var, h.dims[found].length,
                 io.find_dim(name) ? "where it is declared" : "in an earlier variable");
  return static_cast<int32_t>(found);
}

// The declared dimensions first, in their order, then the record dimension if a record
// variable needs it and it was not declared (so it is first when none was).
Status add_declared_dims(const IoDef& io, const std::string& record_dim, bool any_record,
                         Header& h) {
  for (const DimensionDef& d : io.dims) {
    TAPIO_RETURN_IF_ERROR(validate_name("dimension", d.name));
    if (h.find_dim(d.name) >= 0)
      return error(TAPIO_ERR_ARG, "dimension '{}' is declared twice", d.name);
    if (d.unlimited() && d.name != record_dim)
      return error(TAPIO_ERR_ARG, "dimension '{}' is declared unlimited, but the steps go "
                   "along '{}' (the record_dimension parameter): a NetCDF file has one "
                   "unlimited dimension", d.name, record_dim);
    if (!d.unlimited() && d.name == record_dim && any_record)
      return error(TAPIO_ERR_ARG, "dimension '{}' is declared with length {}, but record "
                   "variables hold their steps along it (the record_dimension parameter)",
                   d.name, d.length);
    h.dims.push_back(Dim{d.name, d.length});
  }
  if (any_record && h.find_dim(record_dim) < 0) h.dims.push_back(Dim{record_dim, 0});
  return ok_status();
}

Status check_type_fits(DataType t, int version, const std::string& what) {
  const NcType nt = to_nc_type(t);
  if (!nc_type_valid(nt, version))
    return error(TAPIO_ERR_UNSUPPORTED, "{} has type {}, which CDF-{} cannot store (use CDF-5)",
                 what, type_name(t), version);
  return ok_status();
}

}  // namespace

Attr to_nc_attr(const Attribute& a) { return Attr{a.name, to_nc_type(a.type), a.data}; }

Attribute from_nc_attr(const Attr& a) { return Attribute{a.name, from_nc_type(a.type), a.values}; }

Result<Header> header_from_io(const IoDef& io, int version, const std::string& record_dim) {
  TAPIO_RETURN_IF_ERROR(validate_name("record dimension", record_dim));
  Header h;
  h.version = version;
  bool any_record = false;
  for (const auto& v : io.vars) any_record |= v.record;
  TAPIO_RETURN_IF_ERROR(add_declared_dims(io, record_dim, any_record, h));
  const int32_t record_id = h.find_dim(record_dim);
  for (const auto& a : io.attrs) {
    TAPIO_RETURN_IF_ERROR(check_type_fits(a.type, version, fmt::format("attribute '{}'", a.name)));
    h.attrs.push_back(to_nc_attr(a));
  }
  for (const auto& v : io.vars) {
    TAPIO_RETURN_IF_ERROR(validate_variable(v, record_dim));
    if (v.joined)  // docs/design.md, "Joined arrays in NetCDF files"
      return error(TAPIO_ERR_UNSUPPORTED,
                   "variable '{}' is a joined array, which this engine does not write: use "
                   "the collective engine (a CF ragged-array NetCDF file) or the subfile engine "
                   "(then `tapio convert` makes that NetCDF file)",
                   v.name);
    TAPIO_RETURN_IF_ERROR(check_type_fits(v.type, version, fmt::format("variable '{}'", v.name)));
    Var nv;
    nv.name = v.name;
    nv.type = to_nc_type(v.type);
    if (v.record) nv.dimids.push_back(record_id);
    for (size_t d = 0; d < v.shape.size(); ++d) {
      TAPIO_ASSIGN_OR_RETURN(int32_t id, dim_id(io, h, v.dim_names[d], v.shape[d], v.name));
      nv.dimids.push_back(id);
    }
    for (const auto& a : v.attrs) {
      TAPIO_RETURN_IF_ERROR(check_type_fits(
          a.type, version, fmt::format("attribute '{}' of variable '{}'", a.name, v.name)));
      nv.attrs.push_back(to_nc_attr(a));
    }
    h.vars.push_back(std::move(nv));
  }
  return h;
}

Result<IoDef> io_from_header(const Header& h, const std::string& io_name) {
  IoDef io;
  io.name = io_name;
  for (const auto& d : h.dims) io.dims.push_back(DimensionDef{d.name, d.length});
  for (const auto& a : h.attrs) io.attrs.push_back(from_nc_attr(a));
  for (const auto& nv : h.vars) {
    VariableDef v;
    v.name = nv.name;
    v.type = from_nc_type(nv.type);
    v.record = h.is_record(nv);
    for (size_t d = v.record ? 1 : 0; d < nv.dimids.size(); ++d) {
      v.shape.push_back(h.dims[nv.dimids[d]].length);
      v.dim_names.push_back(h.dims[nv.dimids[d]].name);
    }
    for (const auto& a : nv.attrs) v.attrs.push_back(from_nc_attr(a));
    io.vars.push_back(std::move(v));
  }
  return io;
}

}  // namespace tapio::netcdf
