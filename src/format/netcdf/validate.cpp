// Structural checks of a header model, independent of where its bytes came from.
#include <unordered_set>

#include "core/names.h"
#include "format/netcdf/header.h"
#include "format/netcdf/validate.h"

namespace tapio::netcdf {
namespace {

// Largest NON_NEG: CDF-1/2 fields are 32 bits (read unsigned, as the reference library does),
// CDF-5 fields are non-negative INT64.
uint64_t max_non_neg(int version) { return version == 5 ? INT64_MAX : UINT32_MAX; }
// Largest OFFSET: non-negative INT (CDF-1) or INT64 (CDF-2/5).
uint64_t max_offset(int version) { return version == 1 ? INT32_MAX : INT64_MAX; }

Status check_name(const std::string& name, const char* kind,
                  std::unordered_set<std::string>* seen) {
  const std::string why = name_grammar_problem(name);
  if (!why.empty())
    return error(TAPIO_ERR_FORMAT, "invalid {} name '{}': it {}", kind, printable_name(name),
                 why);
  if (!seen->insert(name).second) {
    return error(TAPIO_ERR_FORMAT, "duplicate {} name '{}'", kind, printable_name(name));
  }
  return ok_status();
}

Status check_count(uint64_t n, int version, const char* what) {
  if (n <= max_non_neg(version)) return ok_status();
  return error(TAPIO_ERR_FORMAT, "{} {} does not fit CDF-{}", what, n, version);
}

Status check_numrecs(const Header& h) {
  const bool streaming = h.numrecs == (h.version == 5 ? UINT64_MAX : UINT32_MAX);
  if (streaming) return ok_status();  // numrecs = NON_NEG | STREAMING
  return check_count(h.numrecs, h.version, "numrecs");
}

// dim = name dim_length; dim_length = NON_NEG, zero for the record dimension (at most one).
Status check_dims(const Header& h) {
  std::unordered_set<std::string> seen;
  int unlimited = -1;
  for (size_t i = 0; i < h.dims.size(); ++i) {
    const Dim& d = h.dims[i];
    TAPIO_RETURN_IF_ERROR(check_name(d.name, "dimension", &seen));
    TAPIO_RETURN_IF_ERROR(check_count(d.length, h.version, "dimension length"));
    if (d.length != 0) continue;
    if (unlimited >= 0) {
      return error(TAPIO_ERR_FORMAT, "more than one unlimited dimension: '{}' and '{}'",
                   printable_name(h.dims[unlimited].name), printable_name(d.name));
    }
    unlimited = int(i);
  }
  return ok_status();
}

// attr = name nc_type nelems [values ...]
Status check_attrs(const std::vector<Attr>& attrs, int version, const std::string& owner) {
  std::unordered_set<std::string> seen;
  for (const Attr& a : attrs) {
    TAPIO_RETURN_IF_ERROR(check_name(a.name, "attribute", &seen).with_context(owner));
    if (!nc_type_valid(a.type, version)) {
      return error(TAPIO_ERR_FORMAT, "{}: attribute '{}' has type {}, invalid in CDF-{}", owner,
                   printable_name(a.name), int(a.type), version);
    }
    if (a.values.size() % nc_type_size(a.type) != 0) {
      return error(TAPIO_ERR_FORMAT, "{}: attribute '{}' has {} value bytes, not a multiple of "
                   "its type size {}", owner, printable_name(a.name), a.values.size(),
                   nc_type_size(a.type));
    }
    TAPIO_RETURN_IF_ERROR(check_count(a.count(), version, "attribute length").with_context(owner));
  }
  return ok_status();
}

// dimid = NON_NEG: an index into dim_list; the record dimension may only come first.
Status check_dimids(const Header& h, const Var& v) {
  const int rec = h.record_dimid();
  for (size_t i = 0; i < v.dimids.size(); ++i) {
    const int32_t id = v.dimids[i];
    if (id < 0 || size_t(id) >= h.dims.size()) {
      return error(TAPIO_ERR_FORMAT, "dimension id {} out of range in variable '{}'", id,
                   printable_name(v.name));
    }
    if (id == rec && i != 0) {
      return error(TAPIO_ERR_FORMAT, "unlimited dimension '{}' is dimension {} of variable "
                   "'{}'; it may only be the first", printable_name(h.dims[id].name), i,
                   printable_name(v.name));
    }
  }
  return ok_status();
}

// var = name nelems [dimid ...] vatt_list nc_type vsize begin
Status check_var(const Header& h, const Var& v) {
  const std::string owner = fmt::format("variable '{}'", printable_name(v.name));
  TAPIO_RETURN_IF_ERROR(check_count(v.dimids.size(), h.version, "rank").with_context(owner));
  TAPIO_RETURN_IF_ERROR(check_dimids(h, v));
  if (!nc_type_valid(v.type, h.version)) {
    return error(TAPIO_ERR_FORMAT, "{} has type {}, invalid in CDF-{}", owner, int(v.type),
                 h.version);
  }
  TAPIO_RETURN_IF_ERROR(compute_vsize(h, v).status());
  return check_attrs(v.attrs, h.version, owner);
}

// vsize = NON_NEG (a CDF-1/2 vsize too large is stored as 2^32-1); begin = OFFSET.
Status check_placement(const Header& h, const Var& v) {
  const std::string owner = fmt::format("variable '{}'", printable_name(v.name));
  if (h.version == 5 && v.vsize > INT64_MAX) {
    return error(TAPIO_ERR_FORMAT, "{} has vsize {}, too large for CDF-5", owner, v.vsize);
  }
  if (v.begin > max_offset(h.version)) {
    return error(TAPIO_ERR_FORMAT, "{} begins at byte {}, past the CDF-{} offset limit {}",
                 owner, v.begin, h.version, max_offset(h.version));
  }
  return ok_status();
}

Status check_vars(const Header& h) {
  std::unordered_set<std::string> seen;
  for (const Var& v : h.vars) {
    TAPIO_RETURN_IF_ERROR(check_name(v.name, "variable", &seen));
    TAPIO_RETURN_IF_ERROR(check_var(h, v));
  }
  return ok_status();
}

}  // namespace

Status detail::validate_definitions(const Header& h) {
  if (h.version != 1 && h.version != 2 && h.version != 5) {
    return error(TAPIO_ERR_FORMAT, "unsupported version {}", h.version);
  }
  TAPIO_RETURN_IF_ERROR(check_numrecs(h));
  TAPIO_RETURN_IF_ERROR(check_count(h.dims.size(), h.version, "dimension count"));
  TAPIO_RETURN_IF_ERROR(check_count(h.attrs.size(), h.version, "attribute count"));
  TAPIO_RETURN_IF_ERROR(check_count(h.vars.size(), h.version, "variable count"));
  TAPIO_RETURN_IF_ERROR(check_dims(h));
  TAPIO_RETURN_IF_ERROR(check_attrs(h.attrs, h.version, "global attributes"));
  return check_vars(h);
}

Status validate(const Header& h) {
  TAPIO_RETURN_IF_ERROR(detail::validate_definitions(h));
  for (const Var& v : h.vars) TAPIO_RETURN_IF_ERROR(check_placement(h, v));
  return ok_status();
}

}  // namespace tapio::netcdf
