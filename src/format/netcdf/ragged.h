// Joined arrays in NetCDF: CF contiguous ragged arrays (CF Conventions 1.11, section 9.3.3).
// A joined variable becomes a fixed variable over its sample dimension, every step's blocks one
// after another, and each sample dimension gets a count variable over `time` whose attribute
// `sample_dimension` names it: step s's samples are those after the counts of the steps before.
// xarray, cf-xarray and netCDF4-python read it with no tapio code. Pure.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/model.h"
#include "core/status.h"

namespace tapio::netcdf {

// The count variable of sample dimension `dim`: "<dim>_count".
std::string count_variable_name(const std::string& dim);

// `io` with its joined variables made ragged: `totals` gives each sample dimension (a joined
// variable's first dimension name) its length over all steps. Joined variables that share a
// sample dimension share its count variable (their lengths must agree at every step: the
// caller checks). Non-joined variables are unchanged; a name that a count variable would take
// is TAPIO_ERR_ARG, and a sample dimension of length 0 (NetCDF's unlimited length)
// TAPIO_ERR_UNSUPPORTED.
Result<IoDef> ragged_definitions(const IoDef& io, const std::map<std::string, uint64_t>& totals);

}  // namespace tapio::netcdf
