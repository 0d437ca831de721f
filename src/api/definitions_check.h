// Rank-inconsistent definitions, caught at open: every rank must declare the same dimensions
// (names, lengths, order), variables (names, types, shapes, dimension names, record flags),
// attributes, engine and parameters, or the file silently takes one rank's (only rank 0's
// attribute values reach a NetCDF file), and the same path and mode.
#pragma once
#include <string>

#include "comm/comm.h"
#include "core/model.h"
#include "engine/engine.h"

namespace tapio::api {

// Collective. One reduction of a 16-byte hash of the definitions when they agree (the common
// case); when they differ, TAPIO_ERR_ARG on every rank naming the first differing definition
// as rank 0 has it and as the lowest differing rank has it. In read mode the program's
// variables and attributes are replaced by the file's, so only the path, mode, engine and
// parameters count.
Status check_same_definitions(const comm::Comm& comm, const IoDef& io, const std::string& path,
                              const std::string& engine, const Params& params, OpenMode mode);

}  // namespace tapio::api
