// Opening an existing file: tapio's engine reads the header; the PIO layer takes its
// dimensions, variables and attributes, numbered as netCDF numbers them.
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

int read_attrs(File& f, const char* var, std::vector<Attr>* out) {
  size_t n = 0;
  int st = tapio_io_attribute_count(f.io, var, &n);
  for (size_t i = 0; st == TAPIO_OK && i < n; ++i) {
    const char* name = nullptr;
    tapio_type type = TAPIO_CHAR;
    size_t count = 0;
    st = tapio_io_attribute_name(f.io, var, i, &name);
    if (st == TAPIO_OK) st = tapio_inquire_attribute(f.io, var, name, &type, &count);
    if (st != TAPIO_OK) break;
    Attr a;
    a.name = name;
    a.type = from_tapio(type);
    a.bytes.resize(count * type_size(a.type));
    st = tapio_read_attribute(f.io, var, name, a.bytes.data());
    out->push_back(std::move(a));
  }
  return st;
}

int dim_id(File& f, const std::string& name, uint64_t len) {
  for (size_t d = 0; d < f.dims.size(); ++d)
    if (f.dims[d].name == name && f.dims[d].len == len) return static_cast<int>(d);
  // Not in the header (a subfile dataset): a dimension of its own.
  f.dims.push_back(Dim{name, len});
  return static_cast<int>(f.dims.size() - 1);
}

int read_var(File& f, size_t index, bool has_record) {
  const char* name = nullptr;
  int st = tapio_io_variable_name(f.io, index, &name);
  Var v;
  if (st == TAPIO_OK) st = tapio_inquire_variable(f.io, name, &v.handle);
  tapio_type type = TAPIO_CHAR;
  int ndims = 0, is_record = 0;
  if (st == TAPIO_OK) st = tapio_var_type(v.handle, &type);
  if (st == TAPIO_OK) st = tapio_var_ndims(v.handle, &ndims);
  if (st == TAPIO_OK) st = tapio_var_is_record(v.handle, &is_record);
  std::vector<uint64_t> shape(ndims);
  if (st == TAPIO_OK && ndims > 0) st = tapio_var_shape(v.handle, shape.data());
  if (st != TAPIO_OK) return st;
  v.name = name;
  v.type = from_tapio(type);
  v.record = is_record != 0 && has_record;
  if (v.record) v.dimids.push_back(f.unlimited());
  for (int d = 0; d < ndims && st == TAPIO_OK; ++d) {
    const char* dim = nullptr;
    st = tapio_var_dim_name(v.handle, d, &dim);
    if (st == TAPIO_OK) v.dimids.push_back(dim_id(f, dim, shape[d]));
  }
  if (st == TAPIO_OK) st = read_attrs(f, v.name.c_str(), &v.atts);
  f.vars.push_back(std::move(v));
  return st;
}

// Whether any variable of the file is a record variable (the file then has an unlimited
// dimension, which gets dimid 0).
int any_record(File& f, size_t nvars, bool* out) {
  *out = false;
  for (size_t i = 0; i < nvars; ++i) {
    const char* name = nullptr;
    tapio_var* v = nullptr;
    int rec = 0;
    int st = tapio_io_variable_name(f.io, i, &name);
    if (st == TAPIO_OK) st = tapio_inquire_variable(f.io, name, &v);
    if (st == TAPIO_OK) st = tapio_var_is_record(v, &rec);
    if (st != TAPIO_OK) return st;
    *out = *out || rec;
  }
  return TAPIO_OK;
}

// The file's dimensions in its order, their ids (a NetCDF file's header); a subfile dataset
// declares none: its record dimension is `time`, the others come from its variables.
int read_dims(File& f, bool has_record) {
  size_t n = 0;
  int st = tapio_io_dimension_count(f.io, &n);
  for (size_t d = 0; st == TAPIO_OK && d < n; ++d) {
    const char* name = nullptr;
    uint64_t length = 0;
    st = tapio_io_dimension(f.io, d, &name, &length);
    if (st == TAPIO_OK) f.dims.push_back(Dim{name, length});
  }
  if (st == TAPIO_OK && n == 0 && has_record) f.dims.push_back(Dim{"time", 0});
  return st;
}

}  // namespace

int open_existing(File& f, const char* call) {
  const tapio_mode mode = f.writable ? TAPIO_MODE_APPEND : TAPIO_MODE_READ;
  int st = tapio_open(f.io, f.path.c_str(), mode, &f.engine);
  if (st == TAPIO_OK) take_engine_name(f);
  size_t nvars = 0;
  bool has_record = false;
  if (st == TAPIO_OK) st = tapio_steps(f.engine, &f.frames);
  if (st == TAPIO_OK) st = tapio_io_variable_count(f.io, &nvars);
  if (st == TAPIO_OK) st = any_record(f, nvars, &has_record);
  if (st == TAPIO_OK) st = read_dims(f, has_record);
  for (size_t i = 0; st == TAPIO_OK && i < nvars; ++i) st = read_var(f, i, has_record);
  if (st == TAPIO_OK) st = read_attrs(f, nullptr, &f.atts);
  f.defined_in_tapio = true;
  if (st == TAPIO_OK) return PIO_NOERR;
  const std::string why = tapio_last_error();
  if (f.engine) tapio_close(f.engine);
  f.engine = nullptr;
  return fail(f.ios, from_tapio(st), std::string(call) + ": " + where(f) + ": " + why);
}

}  // namespace tapio_pio
