// Definition calls: IO groups, variables, attributes, selections. All local.
#include <fmt/ranges.h>

#include <cstring>
#include <functional>

#include "api/errors.h"
#include "api/handles.h"
#include "api/selections.h"

using namespace tapio;
using api::IoState;
using api::VarState;

namespace {

Status need(const void* p, const char* what) {
  return p ? ok_status() : error(TAPIO_ERR_ARG, "{} is null", what);
}

// The definition behind a variable's state, looked up by name.
Result<VariableDef*> lookup(VarState* var) {
  const int i = var->io->def.find_var(var->name);
  if (i < 0)
    return error(TAPIO_ERR_NOT_FOUND, "variable '{}' is not defined in IO '{}'", var->name,
                 var->io->def.name);
  return &var->io->def.vars[i];
}

Result<VariableDef*> lookup(tapio_var* handle) {
  TAPIO_ASSIGN_OR_RETURN(VarState * var, api::resolve(handle));
  return lookup(var);
}

tapio_var* handle_for(IoState* io, const std::string& name) {
  VarState*& known = io->var_by_name[name];
  if (!known) {
    io->vars.push_back(std::make_unique<VarState>());
    known = io->vars.back().get();
    known->io = io;
    known->name = name;
  }
  return known->registration.handle();
}

Result<std::vector<Attribute>*> attrs_of(tapio_io* handle, const char* var_name) {
  TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(handle));
  if (!var_name) return &io->def.attrs;
  const int i = io->def.find_var(var_name);
  if (i < 0) return error(TAPIO_ERR_NOT_FOUND, "variable '{}' is not defined", var_name);
  return &io->def.vars[i].attrs;
}

Result<const Attribute*> find_attr(tapio_io* io, const char* var_name, const char* name) {
  TAPIO_ASSIGN_OR_RETURN(std::vector<Attribute>* attrs, attrs_of(io, var_name));
  TAPIO_RETURN_IF_ERROR(need(name, "attribute name"));
  for (const auto& a : *attrs)
    if (a.name == name) return &a;
  return error(TAPIO_ERR_NOT_FOUND, "attribute '{}' not found{}", name,
               var_name ? fmt::format(" on variable '{}'", var_name) : std::string());
}

// A variable defined while a file opened from the IO cannot take it (a NetCDF header is laid
// out at open; a reader's variables are the file's) would reach an engine that knows nothing
// of it: refused here, on the calling rank.
// `what`: "variable 'x'" or "dimension 'x'".
Status check_no_file_fixes_definitions(const IoState* io, const std::string& what) {
  for (const auto& e : io->ctx->engines)
    if (e && e->io == io && !e->engine->takes_new_variables())
      return error(TAPIO_ERR_STATE,
                   "{}: file '{}' is open from IO '{}' in {} mode with the {} engine, "
                   "which takes no definitions made after tapio_open: define them before it "
                   "(rank {})",
                   what, e->engine->path(), io->def.name, mode_name(e->engine->mode()),
                   e->engine->name(), io->ctx->comm.rank());
  return ok_status();
}

// An unlimited dimension (length 0) is the one steps go along: its name becomes the
// record_dimension parameter.
Status define_dimension(tapio_io* handle, const char* name, uint64_t length) {
  TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(handle));
  TAPIO_RETURN_IF_ERROR(need(name, "dimension name"));
  TAPIO_RETURN_IF_ERROR(validate_name("dimension", name));
  const std::string what = fmt::format("dimension '{}'", name);
  TAPIO_RETURN_IF_ERROR(check_no_file_fixes_definitions(io, what));
  for (const DimensionDef& d : io->def.dims) {
    if (d.name == name && d.length == length) return ok_status();  // declared again: kept
    if (d.name == name)
      return error(TAPIO_ERR_ARG, "{} is already declared in IO '{}' with length {}", what,
                   io->def.name, d.length);
    if (d.unlimited() && length == 0)
      return error(TAPIO_ERR_ARG, "{}: IO '{}' already has an unlimited dimension, '{}'", what,
                   io->def.name, d.name);
  }
  if (length == 0) TAPIO_RETURN_IF_ERROR(io->def.params.set("record_dimension", name));
  io->def.dims.push_back(DimensionDef{name, length});
  return ok_status();
}

