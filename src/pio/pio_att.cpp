// Attributes: put in define mode (kept until the first flush), read from what the file or the
// program defined; a typed call converts as netCDF does.
#include <cstring>

#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// The attribute list of varid (NC_GLOBAL: the file's).
int att_list(int ncid, int varid, File** f, std::vector<Attr>** atts, std::string* what,
             const char* call) {
  if (int st = lookup(ncid, f, call)) return st;
  if (varid == NC_GLOBAL) {
    *atts = &(*f)->atts;
    *what = where(**f);
    return PIO_NOERR;
  }
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, f, &v, call)) return st;
  *atts = &v->atts;
  *what = where(**f, *v);
  return PIO_NOERR;
}

int put_att(int ncid, int varid, const char* name, nc_type xtype, PIO_Offset len,
            const void* op, nc_type memtype, const char* call) {
  File* f = nullptr;
  std::vector<Attr>* atts = nullptr;
  std::string what;
  if (int st = att_list(ncid, varid, &f, &atts, &what, call)) return st;
  if (!f->writable) return fail(f->ios, PIO_EPERM, std::string(call) + ": " + what + " is read-only");
  if (!f->define_mode)
    return fail(f->ios, PIO_ENOTINDEFINE, std::string(call) + ": " + what +
                ": attributes are added in define mode (PIOc_redef)");
  f->redefined = f->redefined || f->defined_in_tapio;  // made again at the next flush
  if (!name || !*name || std::strlen(name) > NC_MAX_NAME)
    return fail(f->ios, PIO_EBADNAME, std::string(call) + ": " + what + ": bad attribute name");
  if (!valid_type(xtype))
    return fail(f->ios, PIO_EBADTYPE, std::string(call) + ": " + what + ", attribute '" + name +
                "': bad type " + std::to_string(xtype));
  if (len < 0 || (len > 0 && !op))
    return fail(f->ios, PIO_EINVAL, std::string(call) + ": " + what + ", attribute '" + name +
                "': bad length or NULL data");
  Attr a{name, xtype, std::vector<unsigned char>(len * type_size(xtype))};
  const int converted = convert_values(op, memtype, a.bytes.data(), xtype, len);
  if (converted == PIO_ECHAR)
    return fail(f->ios, converted, std::string(call) + ": " + what + ", attribute '" + name +
                "': text and numbers do not convert");
  if (Attr* old = find_attr(*atts, name))
    *old = std::move(a);
  else
    atts->push_back(std::move(a));
  // netCDF stores what fits and reports the rest as a range error.
  return converted ? fail(f->ios, converted, std::string(call) + ": " + what + ", attribute '" +
                          name + "': a value does not fit its type")
                   : PIO_NOERR;
}

int find(int ncid, int varid, const char* name, File** f, Attr** a, const char* call) {
  std::vector<Attr>* atts = nullptr;
  std::string what;
  if (int st = att_list(ncid, varid, f, &atts, &what, call)) return st;
  *a = name ? find_attr(*atts, name) : nullptr;
  if (!*a)
    return fail((*f)->ios, PIO_ENOTATT, std::string(call) + ": " + what + " has no attribute '" +
                (name ? name : "") + "'");
  return PIO_NOERR;
}

int get_att(int ncid, int varid, const char* name, void* ip, nc_type memtype, const char* call) {
  File* f = nullptr;
  Attr* a = nullptr;
  if (int st = find(ncid, varid, name, &f, &a, call)) return st;
  if (!ip) return fail(f->ios, PIO_EINVAL, std::string(call) + ": NULL buffer");
  const nc_type to = memtype == NC_NAT ? a->type : memtype;
  const int st = convert_values(a->bytes.data(), a->type, ip, to,
                                a->bytes.size() / type_size(a->type));
  return st ? fail(f->ios, st, std::string(call) + ": " + where(*f) + ", attribute '" + name +
                   "': " + (st == PIO_ECHAR ? "text and numbers do not convert"
                                            : "a value does not fit the memory type"))
            : PIO_NOERR;
}

}  // namespace
}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_put_att(int ncid, int varid, const char* name, nc_type xtype, PIO_Offset len,
                 const void* op) {
  return put_att(ncid, varid, name, xtype, len, op, xtype, "PIOc_put_att");
}

int PIOc_get_att(int ncid, int varid, const char* name, void* ip) {
  return get_att(ncid, varid, name, ip, NC_NAT, "PIOc_get_att");
}

int PIOc_put_att_text(int ncid, int varid, const char* name, PIO_Offset len, const char* op) {
  return put_att(ncid, varid, name, NC_CHAR, len, op, NC_CHAR, "PIOc_put_att_text");
}

int PIOc_get_att_text(int ncid, int varid, const char* name, char* ip) {
  return get_att(ncid, varid, name, ip, NC_CHAR, "PIOc_get_att_text");
}

