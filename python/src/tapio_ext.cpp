// tapio._tapio: the C API (include/tapio/tapio.h), one function per C call, for the Python
// package. Handles are integers (the C pointers); buffers are addresses that the Python layer
// takes from numpy arrays it has checked (type, byte order, contiguity, size) and keeps alive
// while a deferred put or get needs them, so nothing here copies data. A failing call raises
// the tapio.Error subclass of its status, carrying tapio_last_error().
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tapio/tapio.h"

namespace nb = nanobind;

namespace {

using Handle = uintptr_t;
using Dims = std::vector<uint64_t>;

template <typename T>
T* ptr(Handle h) {
  return reinterpret_cast<T*>(h);
}

template <typename T>
Handle handle(T* p) {
  return reinterpret_cast<Handle>(p);
}

// tapio._errors.from_status builds the exception: the classes live in Python, so that they
// can be subclassed, pickled and documented like any other.
void check(int status) {
  if (status == TAPIO_OK) return;
  nb::object exc = nb::module_::import_("tapio._errors")
                       .attr("from_status")(status, std::string(tapio_last_error()));
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw nb::python_error();
}

// Collective calls may wait for other ranks: other Python threads run meanwhile.
template <typename F>
void collective(F&& call) {
  int status;
  {
    nb::gil_scoped_release release;
    status = call();
  }
  check(status);
}

const char* or_null(const std::optional<std::string>& s) { return s ? s->c_str() : nullptr; }

Handle init_f(int fcomm, const std::optional<std::string>& config) {
  tapio_context* ctx = nullptr;
  collective([&] { return tapio_init_f(static_cast<MPI_Fint>(fcomm), or_null(config), &ctx); });
  return handle(ctx);
}

Handle declare_io(Handle ctx, const std::string& name) {
  tapio_io* io = nullptr;
  check(tapio_declare_io(ptr<tapio_context>(ctx), name.c_str(), &io));
  return handle(io);
}

Handle define_variable(Handle io, const std::string& name, int type, const Dims& shape,
                       const std::optional<std::vector<std::string>>& dim_names, bool fixed,
                       bool joined) {
  std::vector<const char*> names;
  if (dim_names)
    for (const std::string& n : *dim_names) names.push_back(n.c_str());
  tapio_var* var = nullptr;
  check(tapio_define_variable(ptr<tapio_io>(io), name.c_str(), static_cast<tapio_type>(type),
                              static_cast<int>(shape.size()), shape.data(),
                              dim_names ? names.data() : nullptr,
                              (fixed ? TAPIO_VAR_FIXED : 0u) | (joined ? TAPIO_VAR_JOINED : 0u),
                              &var));
  return handle(var);
}

Handle inquire_variable(Handle io, const std::string& name) {
  tapio_var* var = nullptr;
  check(tapio_inquire_variable(ptr<tapio_io>(io), name.c_str(), &var));
  return handle(var);
}

std::vector<std::string> variable_names(Handle io) {
  size_t n = 0;
  check(tapio_io_variable_count(ptr<tapio_io>(io), &n));
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    check(tapio_io_variable_name(ptr<tapio_io>(io), i, &name));
    names.emplace_back(name);
  }
  return names;
}

// The IO's declared dimensions in order, as (name, length) pairs (length 0: unlimited).
std::vector<std::pair<std::string, uint64_t>> dimensions(Handle io) {
  size_t n = 0;
  check(tapio_io_dimension_count(ptr<tapio_io>(io), &n));
  std::vector<std::pair<std::string, uint64_t>> dims;
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    uint64_t length = 0;
    check(tapio_io_dimension(ptr<tapio_io>(io), i, &name, &length));
    dims.emplace_back(name, length);
  }
  return dims;
}

std::vector<std::string> attribute_names(Handle io, const std::optional<std::string>& var) {
  size_t n = 0;
  check(tapio_io_attribute_count(ptr<tapio_io>(io), or_null(var), &n));
  std::vector<std::string> names;
  for (size_t i = 0; i < n; ++i) {
    const char* name = nullptr;
    check(tapio_io_attribute_name(ptr<tapio_io>(io), or_null(var), i, &name));
    names.emplace_back(name);
  }
  return names;
}

// (type, count) of an attribute.
std::pair<int, size_t> inquire_attribute(Handle io, const std::optional<std::string>& var,
                                         const std::string& name) {
  tapio_type type{};
  size_t count = 0;
  check(tapio_inquire_attribute(ptr<tapio_io>(io), or_null(var), name.c_str(), &type, &count));
  return {static_cast<int>(type), count};
}