Status define_variable(tapio_io* handle, const char* name, tapio_type type, int ndims,
                       const uint64_t* shape, const char* const* dim_names, unsigned flags,
                       tapio_var** out) {
  TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(handle));
  TAPIO_RETURN_IF_ERROR(need(name, "variable name"));
  TAPIO_RETURN_IF_ERROR(need(out, "output handle"));
  if (ndims < 0 || (ndims > 0 && !shape))
    return error(TAPIO_ERR_ARG, "variable '{}': {} dimensions and shape {}", name, ndims,
                 shape ? "given" : "null");
  if (flags & ~(TAPIO_VAR_FIXED | TAPIO_VAR_JOINED))
    return error(TAPIO_ERR_ARG, "unknown flags {:#x}", flags);
  VariableDef v;
  v.name = name;
  v.type = type;
  v.record = !(flags & TAPIO_VAR_FIXED);
  v.joined = flags & TAPIO_VAR_JOINED;
  v.shape.assign(shape, shape + ndims);
  if (v.joined && ndims > 0 && shape[0] != 0)
    return error(TAPIO_ERR_SHAPE, "joined variable '{}': give shape[0] = 0 (each rank gives its "
                 "own length with tapio_var_set_joined_count), not {}", name, shape[0]);
  for (int d = 0; d < ndims; ++d) {
    // A joined array's own dimension: its CF sample dimension once converted (docs/format.md).
    const std::string fallback = v.joined && d == 0 ? fmt::format("{}_sample", v.name)
                                                     : default_dim_name(shape[d]);
    v.dim_names.push_back(dim_names && dim_names[d] ? dim_names[d] : fallback);
  }
  TAPIO_RETURN_IF_ERROR(validate_variable(v, io->def.params.get("record_dimension")));
  TAPIO_RETURN_IF_ERROR(
      check_no_file_fixes_definitions(io, fmt::format("variable '{}'", v.name)));
  if (io->def.find_var(v.name) >= 0)
    return error(TAPIO_ERR_ARG, "variable '{}' is already defined in IO '{}'", v.name,
                 io->def.name);
  io->def.vars.push_back(std::move(v));
  *out = handle_for(io, name);
  return ok_status();
}

// Whether a file open from `io` is being read: a joined variable's selection is for reading.
bool reading(const IoState* io) {
  for (const auto& e : io->ctx->engines)
    if (e && e->io == io && e->engine->mode() == OpenMode::kRead) return true;
  return false;
}

// Whether a variable is given again the runs (or, lengths null, the offsets) it has: a
// program that sets its map every step, as PIO's callers do, then pays one pass over it and
// no allocation or check (the runs were checked when first given; a joined array's check
// depends on the mode, so its runs are always taken again).
bool keeps_runs(tapio_var* handle, size_t n, const uint64_t* offsets, const uint64_t* lengths) {
  Result<VarState*> var = api::resolve(handle);
  if (!var.ok() || !(*var)->has_selection || !(*var)->rejected.ok()) return false;
  Result<VariableDef*> def = lookup(*var);
  return def.ok() && !(*def)->joined && (n == 0 || offsets) &&
         (*var)->sel->same_runs(offsets, lengths, n);
}

