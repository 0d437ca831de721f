// The pure part of reading an E3SM-IO decomposition map: the arrays a map file holds for one
// decomposition, checked, and the runs of a range of the map's processes. No MPI and no I/O,
// so hostile maps can be fuzzed (tests/fuzz/e3sm_map_fuzz.cpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tapio::e3sm {

struct Decomposition {
  std::string name;             // "D1", "D2", ...
  std::vector<uint64_t> dims;   // global shape (C order)
  // This rank's runs (offset, length) into the flattened array, in map order.
  std::vector<uint64_t> offsets, lengths;
  uint64_t elements() const;
};

// One decomposition as stored: "Dk.dims" (attribute), "Dk.nreqs" (requests per process) and
// the requests' "Dk.offsets" and "Dk.lengths", process after process.
struct MapArrays {
  std::vector<int32_t> dims, nreqs, offsets, lengths;
};

// Fills out->dims and the runs of processes [first, last) of the map. Returns "" or what is
// wrong with the map: a dimension that is not positive, request counts that are negative or
// do not add up to the requests stored, or a run outside the array.
std::string split_map(const MapArrays& map, size_t first, size_t last, Decomposition* out);

}  // namespace tapio::e3sm
