// validate() in two parts (internal): definitions, and then vsize/begin placement.
#pragma once
#include "core/status.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf::detail {

// Everything validate() checks except each variable's vsize and begin fields, which
// compute_layout() is about to overwrite.
Status validate_definitions(const Header& h);

}  // namespace tapio::netcdf::detail
