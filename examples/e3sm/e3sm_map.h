// E3SM-IO decomposition maps (../shared/data/e3sm-io/map_*_case_*p.nc), read with tapio itself
// and re-split over any number of ranks: the irregular decompositions E3SM's components give
// to PIO. Used by the e3sm_replay example, the tests and the benchmarks.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tapio/tapio.hpp"

namespace tapio::e3sm {

struct Decomposition {
  std::string name;             // "D1", "D2", ...
  std::vector<uint64_t> dims;   // global shape (C order)
  // This rank's runs (offset, length) into the flattened array, in map order.
  std::vector<uint64_t> offsets, lengths;
  uint64_t elements() const;
};

// Collective. Reads every decomposition of `map_path` and gives this rank the runs of the
// map's processes [nprocs * rank / size, nprocs * (rank + 1) / size). Throws tapio::Error.
std::vector<Decomposition> read_maps(Context& ctx, const std::string& map_path, MPI_Comm comm);

}  // namespace tapio::e3sm
