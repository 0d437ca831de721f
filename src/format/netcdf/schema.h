// Between tapio's data model and a NetCDF header: which dimensions, variables and attributes a
// set of definitions becomes, and back. Pure.
#pragma once
#include "core/model.h"
#include "core/status.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf {

// The name of the unlimited dimension that carries steps.
inline constexpr const char* kRecordDim = "time";

// Dimensions are shared by name (lengths must agree); the declared ones (io.dims) come first,
// in their order, used or not; record variables get the unlimited dimension `record_dim`
// first (declared, or added after the declared ones). Errors name the variable or dimension. `version` 1, 2 or 5
// (types beyond CDF-1/2 rejected).
Result<Header> header_from_io(const IoDef& io, int version,
                              const std::string& record_dim = kRecordDim);

// The definitions a header describes (record vars lose the time dim and get record = true);
// every dimension of the header is declared, in the header's order.
Result<IoDef> io_from_header(const Header& h, const std::string& io_name);

// Model <-> NetCDF attribute.
Attr to_nc_attr(const Attribute& a);
Attribute from_nc_attr(const Attr& a);

}  // namespace tapio::netcdf
