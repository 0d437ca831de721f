// E3SM-IO decomposition maps (../shared/data/e3sm-io/map_*_case_*p.nc), read with tapio itself
// and re-split over any number of ranks: the irregular decompositions E3SM's components give
// to PIO. Used by the e3sm_replay example, the tests and the benchmarks.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "map_split.h"
#include "tapio/tapio.hpp"

namespace tapio::e3sm {

// Collective. Reads every decomposition of `map_path` and gives this rank the runs of the
// map's processes [nprocs * rank / size, nprocs * (rank + 1) / size). Throws tapio::Error
// (TAPIO_ERR_FORMAT naming the decomposition for a map that does not hold together).
std::vector<Decomposition> read_maps(Context& ctx, const std::string& map_path, MPI_Comm comm);

}  // namespace tapio::e3sm
