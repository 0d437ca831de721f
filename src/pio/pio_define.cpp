// Define mode: dimensions, variables and fill settings, kept by the PIO layer until the
// file's first flush gives them to tapio.
#include <cstring>

#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// The checks every definition call shares: a writable file in define mode.
int definable(int ncid, File** f, const char* call) {
  if (int st = lookup(ncid, f, call)) return st;
  if (!(*f)->writable)
    return fail((*f)->ios, PIO_EPERM, std::string(call) + ": " + where(**f) + " is read-only");
  if (!(*f)->define_mode)
    return fail((*f)->ios, PIO_ENOTINDEFINE, std::string(call) + ": " + where(**f) +
                " is not in define mode (call PIOc_redef)");
  // After tapio laid the header out, the file is made again at the next flush.
  (*f)->redefined = (*f)->redefined || (*f)->defined_in_tapio;
  return PIO_NOERR;
}

bool valid_name(const char* name) {
  return name && *name && std::strlen(name) <= NC_MAX_NAME && !std::strchr(name, '/');
}

}  // namespace

Attr* find_attr(std::vector<Attr>& atts, const std::string& name) {
  for (Attr& a : atts)
    if (a.name == name) return &a;
  return nullptr;
}

void fill_value(const Var& v, void* out) {
  for (const Attr& a : v.atts)
    if (a.name == "_FillValue") {
      std::memcpy(out, a.bytes.data(), type_size(v.type));
      return;
    }
  default_fill(v.type, out);
}

bool tapio_fills(const File& f) {
  if (f.fill_mode == NC_FILL) return true;
  for (const Var& v : f.vars)
    if (v.no_fill == 0) return true;
  return false;
}

}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_def_dim(int ncid, const char* name, PIO_Offset len, int* idp) {
  File* f = nullptr;
  if (int st = definable(ncid, &f, "PIOc_def_dim")) return st;
  if (!valid_name(name))
    return fail(f->ios, PIO_EBADNAME, "PIOc_def_dim: " + where(*f) + ": bad dimension name");
  if (len < 0) return fail(f->ios, PIO_EDIMSIZE, "PIOc_def_dim: " + where(*f) +
                                                     ": dimension '" + name + "' length < 0");
  for (const Dim& d : f->dims)
    if (d.name == name)
      return fail(f->ios, PIO_ENAMEINUSE, "PIOc_def_dim: " + where(*f) + ": dimension '" +
                  name + "' exists");
  if (len == NC_UNLIMITED && f->unlimited() >= 0)
    return fail(f->ios, PIO_EUNLIMIT, "PIOc_def_dim: " + where(*f) +
                " already has an unlimited dimension");
  f->dims.push_back(Dim{name, static_cast<uint64_t>(len)});
  if (idp) *idp = static_cast<int>(f->dims.size() - 1);
  return PIO_NOERR;
}

int PIOc_def_var(int ncid, const char* name, nc_type xtype, int ndims, const int* dimidsp,
                 int* varidp) {
  File* f = nullptr;
  if (int st = definable(ncid, &f, "PIOc_def_var")) return st;
  if (!valid_name(name))
    return fail(f->ios, PIO_EBADNAME, "PIOc_def_var: " + where(*f) + ": bad variable name");
  if (!valid_type(xtype))
    return fail(f->ios, PIO_EBADTYPE, "PIOc_def_var: " + where(*f) + ", variable '" + name +
                "': type " + std::to_string(xtype) + " is not a classic netCDF type");
  if (ndims < 0 || (ndims > 0 && !dimidsp))
    return fail(f->ios, PIO_EINVAL, "PIOc_def_var: " + where(*f) + ": bad ndims or dimids");
  for (const Var& v : f->vars)
    if (v.name == name)
      return fail(f->ios, PIO_ENAMEINUSE, "PIOc_def_var: " + where(*f) + ": variable '" +
                  name + "' exists");
  Var v;
  v.name = name;
  v.type = xtype;
  for (int d = 0; d < ndims; ++d) {
    if (dimidsp[d] < 0 || dimidsp[d] >= static_cast<int>(f->dims.size()))
      return fail(f->ios, PIO_EBADDIM, "PIOc_def_var: " + where(*f) + ", variable '" + name +
                  "': no dimension " + std::to_string(dimidsp[d]));
    if (f->dims[dimidsp[d]].len == 0 && d > 0)
      return fail(f->ios, PIO_EUNLIMPOS, "PIOc_def_var: " + where(*f) + ", variable '" +
                  name + "': the unlimited dimension must come first");
    v.dimids.push_back(dimidsp[d]);
  }
  v.record = ndims > 0 && f->dims[dimidsp[0]].len == 0;
  f->vars.push_back(std::move(v));
  if (varidp) *varidp = static_cast<int>(f->vars.size() - 1);
  return PIO_NOERR;
}

