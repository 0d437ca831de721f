// Box access (put/get_var, _var1, _vara, _vars): PIO writes the first task's data (every
// task passes the same), held until the next flush; every task reads. A strided box goes to
// tapio as the offsets of its elements, record by record.
#include <cstring>
#include <memory>

#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

struct Box {
  std::vector<uint64_t> start, count, stride;  // every dimension, the record one included
  bool strided() const {
    for (uint64_t s : stride)
      if (s != 1) return true;
    return false;
  }
};

// The box of a call: whole (start/count null), one element (count null) or given; stride
// null: unit strides.
int make_box(const File& f, const Var& v, const PIO_Offset* start, const PIO_Offset* count,
             const PIO_Offset* stride, bool whole, Box* box, const char* call) {
  const size_t n = v.dimids.size();
  for (size_t d = 0; d < n; ++d) {
    const uint64_t len = f.dims[v.dimids[d]].len ? f.dims[v.dimids[d]].len : f.frames;
    const uint64_t s = whole || !start ? 0 : static_cast<uint64_t>(start[d]);
    const uint64_t c = whole ? len : count ? static_cast<uint64_t>(count[d]) : 1;
    if ((start && start[d] < 0) || (count && count[d] < 0))
      return fail(f.ios, PIO_EINVALCOORDS, std::string(call) + ": " + where(f, v) +
                  ": negative start or count");
    if (stride && stride[d] < 1)
      return fail(f.ios, PIO_ESTRIDE, std::string(call) + ": " + where(f, v) + ": stride " +
                  std::to_string(stride[d]) + " along dimension '" +
                  f.dims[v.dimids[d]].name + "' (at least 1)");
    const uint64_t st = stride ? static_cast<uint64_t>(stride[d]) : 1;
    const uint64_t extent = c ? (c - 1) * st + 1 : 0;  // the elements the box spans
    const bool record = v.record && d == 0;
    if (!record && (s > len || extent > len - s))
      return fail(f.ios, s > len ? PIO_EINVALCOORDS : PIO_EEDGE,
                  std::string(call) + ": " + where(f, v) + ": start + count beyond dimension '" +
                  f.dims[v.dimids[d]].name + "'");
    box->start.push_back(s);
    box->count.push_back(c);
    box->stride.push_back(st);
  }
  return PIO_NOERR;
}

// The offsets, in one record, of a strided box's elements.
std::shared_ptr<const std::vector<uint64_t>> strided_offsets(const File& f, const Var& v,
                                                             const Box& box) {
  const size_t first = v.record ? 1 : 0;
  return std::make_shared<const std::vector<uint64_t>>(
      box_offsets(record_shape(f, v), box.start.data() + first, box.count.data() + first,
                  box.stride.data() + first));
}

uint64_t elements(const std::vector<uint64_t>& count, size_t from) {
  uint64_t n = 1;
  for (size_t d = from; d < count.size(); ++d) n *= count[d];
  return n;
}

// Write mode: task 0 holds the box, in the variable's type, one Held per record of a record
// variable. A value the type cannot hold is PIO_ERANGE now, as netCDF reports it (the others
// are still written); boxes are small, so they are converted here, element by element.
int hold_box(File& f, int varid, const Box& box, nc_type memtype, const void* buf) {
  const Var& v = f.vars[varid];
  const size_t first = v.record ? 1 : 0;
  const uint64_t records = v.record ? box.count[0] : 1;
  const uint64_t n = elements(box.count, first);
  const size_t in_bytes = n * type_size(memtype);
  int code = PIO_NOERR;
  const auto offsets = box.strided() ? strided_offsets(f, v, box) : nullptr;
  for (uint64_t r = 0; f.ios->rank == 0 && n > 0 && r < records; ++r) {
    Held h;
    h.var = varid;
    h.frame = v.record ? box.start[0] + r * box.stride[0] : 0;
    h.offsets = offsets;
    if (!offsets) {
      h.start.assign(box.start.begin() + first, box.start.end());
      h.count.assign(box.count.begin() + first, box.count.end());
    }
    h.memtype = to_tapio(v.type);
    h.data.resize(n * type_size(v.type));
    const int st = convert_values(static_cast<const unsigned char*>(buf) + r * in_bytes,
                                  memtype, h.data.data(), v.type, n);
    if (code == PIO_NOERR) code = st;
    f.held.push_back(std::move(h));
  }
  return code;
}