// Sets the selection of the variable's next puts and gets. A refused one leaves none: the
// variable's next put then fails its step (and its next get fails) with this error, rather
// than using an older selection or the whole variable (docs/api.md §2.4).
Status set_shared_selection(
    tapio_var* handle,
    const std::function<Result<plan::SharedSelection>(const VarState*, const VariableDef&)>&
        make) {
  TAPIO_ASSIGN_OR_RETURN(VarState * var, api::resolve(handle));
  TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
  var->sel.reset();
  var->has_selection = false;
  Result<plan::SharedSelection> sel = make(var, *def);
  if (!sel.ok()) {
    var->rejected = sel.status();
    return var->rejected;
  }
  var->rejected = ok_status();
  var->sel = std::move(*sel);
  var->has_selection = true;
  return ok_status();
}

Status set_selection(tapio_var* handle, const std::function<Result<plan::Selection>(
                                            const VarState*, const VariableDef&)>& make) {
  return set_shared_selection(
      handle, [&](const VarState* v, const VariableDef& def) -> Result<plan::SharedSelection> {
        TAPIO_ASSIGN_OR_RETURN(plan::Selection sel, make(v, def));
        return plan::shared(std::move(sel));
      });
}

}  // namespace

extern "C" {

int tapio_declare_io(tapio_context* ctx_handle, const char* name, tapio_io** io) {
  return api::guarded("tapio_declare_io", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(api::ContextState * ctx, api::resolve(ctx_handle));
    TAPIO_RETURN_IF_ERROR(need(name, "IO name"));
    TAPIO_RETURN_IF_ERROR(need(io, "output handle"));
    for (auto& existing : ctx->ios)
      if (existing->def.name == name) {
        *io = existing->registration.handle();
        return ok_status();
      }
    if (!*name) return error(TAPIO_ERR_ARG, "IO name is empty");  // any other text is fine
    ctx->ios.push_back(std::make_unique<IoState>());
    ctx->ios.back()->ctx = ctx;
    ctx->ios.back()->def.name = name;
    *io = ctx->ios.back()->registration.handle();
    return ok_status();
  });
}

int tapio_io_set_engine(tapio_io* io_handle, const char* engine) {
  return api::guarded("tapio_io_set_engine", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    const std::string name = engine ? engine : "";
    if (!name.empty()) {
      bool known = false;
      for (auto e : engine_names()) known |= (e == name);
      if (!known) {
        const std::string hint = nearest(name, engine_names());
        return error(TAPIO_ERR_CONFIG, "unknown engine '{}'{}", name,
                     hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint));
      }
    }
    io->def.engine = name;
    return ok_status();
  });
}

int tapio_io_set_parameter(tapio_io* io_handle, const char* key, const char* value) {
  return api::guarded("tapio_io_set_parameter", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    TAPIO_RETURN_IF_ERROR(need(key, "parameter name"));
    TAPIO_RETURN_IF_ERROR(need(value, "parameter value"));
    return io->def.params.set(key, value).with_context(fmt::format("IO '{}'", io->def.name));
  });
}

int tapio_define_variable(tapio_io* io, const char* name, tapio_type type, int ndims,
                          const uint64_t* shape, const char* const* dim_names, unsigned flags,
                          tapio_var** var) {
  return api::guarded("tapio_define_variable", [&] {
    return define_variable(io, name, type, ndims, shape, dim_names, flags, var);
  });
}

int tapio_define_dimension(tapio_io* io, const char* name, uint64_t length) {
  return api::guarded("tapio_define_dimension", [&] { return define_dimension(io, name, length); });
}

int tapio_io_dimension_count(tapio_io* io_handle, size_t* count) {
  return api::guarded("tapio_io_dimension_count", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    TAPIO_RETURN_IF_ERROR(need(count, "count"));
    *count = io->def.dims.size();
    return ok_status();
  });
}

int tapio_io_dimension(tapio_io* io_handle, size_t index, const char** name, uint64_t* length) {
  return api::guarded("tapio_io_dimension", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    if (index >= io->def.dims.size())
      return error(TAPIO_ERR_NOT_FOUND, "dimension index {} out of range ({} dimensions)", index,
                   io->def.dims.size());
    if (name) *name = io->def.dims[index].name.c_str();
    if (length) *length = io->def.dims[index].length;
    return ok_status();
  });
}

