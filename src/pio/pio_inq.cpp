// Inquiries about a file's format, dimensions, variables and types.
#include <cstring>

#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// The unlimited dimension's length: the frames written and held.
uint64_t record_count(const File& f) {
  uint64_t n = f.frames;
  for (const Held& h : f.held)
    if (f.vars[h.var].record && h.frame + 1 > n) n = h.frame + 1;
  return n;
}

int check_dim(int ncid, int dimid, File** f, const char* call) {
  if (int st = lookup(ncid, f, call)) return st;
  if (dimid < 0 || dimid >= static_cast<int>((*f)->dims.size()))
    return fail((*f)->ios, PIO_EBADDIM, std::string(call) + ": " + where(**f) +
                " has no dimension " + std::to_string(dimid));
  return PIO_NOERR;
}

const char* type_name(nc_type t) {
  static const char* names[] = {"", "byte", "char", "short", "int", "float", "double",
                                "ubyte", "ushort", "uint", "int64", "uint64"};
  return valid_type(t) ? names[t] : "";
}

}  // namespace
}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_inq_format(int ncid, int* formatp) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_inq_format")) return st;
  if (formatp)
    *formatp = (f->mode & NC_64BIT_DATA)     ? NC_FORMAT_CDF5
               : (f->mode & NC_64BIT_OFFSET) ? NC_FORMAT_64BIT_OFFSET
                                             : NC_FORMAT_CLASSIC;
  return PIO_NOERR;
}

int PIOc_inq(int ncid, int* ndimsp, int* nvarsp, int* ngattsp, int* unlimdimidp) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_inq")) return st;
  if (ndimsp) *ndimsp = static_cast<int>(f->dims.size());
  if (nvarsp) *nvarsp = static_cast<int>(f->vars.size());
  if (ngattsp) *ngattsp = static_cast<int>(f->atts.size());
  if (unlimdimidp) *unlimdimidp = f->unlimited();
  return PIO_NOERR;
}

int PIOc_inq_ndims(int ncid, int* p) { return PIOc_inq(ncid, p, nullptr, nullptr, nullptr); }
int PIOc_inq_nvars(int ncid, int* p) { return PIOc_inq(ncid, nullptr, p, nullptr, nullptr); }
int PIOc_inq_natts(int ncid, int* p) { return PIOc_inq(ncid, nullptr, nullptr, p, nullptr); }
int PIOc_inq_unlimdim(int ncid, int* p) { return PIOc_inq(ncid, nullptr, nullptr, nullptr, p); }

int PIOc_inq_unlimdims(int ncid, int* nunlimdimsp, int* unlimdimidsp) {
  int unlim = -1;
  if (int st = PIOc_inq(ncid, nullptr, nullptr, nullptr, &unlim)) return st;
  if (nunlimdimsp) *nunlimdimsp = unlim >= 0 ? 1 : 0;
  if (unlimdimidsp && unlim >= 0) *unlimdimidsp = unlim;
  return PIO_NOERR;
}

int PIOc_inq_type(int ncid, nc_type xtype, char* name, PIO_Offset* sizep) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_inq_type")) return st;
  if (!valid_type(xtype))
    return fail(f->ios, PIO_EBADTYPE, "PIOc_inq_type: bad type " + std::to_string(xtype));
  if (name) std::strcpy(name, type_name(xtype));
  if (sizep) *sizep = static_cast<PIO_Offset>(type_size(xtype));
  return PIO_NOERR;
}

int PIOc_inq_dim(int ncid, int dimid, char* name, PIO_Offset* lenp) {
  File* f = nullptr;
  if (int st = check_dim(ncid, dimid, &f, "PIOc_inq_dim")) return st;
  if (name) std::strcpy(name, f->dims[dimid].name.c_str());
  if (lenp)
    *lenp = static_cast<PIO_Offset>(f->dims[dimid].len ? f->dims[dimid].len : record_count(*f));
  return PIO_NOERR;
}

int PIOc_inq_dimname(int ncid, int dimid, char* name) {
  return PIOc_inq_dim(ncid, dimid, name, nullptr);
}
int PIOc_inq_dimlen(int ncid, int dimid, PIO_Offset* lenp) {
  return PIOc_inq_dim(ncid, dimid, nullptr, lenp);
}

int PIOc_inq_dimid(int ncid, const char* name, int* idp) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_inq_dimid")) return st;
  for (size_t d = 0; name && d < f->dims.size(); ++d)
    if (f->dims[d].name == name) {
      if (idp) *idp = static_cast<int>(d);
      return PIO_NOERR;
    }
  return fail(f->ios, PIO_EBADDIM, "PIOc_inq_dimid: " + where(*f) + " has no dimension '" +
              (name ? name : "") + "'");
}

int PIOc_inq_varid(int ncid, const char* name, int* varidp) {
  File* f = nullptr;
  if (int st = lookup(ncid, &f, "PIOc_inq_varid")) return st;
  for (size_t i = 0; name && i < f->vars.size(); ++i)
    if (f->vars[i].name == name) {
      if (varidp) *varidp = static_cast<int>(i);
      return PIO_NOERR;
    }
  return fail(f->ios, PIO_ENOTVAR, "PIOc_inq_varid: " + where(*f) + " has no variable '" +
              (name ? name : "") + "'");
}

int PIOc_inq_var(int ncid, int varid, char* name, nc_type* xtypep, int* ndimsp, int* dimidsp,
                 int* nattsp) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, "PIOc_inq_var")) return st;
  if (name) std::strcpy(name, v->name.c_str());
  if (xtypep) *xtypep = v->type;
  if (ndimsp) *ndimsp = static_cast<int>(v->dimids.size());
  if (dimidsp)
    for (size_t d = 0; d < v->dimids.size(); ++d) dimidsp[d] = v->dimids[d];
  if (nattsp) *nattsp = static_cast<int>(v->atts.size());
  return PIO_NOERR;
}

int PIOc_inq_varname(int ncid, int varid, char* name) {
  return PIOc_inq_var(ncid, varid, name, nullptr, nullptr, nullptr, nullptr);
}
int PIOc_inq_vartype(int ncid, int varid, nc_type* xtypep) {
  return PIOc_inq_var(ncid, varid, nullptr, xtypep, nullptr, nullptr, nullptr);
}
int PIOc_inq_varndims(int ncid, int varid, int* ndimsp) {
  return PIOc_inq_var(ncid, varid, nullptr, nullptr, ndimsp, nullptr, nullptr);
}
int PIOc_inq_vardimid(int ncid, int varid, int* dimidsp) {
  return PIOc_inq_var(ncid, varid, nullptr, nullptr, nullptr, dimidsp, nullptr);
}
int PIOc_inq_varnatts(int ncid, int varid, int* nattsp) {
  if (varid == NC_GLOBAL) return PIOc_inq_natts(ncid, nattsp);
  return PIOc_inq_var(ncid, varid, nullptr, nullptr, nullptr, nullptr, nattsp);
}

}  // extern "C"
