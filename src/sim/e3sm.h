// The E3SM pattern of tapio-bench (bench/patterns/e3sm.cpp) without MPI: E3SM-IO's history
// headers (`ncdump -h` text) and decomposition maps (CDF-5), variables matched to
// decompositions by their dimensions, and the maps scaled to any rank count.
//
// Scaling: at most 16 ranks split the 16 map processes as the bench does (rank r takes
// processes [16r/P, 16(r+1)/P)). Beyond, the map is replicated k = ceil(P/16) times along its
// horizontal dimension (F: ncol; G: nCells, nEdges, nVertices; I: lon), copy j's elements
// shifted by j times that dimension's size, and the 16k processes are split over the ranks
// the same way: every rank owns what one E3SM process owns on a grid k times larger (weak
// scaling; the 100,000-rank F case is a 5.4-million-column grid).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "sim/patterns.h"

namespace tapio::sim {

// A history header read from `ncdump -h` text.
struct HistoryHeader {
  struct Var {
    std::string name;
    std::vector<std::string> dims;
  };
  std::map<std::string, uint64_t> dims;  // fixed dimensions
  std::string unlimited;
  std::vector<Var> vars;
};
Result<HistoryHeader> parse_history_header(const std::string& text, const std::string& source);

// A decomposition of a map: its global shape and each map process's runs (element offset,
// length), in map order.
struct MapDecomposition {
  std::string name;  // "D1", ...
  std::vector<uint64_t> dims;
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> runs;  // per map process
};
// Decodes an E3SM-IO map (CDF-5 bytes). Errors name the file and what is missing.
Result<std::vector<MapDecomposition>> decode_map(const std::vector<uint8_t>& bytes,
                                                 const std::string& source);

// Which decomposition each header variable is written with, as the bench decides: after
// dropping the record dimension, a variable whose shape equals a decomposition's dims takes
// it (decompositions with the same dims in turn); -1: written whole by rank 0; -2: left out
// (vars_per_decomp reached). `shapes` gets each variable's shape.
std::vector<int> assign_decompositions(const HistoryHeader& h,
                                       const std::vector<std::vector<uint64_t>>& decomposition_dims,
                                       uint64_t vars_per_decomp,
                                       std::vector<std::vector<uint64_t>>* shapes);

Result<std::unique_ptr<Pattern>> make_e3sm(const PatternOptions& options, int ranks);

}  // namespace tapio::sim