int tapio_inquire_variable(tapio_io* io_handle, const char* name, tapio_var** var) {
  return api::guarded("tapio_inquire_variable", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    TAPIO_RETURN_IF_ERROR(need(name, "variable name"));
    TAPIO_RETURN_IF_ERROR(need(var, "output handle"));
    if (io->def.find_var(name) < 0)
      return error(TAPIO_ERR_NOT_FOUND, "variable '{}' not found in IO '{}'", name, io->def.name);
    *var = handle_for(io, name);
    return ok_status();
  });
}

int tapio_io_variable_count(tapio_io* io_handle, size_t* count) {
  return api::guarded("tapio_io_variable_count", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    TAPIO_RETURN_IF_ERROR(need(count, "count"));
    *count = io->def.vars.size();
    return ok_status();
  });
}

int tapio_io_variable_name(tapio_io* io_handle, size_t index, const char** name) {
  return api::guarded("tapio_io_variable_name", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(IoState * io, api::resolve(io_handle));
    TAPIO_RETURN_IF_ERROR(need(name, "name"));
    if (index >= io->def.vars.size())
      return error(TAPIO_ERR_NOT_FOUND, "variable index {} out of range ({} variables)", index,
                   io->def.vars.size());
    *name = io->def.vars[index].name.c_str();
    return ok_status();
  });
}

int tapio_define_attribute(tapio_io* io, const char* var_name, const char* name,
                           tapio_type type, size_t count, const void* data) {
  return api::guarded("tapio_define_attribute", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(std::vector<Attribute> * attrs, attrs_of(io, var_name));
    TAPIO_RETURN_IF_ERROR(need(name, "attribute name"));
    TAPIO_RETURN_IF_ERROR(validate_name("attribute", name));
    if (!type_is_valid(type)) return error(TAPIO_ERR_TYPE, "invalid attribute type {}", int(type));
    if (count > 0) TAPIO_RETURN_IF_ERROR(need(data, "attribute data"));
    const size_t element = type_size(type);
    const size_t largest = std::vector<uint8_t>().max_size();  // bytes; count * element may wrap
    if (count > largest / element)
      return error(TAPIO_ERR_ARG, "attribute '{}'{}: {} elements of {} ({} bytes each) exceed "
                   "the largest attribute, {} bytes", name,
                   var_name ? fmt::format(" of variable '{}'", var_name) : std::string(), count,
                   type_name(type), element, largest);
    Attribute a{name, type, {}};
    const auto* bytes = static_cast<const uint8_t*>(data);
    a.data.assign(bytes, bytes + count * element);
    set_attribute(*attrs, std::move(a));
    return ok_status();
  });
}

int tapio_define_string_attribute(tapio_io* io, const char* var_name, const char* name,
                                  const char* value) {
  if (!value) return tapio_define_attribute(io, var_name, name, TAPIO_CHAR, 0, nullptr);
  return tapio_define_attribute(io, var_name, name, TAPIO_CHAR, std::strlen(value), value);
}

int tapio_inquire_attribute(tapio_io* io, const char* var_name, const char* name,
                            tapio_type* type, size_t* count) {
  return api::guarded("tapio_inquire_attribute", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(const Attribute* a, find_attr(io, var_name, name));
    if (type) *type = a->type;
    if (count) *count = a->count();
    return ok_status();
  });
}

int tapio_read_attribute(tapio_io* io, const char* var_name, const char* name, void* data) {
  return api::guarded("tapio_read_attribute", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(const Attribute* a, find_attr(io, var_name, name));
    if (!a->data.empty()) {
      TAPIO_RETURN_IF_ERROR(need(data, "output buffer"));
      std::memcpy(data, a->data.data(), a->data.size());
    }
    return ok_status();
  });
}

