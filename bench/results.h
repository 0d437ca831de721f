// What one run measured, per method, and how it is printed (report.cpp) and saved (json.cpp).
#pragma once
#include "bench.h"

namespace bench {

struct Stats {
  double median = 0, min = 0, max = 0;
};
Stats stats(std::vector<double> v);

// Per phase, the median over repetitions of each repetition's per-rank median and maximum
// time, in milliseconds: {"write": {"median": .., "max": ..}, ...}; null without phases.
json phase_summary(const std::vector<json>& reps);
// The phases' names in the order the profile writes them ("plan", ..., "other").
std::vector<std::string> phase_names(const std::vector<json>& reps);

struct MethodResult {
  std::string name;
  Availability avail;
  std::string error;             // set when the method failed (tapio error)
  std::vector<double> write_mib_s, read_mib_s, read_ms;
  std::vector<double> compute_s;  // each repetition's --compute seconds inside the write
  Counters write, read;          // of the last repetition
  std::vector<json> write_phases, read_phases;  // each repetition's (tapio engines)
  double peak_rss_mib = 0;       // max over ranks and repetitions
  uint64_t wrong = 0;            // wrong elements over all ranks and repetitions
  double max_error = 0;          // largest |read - written| over ranks and repetitions
  json extra;                    // method-specific results (subfile: "metadata"), rank 0
  bool ran() const { return avail.kind == Availability::kAvailable && error.empty() && !write_mib_s.empty(); }
  bool verified() const { return ran() && wrong == 0; }
  std::string status() const;
};

struct RunInfo {
  std::string pattern;
  int ranks = 0, reps = 0;
  json params, machine;
  uint64_t write_bytes = 0, read_bytes = 0;
  bool timed_read = false, fsync = true;
  std::string op;  // --operator: the subfile engine with it against without (operators.cpp)
  std::string dir;
};

json machine_description(MPI_Comm comm, const std::string& dir);  // collective
json to_json(const RunInfo& info, const std::vector<MethodResult>& results);
void print_table(const RunInfo& info, const std::vector<MethodResult>& results);

// --operator (operators.cpp): on the licom pattern only, the data become smooth LICOM-like
// fields, reads are checked to within the operator's bound, and the methods are `subfile`
// and `subfile+SPEC` (after any --methods asked for). An error message otherwise.
std::optional<std::string> compare_operator(const std::string& spec, const Pattern& pattern,
                                            std::string* methods,
                                            std::vector<std::unique_ptr<Method>>* all);
// Per method: ratio (bytes put / bytes stored), write and read MiB/s, max error and bound.
json operator_summary(const RunInfo& info, const std::vector<MethodResult>& results);
void print_operator_table(const RunInfo& info, const std::vector<MethodResult>& results);
// Ratio of a method's median write bandwidth to the best verified peer's / to raw's.
std::optional<double> ratio_to_best_peer(const MethodResult& m, const std::vector<MethodResult>& all);
std::optional<double> ratio_to_raw(const MethodResult& m, const std::vector<MethodResult>& all);

}  // namespace bench