// The gets of a box, queued: the box itself, or a strided one's offsets record by record
// (each record a tapio_get of its own step).
int queue_gets(const File& f, const Var& v, tapio_engine* engine, tapio_var* handle,
               const Box& box, nc_type memtype, void* buf) {
  const size_t first = v.record ? 1 : 0;
  if (!box.strided()) {
    int st = TAPIO_OK;
    if (v.record) st = tapio_var_set_step_selection(handle, box.start[0], box.count[0]);
    return st != TAPIO_OK ? st
                          : tapio_get_sel(engine, handle, box.start.data() + first,
                                          box.count.data() + first, to_tapio(memtype), buf);
  }
  const auto offsets = strided_offsets(f, v, box);
  const uint64_t records = v.record ? box.count[0] : 1;
  int st = tapio_var_set_offsets(handle, offsets->size(), offsets->data());
  for (uint64_t r = 0; st == TAPIO_OK && r < records && !offsets->empty(); ++r) {
    if (v.record) st = tapio_var_set_step_selection(handle, box.start[0] + r * box.stride[0], 1);
    if (st == TAPIO_OK)
      st = tapio_get(engine, handle, to_tapio(memtype),
                     static_cast<unsigned char*>(buf) + r * offsets->size() * type_size(memtype));
  }
  return st;
}

int get_box(File& f, Var& v, const Box& box, nc_type memtype, void* buf, const char* call) {
  tapio_engine* engine = nullptr;
  tapio_var* handle = nullptr;
  if (int st = reading(f, v, &engine, &handle, call)) return st;
  int st = queue_gets(f, v, engine, handle, box, memtype, buf);
  std::string why = st == TAPIO_OK ? "" : tapio_last_error();
  const int performed = tapio_perform_gets(engine);  // collective, whatever this task saw
  if (st == TAPIO_OK && performed != TAPIO_OK) {
    st = performed;
    why = tapio_last_error();
  }
  return st == TAPIO_OK ? PIO_NOERR
                        : fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f, v) +
                                                          ": " + why);
}

// A put (in) or a get (out) of a box.
int access(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
           const PIO_Offset* stride, bool whole, nc_type memtype, const void* in, void* out,
           bool put, const char* call) {
  File* f = nullptr;
  Var* v = nullptr;
  if (int st = lookup_var(ncid, varid, &f, &v, call)) return st;
  if (memtype == NC_NAT) memtype = v->type;
  if (!valid_type(memtype))
    return fail(f->ios, PIO_EBADTYPE, std::string(call) + ": " + where(*f, *v) + ": bad type");
  if ((memtype == NC_CHAR) != (v->type == NC_CHAR))
    return fail(f->ios, PIO_ECHAR, std::string(call) + ": " + where(*f, *v) +
                ": text and numbers do not convert");
  if (put ? !in : !out)
    return fail(f->ios, PIO_EINVAL, std::string(call) + ": " + where(*f, *v) + ": NULL buffer");
  if (put && !f->writable)
    return fail(f->ios, PIO_EPERM, std::string(call) + ": " + where(*f) + " is read-only");
  if (put && f->define_mode)
    return fail(f->ios, PIO_EINDEFINE, std::string(call) + ": " + where(*f) +
                " is in define mode");
  Box box;
  if (int st = make_box(*f, *v, start, count, stride, whole, &box, call)) return st;
  if (put) {
    // Task 0's data is written (PIO's rule): its range error is every task's.
    const int st = agree(*f->ios, hold_box(*f, varid, box, memtype, in),
                         std::string(call) + ": " + where(*f, *v) +
                         ": a value does not fit the variable's type");
    return st;
  }
  return get_box(*f, *v, box, memtype, out, call);
}

}  // namespace

std::vector<uint64_t> record_shape(const File& f, const Var& v) {
  std::vector<uint64_t> shape;
  for (size_t d = v.record ? 1 : 0; d < v.dimids.size(); ++d)
    shape.push_back(f.dims[v.dimids[d]].len);
  return shape;
}

std::vector<uint64_t> box_offsets(const std::vector<uint64_t>& shape, const uint64_t* start,
                                  const uint64_t* count, const uint64_t* stride) {
  uint64_t n = 1;
  for (size_t d = 0; d < shape.size(); ++d) n *= count[d];
  std::vector<uint64_t> out(n);
  for (uint64_t i = 0; i < n; ++i) {  // element i of the box, C order
    uint64_t rest = i, offset = 0, scale = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      offset += (start[d] + rest % count[d] * (stride ? stride[d] : 1)) * scale;
      rest /= count[d];
      scale *= shape[d];
    }
    out[i] = offset;
  }
  return out;
}

}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_put_var(int ncid, int varid, const void* buf) {
  return access(ncid, varid, nullptr, nullptr, nullptr, true, NC_NAT, buf, nullptr, true,
                "PIOc_put_var");
}
int PIOc_get_var(int ncid, int varid, void* buf) {
  return access(ncid, varid, nullptr, nullptr, nullptr, true, NC_NAT, nullptr, buf, false,
                "PIOc_get_var");
}
int PIOc_put_var1(int ncid, int varid, const PIO_Offset* index, const void* buf) {
  return access(ncid, varid, index, nullptr, nullptr, false, NC_NAT, buf, nullptr, true,
                "PIOc_put_var1");
}
int PIOc_get_var1(int ncid, int varid, const PIO_Offset* index, void* buf) {
  return access(ncid, varid, index, nullptr, nullptr, false, NC_NAT, nullptr, buf, false,
                "PIOc_get_var1");
}
int PIOc_put_vara(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  const void* buf) {
  return access(ncid, varid, start, count, nullptr, false, NC_NAT, buf, nullptr, true,
                "PIOc_put_vara");
}
int PIOc_get_vara(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  void* buf) {
  return access(ncid, varid, start, count, nullptr, false, NC_NAT, nullptr, buf, false,
                "PIOc_get_vara");
}
int PIOc_put_vars(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  const PIO_Offset* stride, const void* buf) {
  return access(ncid, varid, start, count, stride, false, NC_NAT, buf, nullptr, true,
                "PIOc_put_vars");
}
int PIOc_get_vars(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                  const PIO_Offset* stride, void* buf) {
  return access(ncid, varid, start, count, stride, false, NC_NAT, nullptr, buf, false,
                "PIOc_get_vars");
}
int PIOc_put_vars_tc(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                     const PIO_Offset* stride, nc_type xtype, const void* buf) {
  return access(ncid, varid, start, count, stride, !start && !count, xtype, buf, nullptr, true,
                "PIOc_put_vars_tc");
}
int PIOc_get_vars_tc(int ncid, int varid, const PIO_Offset* start, const PIO_Offset* count,
                     const PIO_Offset* stride, nc_type xtype, void* buf) {
  return access(ncid, varid, start, count, stride, !start && !count, xtype, nullptr, buf, false,
                "PIOc_get_vars_tc");
}

