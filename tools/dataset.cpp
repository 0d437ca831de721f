#include "dataset.h"

#include <filesystem>
#include <system_error>

#include "typed.h"

namespace tapio::cli {
namespace {

Result<std::vector<Attribute>> read_attributes(tapio_io* io, const char* var) {
  std::vector<Attribute> out;
  const Status status = api_call([&] {
    size_t n = 0;
    check(tapio_io_attribute_count(io, var, &n));
    for (size_t i = 0; i < n; ++i) {
      const char* name;
      check(tapio_io_attribute_name(io, var, i, &name));
      Attribute a;
      a.name = name;
      size_t count = 0;
      check(tapio_inquire_attribute(io, var, name, &a.type, &count));
      a.data.resize(count * type_size(a.type));
      check(tapio_read_attribute(io, var, name, a.data.data()));
      out.push_back(std::move(a));
    }
  });
  if (!status.ok()) return status;
  return out;
}

Status read_variable(tapio_io* io, const std::string& name, VariableDef* v) {
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    tapio_var* var;
    check(tapio_inquire_variable(io, name.c_str(), &var));
    const Variable handle(var);
    v->name = name;
    v->type = handle.type();
    v->shape = handle.shape();
    v->record = handle.is_record();
    for (size_t d = 0; d < v->shape.size(); ++d) {
      const char* dim;
      check(tapio_var_dim_name(var, static_cast<int>(d), &dim));
      v->dim_names.push_back(dim);
    }
  }));
  TAPIO_ASSIGN_OR_RETURN(v->attrs, read_attributes(io, name.c_str()));
  return ok_status();
}

}  // namespace

bool is_dataset_dir(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) &&
         std::filesystem::is_regular_file(std::filesystem::path(path) / "tapio.idx", ec);
}

Result<IoDef> read_definitions(tapio_io* io) {
  IoDef def;
  std::vector<std::string> names;
  TAPIO_RETURN_IF_ERROR(api_call([&] { names = IO(io).variable_names(); }));
  for (const std::string& name : names) {
    VariableDef v;
    TAPIO_RETURN_IF_ERROR(read_variable(io, name, &v));
    def.vars.push_back(std::move(v));
  }
  TAPIO_ASSIGN_OR_RETURN(def.attrs, read_attributes(io, nullptr));
  return def;
}

Result<std::unique_ptr<Dataset>> Dataset::open(const std::string& path) {
  std::unique_ptr<Dataset> d(new Dataset());
  d->path_ = path;
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    d->ctx_ = std::make_unique<tapio::Context>(MPI_COMM_WORLD);
    d->io_ = d->ctx_->declare_io("tapio_tool_input");
    d->io_.set_engine("subfile");
    d->engine_ = d->io_.open(path, TAPIO_MODE_READ);
    d->steps_ = d->engine_.steps();
  }));
  TAPIO_ASSIGN_OR_RETURN(d->def_, read_definitions(d->io_.get()));
  return d;
}

Dataset::~Dataset() = default;  // the engine closes before the context is finalised

Status Dataset::queue_get(const VariableDef& var, const std::vector<uint64_t>& start,
                          const std::vector<uint64_t>& count, uint64_t step, void* out) {
  return api_call([&] {
    Variable v = io_.inquire_variable(var.name);
    if (!var.shape.empty()) v.set_selection(start, count);
    if (var.record) v.set_step_selection(step, 1);
    with_type(var.type, [&](auto tag) { engine_.get(v, static_cast<decltype(tag)*>(out)); });
  });
}

Result<std::pair<uint64_t, uint64_t>> Dataset::stored_bytes(const VariableDef& var) {
  std::pair<uint64_t, uint64_t> sizes;
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    Variable v = io_.inquire_variable(var.name);
    sizes = engine_.stored_bytes(v);
  }));
  return sizes;
}

Status Dataset::perform_gets() { return api_call([&] { engine_.perform_gets(); }); }

Status Dataset::close() { return api_call([&] { engine_.close(); }); }

}  // namespace tapio::cli
