// Joined arrays in NetCDF: CF contiguous ragged arrays (CF Conventions 1.11, section 9.3.3).
// A joined variable becomes a fixed variable over its sample dimension, every step's blocks one
// after another, and each sample dimension gets a count variable over `time` whose attribute
// `sample_dimension` names it: step s's samples are those after the counts of the steps before.
// xarray, cf-xarray and netCDF4-python read it with no tapio code. Pure.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/status.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf {

// The count variable of sample dimension `dim`: "<dim>_count".
std::string count_variable_name(const std::string& dim);

// `io` with its joined variables made ragged: `totals` gives each sample dimension (a joined
// variable's first dimension name) its length over all steps. Joined variables that share a
// sample dimension share its count variable (their lengths must agree at every step: the
// caller checks). The count variables come after every variable of `io`, so that a variable
// keeps its index. A variable of `io` that already counts a sample dimension (its
// `sample_dimension` attribute names it: `io` was read from a ragged file) is replaced by the
// new count variable. Other variables are unchanged; a name that a count variable would take
// is TAPIO_ERR_ARG, and a sample dimension of length 0 (NetCDF's unlimited length)
// TAPIO_ERR_UNSUPPORTED.
Result<IoDef> ragged_definitions(const IoDef& io, const std::map<std::string, uint64_t>& totals);

// A sample dimension of a ragged file: the dimension and the variable that counts it.
struct SampleDim {
  int dimid = -1;
  int count_var = -1;  // index in the header's variables
};

// The sample dimensions of `h`: those that a count variable names in its `sample_dimension`
// attribute (a record variable of an integer type over `time` alone, counting a fixed
// dimension), in the order of their count variables. Anything else with that attribute is not
// a count variable and stays an ordinary variable.
std::vector<SampleDim> sample_dims(const Header& h);

// Read mode: marks the variables of `io` (read from `h`, variable for variable) that lie over
// a sample dimension as joined arrays, whose length is then a step's count (shape[0] = 0 until
// a step is read), and drops the sample dimensions from its declared ones. Count variables
// stay as they are.
void mark_joined(const Header& h, const std::vector<SampleDim>& dims, IoDef* io);

}  // namespace tapio::netcdf