#define TAPIO_PIO_ACCESS(S, T, NC)                                                           \
  int PIOc_put_var_##S(int ncid, int varid, const T* op) {                                  \
    return access(ncid, varid, nullptr, nullptr, nullptr, true, NC, op, nullptr, true,            \
                  "PIOc_put_var_" #S);                                                      \
  }                                                                                         \
  int PIOc_get_var_##S(int ncid, int varid, T* buf) {                                       \
    return access(ncid, varid, nullptr, nullptr, nullptr, true, NC, nullptr, buf, false,           \
                  "PIOc_get_var_" #S);                                                      \
  }                                                                                         \
  int PIOc_put_var1_##S(int ncid, int varid, const PIO_Offset* index, const T* op) {        \
    return access(ncid, varid, index, nullptr, nullptr, false, NC, op, nullptr, true,             \
                  "PIOc_put_var1_" #S);                                                     \
  }                                                                                         \
  int PIOc_get_var1_##S(int ncid, int varid, const PIO_Offset* index, T* buf) {             \
    return access(ncid, varid, index, nullptr, nullptr, false, NC, nullptr, buf, false,            \
                  "PIOc_get_var1_" #S);                                                     \
  }                                                                                         \
  int PIOc_put_vara_##S(int ncid, int varid, const PIO_Offset* start,                       \
                        const PIO_Offset* count, const T* op) {                             \
    return access(ncid, varid, start, count, nullptr, false, NC, op, nullptr, true,               \
                  "PIOc_put_vara_" #S);                                                     \
  }                                                                                         \
  int PIOc_get_vara_##S(int ncid, int varid, const PIO_Offset* start,                       \
                        const PIO_Offset* count, T* buf) {                                  \
    return access(ncid, varid, start, count, nullptr, false, NC, nullptr, buf, false,              \
                  "PIOc_get_vara_" #S);                                                     \
  }                                                                                         \
  int PIOc_put_vars_##S(int ncid, int varid, const PIO_Offset* start,                       \
                        const PIO_Offset* count, const PIO_Offset* stride, const T* op) {   \
    return access(ncid, varid, start, count, stride, false, NC, op, nullptr, true,                \
                  "PIOc_put_vars_" #S);                                                     \
  }                                                                                         \
  int PIOc_get_vars_##S(int ncid, int varid, const PIO_Offset* start,                       \
                        const PIO_Offset* count, const PIO_Offset* stride, T* buf) {        \
    return access(ncid, varid, start, count, stride, false, NC, nullptr, buf, false,               \
                  "PIOc_get_vars_" #S);                                                     \
  }
TAPIO_PIO_ACCESS(text, char, NC_CHAR)
TAPIO_PIO_ACCESS(schar, signed char, NC_BYTE)
TAPIO_PIO_ACCESS(short, short, NC_SHORT)
TAPIO_PIO_ACCESS(int, int, NC_INT)
TAPIO_PIO_ACCESS(long, long, (sizeof(long) == 8 ? NC_INT64 : NC_INT))
TAPIO_PIO_ACCESS(float, float, NC_FLOAT)
TAPIO_PIO_ACCESS(double, double, NC_DOUBLE)
TAPIO_PIO_ACCESS(uchar, unsigned char, NC_UBYTE)
TAPIO_PIO_ACCESS(ushort, unsigned short, NC_USHORT)
TAPIO_PIO_ACCESS(uint, unsigned int, NC_UINT)
TAPIO_PIO_ACCESS(longlong, long long, NC_INT64)
TAPIO_PIO_ACCESS(ulonglong, unsigned long long, NC_UINT64)
#undef TAPIO_PIO_ACCESS

}  // extern "C"
