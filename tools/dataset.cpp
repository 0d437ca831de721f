#include "dataset.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "format/netcdf/ragged.h"
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
    v->joined = handle.is_joined();
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
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    for (const Dimension& d : IO(io).dimensions()) def.dims.push_back({d.name, d.length});
  }));
  return def;
}

Result<std::unique_ptr<Dataset>> Dataset::open(const std::string& path) {
  static const std::string kInputIo = "tapio_tool_input";
  std::unique_ptr<Dataset> d(new Dataset());
  d->path_ = path;
  TAPIO_ASSIGN_OR_RETURN(d->comm_, comm::MpiComm::duplicate(MPI_COMM_WORLD));
  TAPIO_ASSIGN_OR_RETURN(d->config_, UserConfig::load(d->comm_));
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    d->ctx_ = std::make_unique<tapio::Context>(MPI_COMM_WORLD, kNoRules);
    d->io_ = d->ctx_->declare_io(kInputIo);
    d->io_.set_engine("subfile");
  }));
  TAPIO_RETURN_IF_ERROR(d->config_.apply(d->io_, kInputIo, path, {}).status());
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    d->engine_ = d->io_.open(path, TAPIO_MODE_READ);
    d->steps_ = d->engine_.steps();
  }));
  TAPIO_ASSIGN_OR_RETURN(d->def_, read_definitions(d->io_.get()));
  TAPIO_RETURN_IF_ERROR(d->measure_samples());
  return d;
}

// The joined variables' lengths per step, from their blocks; variables that share a sample
// dimension must agree at every step, since one count variable describes them.
Status Dataset::measure_samples() {
  std::map<std::string, std::string> owner;  // sample dimension -> the variable measured first
  for (const VariableDef& v : def_.vars) {
    if (!v.joined) continue;
    std::vector<uint64_t> lengths(steps_, 0);
    TAPIO_RETURN_IF_ERROR(api_call([&] {
      Variable handle = io_.inquire_variable(v.name);
      for (uint64_t s = 0; s < steps_; ++s)
        for (const auto& [start, count] : engine_.blocks(handle, s))
          lengths[s] = std::max(lengths[s], start[0] + count[0]);
    }));
    const std::string& dim = v.dim_names[0];
    const auto [known, added] = samples_.emplace(dim, lengths);
    if (added) {
      owner[dim] = v.name;
      continue;
    }
    for (uint64_t s = 0; s < steps_; ++s)
      if (known->second[s] != lengths[s])
        return error(TAPIO_ERR_SHAPE,
                     "dataset '{}': joined variables '{}' and '{}' share sample dimension '{}' "
                     "but hold {} and {} samples at step {}: one count variable cannot describe "
                     "both (give them different first dimension names)",
                     path_, owner[dim], v.name, dim, known->second[s], lengths[s], s);
  }
  std::map<std::string, uint64_t> totals;
  for (const auto& [dim, lengths] : samples_)
    for (uint64_t n : lengths) totals[dim] += n;
  TAPIO_ASSIGN_OR_RETURN(netcdf_def_, netcdf::ragged_definitions(def_, totals));
  return ok_status();
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

Status Dataset::queue_netcdf_get(const VariableDef& var, const std::vector<uint64_t>& start,
                                 const std::vector<uint64_t>& count, uint64_t step, void* out) {
  const int native = def_.find_var(var.name);
  if (native < 0) {  // a count variable
    const auto& lengths = samples_.at(var.find_attr("sample_dimension")->as_string());
    const auto value = static_cast<int64_t>(lengths.at(step));
    std::memcpy(out, &value, sizeof value);
    return ok_status();
  }
  const VariableDef& v = def_.vars[native];
  if (!v.joined) return queue_get(v, start, count, step, out);
  // Rows [start[0], start[0] + count[0]) of the steps one after another.
  uint64_t row_bytes = type_size(v.type);
  for (size_t d = 1; d < count.size(); ++d) row_bytes *= count[d];
  auto* dst = static_cast<uint8_t*>(out);
  uint64_t first = 0, row = start[0], left = count[0];
  const std::vector<uint64_t>& lengths = samples_.at(v.dim_names[0]);
  for (uint64_t s = 0; s < lengths.size() && left > 0; first += lengths[s++]) {
    if (row >= first + lengths[s]) continue;
    std::vector<uint64_t> at = start, n = count;
    at[0] = row - first;
    n[0] = std::min(left, first + lengths[s] - row);
    TAPIO_RETURN_IF_ERROR(queue_get(v, at, n, s, dst));
    dst += n[0] * row_bytes;
    row += n[0];
    left -= n[0];
  }
  return ok_status();
}

Result<std::pair<uint64_t, uint64_t>> Dataset::stored_bytes(const VariableDef& var) {
  std::pair<uint64_t, uint64_t> sizes;
  TAPIO_RETURN_IF_ERROR(api_call([&] {
    Variable v = io_.inquire_variable(var.name);
    sizes = engine_.stored_bytes(v);
  }));
  return sizes;
}

Status Dataset::perform_gets(const Status& queued) {
  TAPIO_RETURN_IF_ERROR(comm::agree(comm_, queued));
  return api_call([&] { engine_.perform_gets(); });
}

Status Dataset::close() { return api_call([&] { engine_.close(); }); }

}  // namespace tapio::cli
