// What is simulated: a benchmark pattern at a rank count, written by an engine with its
// parameters. Read from TOML (docs/sim.md):
//
//   ranks = 768
//   engine = "collective"          # collective, subfile or serial
//   [pattern]
//   name = "hpio"                  # licom, hpio, matrix, e3sm, metadata
//   count = 4096                   # the pattern's options, as tapio-bench names them
//   [params]                       # tapio parameters, checked by the registry
//   aggregators = "1/2"
//
// Pure: no MPI; the only I/O is reading the files named (the workload, an E3SM map).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/params.h"
#include "core/status.h"

namespace tapio::sim {

struct PatternOptions {
  std::string name = "licom";
  uint64_t steps = 0;  // 0: the pattern's default
  // licom
  std::string grid = "144x96x30";
  uint64_t vars3d = 4, vars2d = 2;
  // hpio
  uint64_t count = 4096, size = 256, spacing = 256;
  std::string mem = "contig", file = "noncontig";
  // matrix
  uint64_t rows = 70400, cols = 2000, nb = 16;
  std::string dist = "block";
  // e3sm: a case of ../shared/data/e3sm-io (or map + header files), scaled to the ranks
  std::string kase = "f", map, header, data_dir;
  uint64_t vars_per_decomp = 0;
  // metadata
  uint64_t vars = 100, blocks = 4, block_elements = 16;
};

struct Workload {
  int ranks = 1;
  std::string engine = "collective";
  // How ranks send an aggregator their pieces: packed (tapio: one segment list and one data
  // message per pair and round) or per-piece (Kotz's DDIO: every piece its own message, the
  // baseline of seed 002's IDDIO). Only the model knows per-piece.
  std::string messages = "packed";
  PatternOptions pattern;
  Params params;  // validated by the registry; unset keys take its defaults
};

// Reads a workload file, then `overrides` ("ranks=768", "pattern.count=8192",
// "params.aggregators=1/2"). Errors (TAPIO_ERR_CONFIG) name the file, the line and the key.
// `default_data_dir` is where the E3SM-IO cases are when the file does not say.
Result<Workload> parse_workload(std::string_view text, const std::string& source,
                                const std::vector<std::string>& overrides,
                                const std::string& default_data_dir);
Result<Workload> load_workload(const std::string& path, const std::vector<std::string>& overrides,
                               const std::string& default_data_dir);

}  // namespace tapio::sim
