#include "format/netcdf/ragged.h"

namespace tapio::netcdf {

namespace {
Attribute text(const std::string& name, const std::string& value) {
  return Attribute{name, TAPIO_CHAR, std::vector<uint8_t>(value.begin(), value.end())};
}
}  // namespace

std::string count_variable_name(const std::string& dim) { return dim + "_count"; }

Result<IoDef> ragged_definitions(const IoDef& io, const std::map<std::string, uint64_t>& totals) {
  IoDef out = io;
  out.vars.clear();
  std::map<std::string, bool> counted;  // sample dimensions whose count variable is defined
  for (const VariableDef& v : io.vars) {
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
    if (counted[dim]) continue;
    counted[dim] = true;
    VariableDef count;
    count.name = count_variable_name(dim);
    if (io.find_var(count.name) >= 0)
      return error(TAPIO_ERR_ARG, "variable '{}' takes the name of the count variable of joined "
                   "variable '{}' (sample dimension '{}')", count.name, v.name, dim);
    count.type = TAPIO_INT64;
    count.record = true;
    count.attrs = {text("long_name", fmt::format("number of {} samples per step", dim)),
                   text("sample_dimension", dim)};
    out.vars.push_back(std::move(count));
  }
  return out;
}

}  // namespace tapio::netcdf
