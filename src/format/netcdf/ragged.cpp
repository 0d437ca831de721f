#include "format/netcdf/ragged.h"

#include <algorithm>
#include <set>

namespace tapio::netcdf {

namespace {
Attribute text(const std::string& name, const std::string& value) {
  return Attribute{name, TAPIO_CHAR, std::vector<uint8_t>(value.begin(), value.end())};
}

bool is_integer(NcType t) {
  return t == NC_BYTE || t == NC_SHORT || t == NC_INT || t == NC_UBYTE || t == NC_USHORT ||
         t == NC_UINT || t == NC_INT64 || t == NC_UINT64;
}

std::string text_of(const Attr& a) { return std::string(a.values.begin(), a.values.end()); }

// The sample dimension a variable of `io` counts, or "" if it counts none.
std::string counted_dim(const VariableDef& v) {
  const Attribute* a = v.find_attr("sample_dimension");
  return a && v.record && a->type == TAPIO_CHAR ? a->as_string() : std::string();
}
}  // namespace

std::string count_variable_name(const std::string& dim) { return dim + "_count"; }

Result<IoDef> ragged_definitions(const IoDef& io, const std::map<std::string, uint64_t>& totals) {
  std::set<std::string> sample_dims;
  for (const VariableDef& v : io.vars)
    if (v.joined) sample_dims.insert(v.dim_names[0]);
  IoDef out = io;
  out.vars.clear();
  std::vector<VariableDef> counts;
  for (const VariableDef& v : io.vars) {
    if (sample_dims.count(counted_dim(v))) continue;  // counted anew below
    if (!v.joined) {
      out.vars.push_back(v);
      continue;
    }
    const std::string& dim = v.dim_names[0];
    const auto total = totals.find(dim);
    if (total == totals.end())
      return error(TAPIO_ERR_INTERNAL, "no length for sample dimension '{}' of '{}'", dim,
                   v.name);
    if (total->second == 0)  // a classic NetCDF dimension of length 0 is the unlimited one
      return error(TAPIO_ERR_UNSUPPORTED, "joined variable '{}' has no samples in any step, and "
                   "a NetCDF file cannot hold its sample dimension '{}' with length 0", v.name,
                   dim);
    VariableDef fixed = v;
    fixed.joined = false;
    fixed.record = false;
    fixed.shape[0] = total->second;
    out.vars.push_back(std::move(fixed));
    const std::string name = count_variable_name(dim);
    if (std::any_of(counts.begin(), counts.end(),
                    [&](const VariableDef& c) { return c.name == name; }))
      continue;
    const int taken = io.find_var(name);
    if (taken >= 0 && counted_dim(io.vars[taken]) != dim)
      return error(TAPIO_ERR_ARG, "variable '{}' takes the name of the count variable of joined "
                   "variable '{}' (sample dimension '{}')", name, v.name, dim);
    VariableDef count;
    count.name = name;
    count.type = TAPIO_INT64;
    count.record = true;
    count.attrs = {text("long_name", fmt::format("number of {} samples per step", dim)),
                   text("sample_dimension", dim)};
    counts.push_back(std::move(count));
  }
  for (VariableDef& c : counts) out.vars.push_back(std::move(c));
  return out;
}

std::vector<SampleDim> sample_dims(const Header& h) {
  std::vector<SampleDim> out;
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const Var& v = h.vars[i];
    if (!h.is_record(v) || v.dimids.size() != 1 || !is_integer(v.type)) continue;
    const auto a = std::find_if(v.attrs.begin(), v.attrs.end(), [](const Attr& x) {
      return x.name == "sample_dimension" && x.type == NC_CHAR;
    });
    if (a == v.attrs.end()) continue;
    const int dim = h.find_dim(text_of(*a));
    if (dim < 0 || h.dims[dim].length == 0) continue;
    if (std::any_of(out.begin(), out.end(), [&](const SampleDim& s) { return s.dimid == dim; }))
      continue;  // a second count of the same dimension is an ordinary variable
    out.push_back(SampleDim{dim, static_cast<int>(i)});
  }
  return out;
}

void mark_joined(const Header& h, const std::vector<SampleDim>& dims, IoDef* io) {
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const Var& v = h.vars[i];
    if (h.is_record(v) || v.dimids.empty()) continue;
    if (std::none_of(dims.begin(), dims.end(),
                     [&](const SampleDim& s) { return s.dimid == v.dimids[0]; }))
      continue;
    VariableDef& def = io->vars[i];
    def.joined = true;
    def.record = true;
    def.shape[0] = 0;
  }
  // A sample dimension is the joined arrays' own, not a declared one (io_from_header's).
  auto is_sample = [&](const DimensionDef& d) {
    return std::any_of(dims.begin(), dims.end(),
                       [&](const SampleDim& s) { return h.dims[s.dimid].name == d.name; });
  };
  io->dims.erase(std::remove_if(io->dims.begin(), io->dims.end(), is_sample), io->dims.end());
}

}  // namespace tapio::netcdf
