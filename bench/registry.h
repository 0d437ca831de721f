// The registry: every pattern and method tapio-bench knows, in report order.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

#include "bench.h"

namespace bench {

// A pattern adds its options to its subcommand and returns the builder that makes it once the
// command line is parsed. A pattern not yet implemented has no setup.
using PatternBuilder = std::function<std::unique_ptr<Pattern>(int rank, int size)>;
struct PatternEntry {
  std::string name;
  std::string help;
  std::function<PatternBuilder(CLI::App*)> setup;  // empty: not yet implemented
};
const std::vector<PatternEntry>& patterns();

// Methods, including the ones this build lacks (they report themselves as not built).
std::vector<std::unique_ptr<Method>> all_methods();
// Method variants that run only when named in --methods (not in the default set): the subfile
// metadata backends and reader strategies, which only the metadata pattern needs.
bool named_only(const std::string& method);
// Peers: the libraries tapio is compared with (for "ratio to the best peer").
bool is_peer(const std::string& method);

// One factory per file in patterns/ and methods/.
PatternBuilder setup_licom(CLI::App*);
PatternBuilder setup_hpio(CLI::App*);
PatternBuilder setup_matrix(CLI::App*);
PatternBuilder setup_shared_read(CLI::App*);
PatternBuilder setup_e3sm(CLI::App*);
PatternBuilder setup_metadata(CLI::App*);
PatternBuilder setup_selection(CLI::App*);
PatternBuilder setup_particles(CLI::App*);
std::unique_ptr<Method> make_raw(bool shared);  // raw, or raw-shared (one file)
std::unique_ptr<Method> make_tapio(const std::string& engine);
// A tapio engine under another name with parameters set (subfile-fpp, subfile-log/all, ...).
std::unique_ptr<Method> make_tapio_variant(
    const std::string& name, const std::string& engine,
    const std::vector<std::pair<std::string, std::string>>& params);
std::unique_ptr<Method> make_mpiio(const std::string& component);
std::unique_ptr<Method> make_pnetcdf(bool nonblocking);
std::unique_ptr<Method> make_phdf5();
std::unique_ptr<Method> make_adios1();
// ADIOS2 BP5: the default aggregation (one subfile per node) or, fpp, one subfile per process.
std::unique_ptr<Method> make_adios2(bool fpp);
std::unique_ptr<Method> make_not_built(const std::string& name, const std::string& why);

}  // namespace bench