// name, type, shape, dimension names, is_record, is_joined.
nb::tuple var_info(Handle var) {
  tapio_var* v = ptr<tapio_var>(var);
  const char* name = nullptr;
  tapio_type type{};
  int ndims = 0, is_record = 0, is_joined = 0;
  check(tapio_var_name(v, &name));
  check(tapio_var_type(v, &type));
  check(tapio_var_ndims(v, &ndims));
  check(tapio_var_is_record(v, &is_record));
  check(tapio_var_is_joined(v, &is_joined));
  Dims shape(static_cast<size_t>(ndims));
  check(tapio_var_shape(v, shape.data()));
  std::vector<std::string> dims;
  for (int d = 0; d < ndims; ++d) {
    const char* dim = nullptr;
    check(tapio_var_dim_name(v, d, &dim));
    dims.emplace_back(dim);
  }
  return nb::make_tuple(std::string(name), static_cast<int>(type), shape, dims, is_record != 0,
                        is_joined != 0);
}

uint64_t selection_size(Handle var) {
  uint64_t n = 0;
  check(tapio_var_selection_size(ptr<tapio_var>(var), &n));
  return n;
}

Handle open(Handle io, const std::string& path, int mode) {
  tapio_engine* engine = nullptr;
  collective([&] {
    return tapio_open(ptr<tapio_io>(io), path.c_str(), static_cast<tapio_mode>(mode), &engine);
  });
  return handle(engine);
}

int begin_step(Handle engine) {
  tapio_step_status status = TAPIO_STEP_OK;
  collective([&] { return tapio_begin_step(ptr<tapio_engine>(engine), &status); });
  return static_cast<int>(status);
}

template <int (*Call)(tapio_engine*)>
void engine_collective(Handle engine) {
  collective([&] { return Call(ptr<tapio_engine>(engine)); });
}

uint64_t current_step(Handle engine) {
  uint64_t step = 0;
  check(tapio_current_step(ptr<tapio_engine>(engine), &step));
  return step;
}

uint64_t steps(Handle engine) {
  uint64_t n = 0;
  check(tapio_steps(ptr<tapio_engine>(engine), &n));
  return n;
}

// The stored blocks of a variable at a step: a list of (start, count).
nb::list var_blocks(Handle engine, Handle var, uint64_t step) {
  tapio_var* v = ptr<tapio_var>(var);
  int ndims = 0;
  check(tapio_var_ndims(v, &ndims));
  size_t n = 0;
  check(tapio_var_blocks(ptr<tapio_engine>(engine), v, step, 0, nullptr, nullptr, &n));
  Dims starts(n * ndims), counts(n * ndims);
  check(tapio_var_blocks(ptr<tapio_engine>(engine), v, step, n, starts.data(), counts.data(), &n));
  nb::list blocks;
  for (size_t i = 0; i < n; ++i) {
    const auto at = [&](const Dims& d) {
      return Dims(d.begin() + i * ndims, d.begin() + (i + 1) * ndims);
    };
    blocks.append(nb::make_tuple(at(starts), at(counts)));
  }
  return blocks;
}

std::string engine_name(Handle engine) {
  const char* name = nullptr;
  check(tapio_engine_name(ptr<tapio_engine>(engine), &name));
  return name;
}

}  // namespace