int tapio_io_attribute_count(tapio_io* io, const char* var_name, size_t* count) {
  return api::guarded("tapio_io_attribute_count", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(std::vector<Attribute> * attrs, attrs_of(io, var_name));
    TAPIO_RETURN_IF_ERROR(need(count, "count"));
    *count = attrs->size();
    return ok_status();
  });
}

int tapio_io_attribute_name(tapio_io* io, const char* var_name, size_t index, const char** name) {
  return api::guarded("tapio_io_attribute_name", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(std::vector<Attribute> * attrs, attrs_of(io, var_name));
    TAPIO_RETURN_IF_ERROR(need(name, "name"));
    if (index >= attrs->size())
      return error(TAPIO_ERR_NOT_FOUND, "attribute index {} out of range", index);
    *name = (*attrs)[index].name.c_str();
    return ok_status();
  });
}

int tapio_var_name(tapio_var* var, const char** name) {
  return api::guarded("tapio_var_name", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(name, "name"));
    *name = def->name.c_str();
    return ok_status();
  });
}

int tapio_var_type(tapio_var* var, tapio_type* type) {
  return api::guarded("tapio_var_type", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(type, "type"));
    *type = def->type;
    return ok_status();
  });
}

int tapio_var_ndims(tapio_var* var, int* ndims) {
  return api::guarded("tapio_var_ndims", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(ndims, "ndims"));
    *ndims = static_cast<int>(def->shape.size());
    return ok_status();
  });
}

int tapio_var_shape(tapio_var* var, uint64_t* shape) {
  return api::guarded("tapio_var_shape", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    if (!def->shape.empty()) TAPIO_RETURN_IF_ERROR(need(shape, "shape"));
    std::copy(def->shape.begin(), def->shape.end(), shape);
    return ok_status();
  });
}

int tapio_var_dim_name(tapio_var* var, int dim, const char** name) {
  return api::guarded("tapio_var_dim_name", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(name, "name"));
    if (dim < 0 || static_cast<size_t>(dim) >= def->dim_names.size())
      return error(TAPIO_ERR_ARG, "variable '{}' has no dimension {}", def->name, dim);
    *name = def->dim_names[dim].c_str();
    return ok_status();
  });
}

int tapio_var_is_record(tapio_var* var, int* is_record) {
  return api::guarded("tapio_var_is_record", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(is_record, "is_record"));
    *is_record = def->record ? 1 : 0;
    return ok_status();
  });
}

int tapio_var_set_selection(tapio_var* var, const uint64_t* start, const uint64_t* count) {
  return api::guarded("tapio_var_set_selection", [&]() -> Status {
    return set_selection(var, [&](const VarState* v, const VariableDef& def) {
      return api::checked_box(v, def, start, count, reading(v->io));
    });
  });
}

int tapio_var_set_offsets(tapio_var* var, size_t n, const uint64_t* offsets) {
  return api::guarded("tapio_var_set_offsets", [&]() -> Status {
    if (keeps_runs(var, n, offsets, nullptr)) return ok_status();
    return set_selection(var, [&](const VarState* v,
                                  const VariableDef& def) -> Result<plan::Selection> {
      if (n > 0 && !offsets)
        return error(TAPIO_ERR_ARG, "offsets is null").with_context(api::where(v));
      return api::checked_selection(v, def, plan::Selection::offsets(offsets, n),
                                    reading(v->io));
    });
  });
}

