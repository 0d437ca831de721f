#include "registry.h"

namespace bench {

const std::vector<PatternEntry>& patterns() {
  static const std::vector<PatternEntry> list = {
      {"licom", "LICOM ocean history: 3-D and 2-D doubles on a 2-D process grid, many steps",
       setup_licom},
      {"hpio", "HPIO regions: count x size bytes, spacing, contiguous or not in memory and file",
       setup_hpio},
      {"matrix", "seed 003 case IV: a rows x cols double matrix by block or block-cyclic columns",
       setup_matrix},
      {"shared-read", "seed 003 case III: every rank reads the same variable", setup_shared_read},
      {"e3sm", "E3SM F/G/I cases: the history headers' variables with their real decomposition maps",
       setup_e3sm},
      {"metadata", "PerfMetaData-like: many variables, small blocks per rank, many steps",
       setup_metadata},
      {"selection", "a small selection (a tile, a row) read from a variable written in many blocks "
                    "over many steps", setup_selection},
      {"particles", "openPMD-like particles: 7 joined 1-D doubles, per-rank counts that change "
                    "by step", setup_particles},
  };
  return list;
}

std::vector<std::unique_ptr<Method>> all_methods() {
  std::vector<std::unique_ptr<Method>> m;
  m.push_back(make_raw(false));
  m.push_back(make_raw(true));
  m.push_back(make_tapio("serial"));
  m.push_back(make_tapio("mpiio"));
  m.push_back(make_tapio("collective"));
  m.push_back(make_tapio("subfile"));
  m.push_back(make_tapio_variant("subfile-fpp", "subfile", {{"aggregators", "all"}}));
  for (const char* md : {"gather", "log", "aligned"})
    for (const char* rd : {"delegate", "all"})
      m.push_back(make_tapio_variant(std::string("subfile-") + md + (rd[0] == 'a' ? "/all" : ""),
                                     "subfile", {{"metadata", md}, {"metadata_read", rd}}));
  // Asynchronous output (docs/benchmarks.md, "Asynchronous output"): named only.
  m.push_back(make_tapio_variant("serial-async", "serial", {{"async", "true"}}));
  m.push_back(make_tapio_variant("collective-async", "collective", {{"async", "true"}}));
  m.push_back(make_tapio_variant("mpiio-async", "mpiio", {{"async", "true"}}));
  m.push_back(make_tapio_variant("subfile-async", "subfile", {{"async", "true"}}));
  m.push_back(make_tapio_variant("subfile-fpp-async", "subfile",
                                 {{"aggregators", "all"}, {"async", "true"}}));
  // Two-level aggregation (docs/benchmarks.md, "Two-level aggregation"): named only.
  m.push_back(make_tapio_variant("collective-two-level", "collective", {{"two_level", "true"}}));
  m.push_back(make_mpiio("romio321"));
  m.push_back(make_mpiio("ompio"));
  m.push_back(make_pnetcdf(false));
  m.push_back(make_pnetcdf(true));
  m.push_back(make_phdf5());
  m.push_back(make_adios1());
  m.push_back(make_adios2(false));
  m.push_back(make_adios2(true));
  return m;
}

bool named_only(const std::string& m) {
  const bool async = m.size() > 6 && m.compare(m.size() - 6, 6, "-async") == 0;
  return async || m == "collective-two-level" || m.rfind("subfile-gather", 0) == 0 || m.rfind("subfile-log", 0) == 0 ||
         m.rfind("subfile-aligned", 0) == 0;
}

bool is_peer(const std::string& m) {
  return m.rfind("mpiio-", 0) == 0 || m.rfind("pnetcdf", 0) == 0 || m == "phdf5" ||
         m == "adios1" || m.rfind("adios2-", 0) == 0;
}

}  // namespace bench