#define TAPIO_PIO_ATT(S, T, NC)                                                            \
  int PIOc_put_att_##S(int ncid, int varid, const char* name, nc_type xtype,              \
                       PIO_Offset len, const T* op) {                                     \
    return put_att(ncid, varid, name, xtype, len, op, NC, "PIOc_put_att_" #S);            \
  }                                                                                       \
  int PIOc_get_att_##S(int ncid, int varid, const char* name, T* ip) {                    \
    return get_att(ncid, varid, name, ip, NC, "PIOc_get_att_" #S);                        \
  }
TAPIO_PIO_ATT(schar, signed char, NC_BYTE)
TAPIO_PIO_ATT(short, short, NC_SHORT)
TAPIO_PIO_ATT(int, int, NC_INT)
TAPIO_PIO_ATT(long, long, (sizeof(long) == 8 ? NC_INT64 : NC_INT))
TAPIO_PIO_ATT(float, float, NC_FLOAT)
TAPIO_PIO_ATT(double, double, NC_DOUBLE)
TAPIO_PIO_ATT(uchar, unsigned char, NC_UBYTE)
TAPIO_PIO_ATT(ushort, unsigned short, NC_USHORT)
TAPIO_PIO_ATT(uint, unsigned int, NC_UINT)
TAPIO_PIO_ATT(longlong, long long, NC_INT64)
TAPIO_PIO_ATT(ulonglong, unsigned long long, NC_UINT64)
#undef TAPIO_PIO_ATT

int PIOc_inq_att(int ncid, int varid, const char* name, nc_type* xtypep, PIO_Offset* lenp) {
  File* f = nullptr;
  Attr* a = nullptr;
  if (int st = find(ncid, varid, name, &f, &a, "PIOc_inq_att")) return st;
  if (xtypep) *xtypep = a->type;
  if (lenp) *lenp = static_cast<PIO_Offset>(a->bytes.size() / type_size(a->type));
  return PIO_NOERR;
}

int PIOc_inq_attlen(int ncid, int varid, const char* name, PIO_Offset* lenp) {
  return PIOc_inq_att(ncid, varid, name, nullptr, lenp);
}

int PIOc_inq_atttype(int ncid, int varid, const char* name, nc_type* xtypep) {
  return PIOc_inq_att(ncid, varid, name, xtypep, nullptr);
}

int PIOc_inq_attid(int ncid, int varid, const char* name, int* idp) {
  File* f = nullptr;
  std::vector<Attr>* atts = nullptr;
  std::string what;
  if (int st = att_list(ncid, varid, &f, &atts, &what, "PIOc_inq_attid")) return st;
  for (size_t i = 0; name && i < atts->size(); ++i)
    if ((*atts)[i].name == name) {
      if (idp) *idp = static_cast<int>(i);
      return PIO_NOERR;
    }
  return fail(f->ios, PIO_ENOTATT, "PIOc_inq_attid: " + what + " has no such attribute");
}

int PIOc_inq_attname(int ncid, int varid, int attnum, char* name) {
  File* f = nullptr;
  std::vector<Attr>* atts = nullptr;
  std::string what;
  if (int st = att_list(ncid, varid, &f, &atts, &what, "PIOc_inq_attname")) return st;
  if (attnum < 0 || attnum >= static_cast<int>(atts->size()))
    return fail(f->ios, PIO_ENOTATT, "PIOc_inq_attname: " + what + " has no attribute " +
                std::to_string(attnum));
  if (name) std::strcpy(name, (*atts)[attnum].name.c_str());
  return PIO_NOERR;
}

int PIOc_del_att(int ncid, int varid, const char* name) {
  File* f = nullptr;
  std::vector<Attr>* atts = nullptr;
  std::string what;
  if (int st = att_list(ncid, varid, &f, &atts, &what, "PIOc_del_att")) return st;
  if (!f->define_mode)
    return fail(f->ios, PIO_ENOTINDEFINE, "PIOc_del_att: " + what + " is not in define mode");
  f->redefined = f->redefined || f->defined_in_tapio;
  for (auto it = atts->begin(); name && it != atts->end(); ++it)
    if (it->name == name) {
      atts->erase(it);
      return PIO_NOERR;
    }
  return fail(f->ios, PIO_ENOTATT, "PIOc_del_att: " + what + " has no such attribute");
}

int PIOc_rename_att(int ncid, int varid, const char* name, const char* newname) {
  File* f = nullptr;
  Attr* a = nullptr;
  if (int st = find(ncid, varid, name, &f, &a, "PIOc_rename_att")) return st;
  if (!newname || !*newname) return fail(f->ios, PIO_EBADNAME, "PIOc_rename_att: bad name");
  a->name = newname;
  return PIO_NOERR;
}

}  // extern "C"