int tapio_var_set_runs(tapio_var* var, size_t n, const uint64_t* offsets,
                       const uint64_t* lengths) {
  return api::guarded("tapio_var_set_runs", [&]() -> Status {
    if ((n == 0 || lengths) && keeps_runs(var, n, offsets, lengths)) return ok_status();
    return set_selection(var, [&](const VarState* v,
                                  const VariableDef& def) -> Result<plan::Selection> {
      if (n > 0 && (!offsets || !lengths))
        return error(TAPIO_ERR_ARG, "{} is null", offsets ? "lengths" : "offsets")
            .with_context(api::where(v));
      std::vector<plan::Run> runs;  // filled once, not zeroed first: E3SM's maps put 10^4 runs
      runs.reserve(n);
      for (size_t i = 0; i < n; ++i) runs.push_back(plan::Run{offsets[i], lengths[i]});
      return api::checked_selection(v, def, plan::Selection::from_runs(std::move(runs)),
                                    reading(v->io));
    });
  });
}

int tapio_var_set_decomp(tapio_var* var, tapio_decomp* decomp) {
  return api::guarded("tapio_var_set_decomp", [&]() -> Status {
    return set_shared_selection(var, [&](const VarState* v, const VariableDef& def)
                                         -> Result<plan::SharedSelection> {
      TAPIO_ASSIGN_OR_RETURN(api::DecompState * d, api::resolve(decomp));
      if (d->ctx != v->io->ctx)
        return error(TAPIO_ERR_ARG, "variable '{}': the decomposition was made in another "
                     "context", def.name)
            .with_context(api::where(v));
      if (def.joined)
        return error(TAPIO_ERR_ARG, "variable '{}' is a joined array: it takes no "
                     "decomposition", def.name)
            .with_context(api::where(v));
      if (def.shape != d->shape)
        return error(TAPIO_ERR_SHAPE, "variable '{}' has shape [{}], the decomposition [{}]",
                     def.name, fmt::join(def.shape, ", "), fmt::join(d->shape, ", "))
            .with_context(api::where(v));
      return d->sel;
    });
  });
}

int tapio_var_set_joined_count(tapio_var* var, uint64_t count) {
  return api::guarded("tapio_var_set_joined_count", [&]() -> Status {
    return set_selection(var, [&](const VarState* v,
                                  const VariableDef& def) -> Result<plan::Selection> {
      if (!def.joined)
        return error(TAPIO_ERR_ARG, "variable '{}' is not a joined array (TAPIO_VAR_JOINED)",
                     def.name)
            .with_context(api::where(v));
      if (count > INT64_MAX)
        return error(TAPIO_ERR_ARG, "joined count {} is negative", static_cast<int64_t>(count))
            .with_context(api::where(v));
      std::vector<uint64_t> counts = def.shape;
      counts[0] = count;
      std::vector<uint64_t> starts(counts.size(), 0);
      return plan::Selection::box(std::move(starts), std::move(counts));
    });
  });
}

int tapio_var_is_joined(tapio_var* var, int* is_joined) {
  return api::guarded("tapio_var_is_joined", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(is_joined, "is_joined"));
    *is_joined = def->joined ? 1 : 0;
    return ok_status();
  });
}

int tapio_var_set_step_selection(tapio_var* handle, uint64_t step_start, uint64_t step_count) {
  return api::guarded("tapio_var_set_step_selection", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VarState * var, api::resolve(handle));
    TAPIO_RETURN_IF_ERROR(lookup(var).status());
    if (step_count == 0) return error(TAPIO_ERR_ARG, "step_count must be at least 1");
    var->step_start = step_start;
    var->step_count = step_count;
    return ok_status();
  });
}

int tapio_var_selection_size(tapio_var* handle, uint64_t* elements) {
  return api::guarded("tapio_var_selection_size", [&]() -> Status {
    TAPIO_ASSIGN_OR_RETURN(VarState * var, api::resolve(handle));
    TAPIO_ASSIGN_OR_RETURN(VariableDef * def, lookup(var));
    TAPIO_RETURN_IF_ERROR(need(elements, "elements"));
    TAPIO_RETURN_IF_ERROR(api::selection_refusal(var));
    *elements = var->has_selection ? var->sel->elements() : def->elements();
    return ok_status();
  });
}

}  // extern "C"
