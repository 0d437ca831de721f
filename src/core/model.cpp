#include "core/model.h"

#include <algorithm>
#include <utility>

#include "core/names.h"

namespace tapio {

uint64_t VariableDef::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

template <typename T>
static const T* find_in(const std::vector<T>& items, const std::string& name) {
  auto it = std::find_if(items.begin(), items.end(),
                         [&](const T& item) { return item.name == name; });
  return it == items.end() ? nullptr : &*it;
}

const Attribute* VariableDef::find_attr(const std::string& attr) const {
  return find_in(attrs, attr);
}

VarIndex& VarIndex::operator=(const VarIndex&) {
  clear();
  return *this;
}

VarIndex::VarIndex(VarIndex&& other) noexcept
    : at_(std::move(other.at_)), indexed_(std::exchange(other.indexed_, 0)) {
  other.at_.clear();
}

VarIndex& VarIndex::operator=(VarIndex&& other) noexcept {
  at_ = std::move(other.at_);
  indexed_ = std::exchange(other.indexed_, 0);
  other.at_.clear();
  return *this;
}

void VarIndex::clear() {
  at_.clear();
  indexed_ = 0;
}

// Whether vars[0, indexed_) is still what was indexed: as far as an O(1) look can tell.
bool VarIndex::follows(const std::vector<VariableDef>& vars) const {
  if (indexed_ == 0) return true;
  if (indexed_ > vars.size()) return false;
  const auto last = at_.find(vars[indexed_ - 1].name);
  return last != at_.end() && last->second < indexed_ &&
         vars[last->second].name == vars[indexed_ - 1].name;
}

int VarIndex::find(const std::vector<VariableDef>& vars, const std::string& name) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (attempt > 0 || !follows(vars)) clear();
    for (; indexed_ < vars.size(); ++indexed_) at_.emplace(vars[indexed_].name, indexed_);
    const auto it = at_.find(name);
    if (it == at_.end()) return -1;
    if (vars[it->second].name == name) return static_cast<int>(it->second);
  }
  return -1;  // not reached: a rebuilt index is exact
}

const Attribute* IoDef::find_attr(const std::string& attr) const { return find_in(attrs, attr); }

const DimensionDef* IoDef::find_dim(const std::string& dim) const { return find_in(dims, dim); }

Status validate_name(const std::string& kind, const std::string& name) {
  const std::string why = name_definition_problem(name);
  if (why.empty()) return ok_status();
  return error(TAPIO_ERR_ARG, "{} name '{}' {}", kind, printable_name(name), why);
}

Status check_declared_dims_kept(const IoDef& program, const IoDef& file) {
  for (const DimensionDef& d : program.dims) {
    const DimensionDef* f = file.find_dim(d.name);
    if (!f || f->length != d.length)
      return error(TAPIO_ERR_UNSUPPORTED,
                   "dimension '{}' is declared {}, which the file being appended to {}: its "
                   "dimensions are fixed at creation",
                   d.name, d.unlimited() ? "unlimited" : fmt::format("with length {}", d.length),
                   f ? "declares otherwise" : "does not have");
  }
  return ok_status();
}

Status validate_variable(const VariableDef& v, const std::string& step_dim) {
  TAPIO_RETURN_IF_ERROR(validate_name("variable", v.name));
  if (!type_is_valid(v.type))
    return error(TAPIO_ERR_TYPE, "variable '{}': invalid element type {}", v.name,
                 static_cast<int>(v.type));
  if (v.dim_names.size() != v.shape.size())
    return error(TAPIO_ERR_SHAPE, "variable '{}': {} dimension names for {} dimensions", v.name,
                 v.dim_names.size(), v.shape.size());
  if (v.joined && (v.shape.empty() || !v.record))
    return error(TAPIO_ERR_SHAPE,
                 "variable '{}': a joined array needs at least one dimension and a value per "
                 "step (not fixed)",
                 v.name);
  for (size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0 && !(d == 0 && v.joined))
      return error(TAPIO_ERR_SHAPE, "variable '{}': dimension {} ('{}') has length 0", v.name, d,
                   v.dim_names[d]);
    TAPIO_RETURN_IF_ERROR(validate_name("dimension", v.dim_names[d]).with_context(
        fmt::format("variable '{}'", v.name)));
    if (v.dim_names[d] == step_dim)
      return error(TAPIO_ERR_ARG, "variable '{}': dimension name '{}' is reserved: NetCDF files "
                   "hold the steps along it (an unlimited dimension); name the dimension "
                   "otherwise", v.name, step_dim);
  }
  return ok_status();
}

void set_attribute(std::vector<Attribute>& attrs, Attribute a) {
  for (auto& existing : attrs) {
    if (existing.name == a.name) {
      existing = std::move(a);
      return;
    }
  }
  attrs.push_back(std::move(a));
}

std::string default_dim_name(uint64_t length) { return fmt::format("dim{}", length); }

}  // namespace tapio