int PIOc_set_fill(int ncid, int fillmode, int* old_modep) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_set_fill")) return st;
  if (!f->writable) return fail(f->ios, PIO_EPERM, "PIOc_set_fill: " + where(*f) + " is read-only");
  if (fillmode != NC_FILL && fillmode != NC_NOFILL)
    return fail(f->ios, PIO_EINVAL, "PIOc_set_fill: " + where(*f) + ": unknown fill mode");
  if (old_modep) *old_modep = f->fill_mode;
  f->fill_mode = fillmode;
  return PIO_NOERR;
}

int PIOc_def_var_fill(int ncid, int varid, int no_fill, const void* fill_value) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, "PIOc_def_var_fill")) return st;
  if (int st = definable(ncid, &f, "PIOc_def_var_fill")) return st;
  v->no_fill = no_fill ? 1 : 0;
  if (no_fill || !fill_value) return PIO_NOERR;
  Attr a{"_FillValue", v->type, {}};
  const auto* bytes = static_cast<const unsigned char*>(fill_value);
  a.bytes.assign(bytes, bytes + type_size(v->type));
  if (Attr* old = find_attr(v->atts, a.name))
    *old = std::move(a);
  else
    v->atts.push_back(std::move(a));
  return PIO_NOERR;
}

int PIOc_inq_var_fill(int ncid, int varid, int* no_fill, void* fill_valuep) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, "PIOc_inq_var_fill")) return st;
  if (no_fill) *no_fill = v->no_fill >= 0 ? v->no_fill : f->fill_mode == NC_NOFILL;
  if (fill_valuep) fill_value(*v, fill_valuep);
  return PIO_NOERR;
}

int PIOc_def_var_deflate(int ncid, int, int, int, int) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_def_var_deflate")) return st;
  return fail(f->ios, PIO_ENOTNC4, "PIOc_def_var_deflate: " + where(*f) +
              " is a classic file (tapio writes no NetCDF-4)");
}

int PIOc_def_var_quantize(int ncid, int, int, int) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_def_var_quantize")) return st;
  return fail(f->ios, PIO_ENOTNC4, "PIOc_def_var_quantize: " + where(*f) +
              " is a classic file (tapio writes no NetCDF-4)");
}

int PIOc_rename_dim(int ncid, int dimid, const char* name) {
  File* f = nullptr;
  if (int st = definable(ncid, &f, "PIOc_rename_dim")) return st;
  if (dimid < 0 || dimid >= static_cast<int>(f->dims.size()))
    return fail(f->ios, PIO_EBADDIM, "PIOc_rename_dim: " + where(*f) + ": no such dimension");
  if (!valid_name(name)) return fail(f->ios, PIO_EBADNAME, "PIOc_rename_dim: bad name");
  f->dims[dimid].name = name;
  return PIO_NOERR;
}

int PIOc_rename_var(int ncid, int varid, const char* name) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, "PIOc_rename_var")) return st;
  if (int st = definable(ncid, &f, "PIOc_rename_var")) return st;
  if (!valid_name(name)) return fail(f->ios, PIO_EBADNAME, "PIOc_rename_var: bad name");
  v->name = name;
  return PIO_NOERR;
}

}  // extern "C"