NB_MODULE(_tapio, m) {
  m.doc() = "The tapio C API, one function per call (use the tapio package, not this).";
  m.def("version", [] { return std::string(tapio_version()); });
  m.def("status_string", [](int status) { return std::string(tapio_status_string(status)); });
  m.def("init_f", &init_f, nb::arg("fcomm"), nb::arg("config").none());
  m.def("finalize", [](Handle ctx) { collective([&] { return tapio_finalize(ptr<tapio_context>(ctx)); }); });
  m.def("declare_io", &declare_io);
  m.def("io_set_engine", [](Handle io, const std::string& engine) {
    check(tapio_io_set_engine(ptr<tapio_io>(io), engine.c_str()));
  });
  m.def("io_set_parameter", [](Handle io, const std::string& key, const std::string& value) {
    check(tapio_io_set_parameter(ptr<tapio_io>(io), key.c_str(), value.c_str()));
  });
  m.def("define_variable", &define_variable, nb::arg("io"), nb::arg("name"), nb::arg("type"),
        nb::arg("shape"), nb::arg("dim_names").none(), nb::arg("fixed"), nb::arg("joined"));
  m.def("inquire_variable", &inquire_variable);
  m.def("variable_names", &variable_names);
  m.def("define_dimension", [](Handle io, const std::string& name, uint64_t length) {
    check(tapio_define_dimension(ptr<tapio_io>(io), name.c_str(), length));
  });
  m.def("dimensions", &dimensions);
  m.def("define_attribute", [](Handle io, const std::optional<std::string>& var,
                               const std::string& name, int type, size_t count, uintptr_t data) {
    check(tapio_define_attribute(ptr<tapio_io>(io), or_null(var), name.c_str(),
                                 static_cast<tapio_type>(type), count,
                                 reinterpret_cast<const void*>(data)));
  }, nb::arg("io"), nb::arg("var").none(), nb::arg("name"), nb::arg("type"), nb::arg("count"),
     nb::arg("data"));
  m.def("attribute_names", &attribute_names, nb::arg("io"), nb::arg("var").none());
  m.def("inquire_attribute", &inquire_attribute, nb::arg("io"), nb::arg("var").none(),
        nb::arg("name"));
  m.def("read_attribute", [](Handle io, const std::optional<std::string>& var,
                             const std::string& name, uintptr_t data) {
    check(tapio_read_attribute(ptr<tapio_io>(io), or_null(var), name.c_str(),
                               reinterpret_cast<void*>(data)));
  }, nb::arg("io"), nb::arg("var").none(), nb::arg("name"), nb::arg("data"));
  m.def("var_info", &var_info);
  // count: a Python int; a negative one reaches tapio as its two's complement, which tapio
  // reports as negative.
  m.def("var_set_joined_count", [](Handle var, int64_t count) {
    check(tapio_var_set_joined_count(ptr<tapio_var>(var), static_cast<uint64_t>(count)));
  });
  m.def("var_set_selection", [](Handle var, const Dims& start, const Dims& count) {
    check(tapio_var_set_selection(ptr<tapio_var>(var), start.data(), count.data()));
  });
  // offsets, lengths: addresses of n uint64 each (numpy arrays); tapio copies the lists now.
  m.def("var_set_offsets", [](Handle var, size_t n, uintptr_t offsets) {
    check(tapio_var_set_offsets(ptr<tapio_var>(var), n, reinterpret_cast<const uint64_t*>(offsets)));
  });
  m.def("var_set_runs", [](Handle var, size_t n, uintptr_t offsets, uintptr_t lengths) {
    check(tapio_var_set_runs(ptr<tapio_var>(var), n, reinterpret_cast<const uint64_t*>(offsets),
                             reinterpret_cast<const uint64_t*>(lengths)));
  });
  // A decomposition of shape `shape` from n offsets (the address of n uint64): tapio checks and
  // keeps them now.
  m.def("decomp_from_offsets", [](Handle ctx, const Dims& shape, size_t n, uintptr_t offsets) {
    tapio_decomp* d = nullptr;
    check(tapio_decomp_from_offsets(ptr<tapio_context>(ctx), static_cast<int>(shape.size()),
                                    shape.data(), n, reinterpret_cast<const uint64_t*>(offsets),
                                    &d));
    return handle(d);
  });
  m.def("decomp_size", [](Handle d) {
    uint64_t n = 0;
    check(tapio_decomp_size(ptr<tapio_decomp>(d), &n));
    return n;
  });
  m.def("decomp_free", [](Handle d) { check(tapio_decomp_free(ptr<tapio_decomp>(d))); });
  m.def("var_set_decomp", [](Handle var, Handle d) {
    check(tapio_var_set_decomp(ptr<tapio_var>(var), ptr<tapio_decomp>(d)));
  });
  m.def("var_set_step_selection", [](Handle var, uint64_t first, uint64_t count) {
    check(tapio_var_set_step_selection(ptr<tapio_var>(var), first, count));
  });
  m.def("var_selection_size", &selection_size);
  m.def("open", &open);
  m.def("begin_step", &begin_step);
  m.def("end_step", &engine_collective<tapio_end_step>);
  m.def("perform_puts", &engine_collective<tapio_perform_puts>);
  m.def("perform_gets", &engine_collective<tapio_perform_gets>);
  m.def("close", &engine_collective<tapio_close>);
  // data: the address of a checked buffer the caller keeps alive until the step ends.
  m.def("put", [](Handle engine, Handle var, int memtype, uintptr_t data) {
    check(tapio_put(ptr<tapio_engine>(engine), ptr<tapio_var>(var),
                    static_cast<tapio_type>(memtype), reinterpret_cast<const void*>(data)));
  });
  m.def("get", [](Handle engine, Handle var, int memtype, uintptr_t data) {
    check(tapio_get(ptr<tapio_engine>(engine), ptr<tapio_var>(var),
                    static_cast<tapio_type>(memtype), reinterpret_cast<void*>(data)));
  });
  // start, count: the box of this put or get alone (the variable's selection is untouched).
  m.def("put_sel", [](Handle engine, Handle var, const Dims& start, const Dims& count,
                      int memtype, uintptr_t data) {
    check(tapio_put_sel(ptr<tapio_engine>(engine), ptr<tapio_var>(var), start.data(),
                        count.data(), static_cast<tapio_type>(memtype),
                        reinterpret_cast<const void*>(data)));
  });
  m.def("get_sel", [](Handle engine, Handle var, const Dims& start, const Dims& count,
                      int memtype, uintptr_t data) {
    check(tapio_get_sel(ptr<tapio_engine>(engine), ptr<tapio_var>(var), start.data(),
                        count.data(), static_cast<tapio_type>(memtype),
                        reinterpret_cast<void*>(data)));
  });
  m.def("fail_step", [](Handle engine, int code, const std::string& message) {
    check(tapio_fail_step(ptr<tapio_engine>(engine), static_cast<tapio_status>(code),
                          message.c_str()));
  });
  m.def("current_step", &current_step);
  m.def("steps", &steps);
  m.def("engine_name", &engine_name);
  m.def("var_blocks", &var_blocks);
}
