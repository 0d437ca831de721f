// tapio sim CLUSTER.toml WORKLOAD.toml: the cluster model (src/sim) on one workload. Prints the
// predicted time per phase, the bandwidth and the bottleneck (--json for scripts); --plot
// draws the rounds with matplotlib (scripts/sim_plot.py, in the project's venv). No MPI.
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim_commands.h"
#include "sim/model.h"
#include "sim/patterns.h"
#include "sim/traffic.h"
#include "sim/units.h"
#include "sim/workload.h"

#ifndef TAPIO_SOURCE_DIR
#define TAPIO_SOURCE_DIR "."
#endif

namespace tapio::cli {
namespace {

using json = nlohmann::ordered_json;

bool cluster_key(const std::string& assignment) {
  for (const char* s : {"nodes.", "nic.", "network.", "storage.", "memory."})
    if (assignment.rfind(s, 0) == 0) return true;
  return false;
}

// A bar on stderr when it is a terminal; nothing otherwise.
sim::Progress progress_bar() {
  if (!isatty(fileno(stderr))) return nullptr;
  return [last = -1](double f) mutable {
    const int pct = static_cast<int>(f * 100);
    if (pct == last) return;
    last = pct;
    const int width = 40, done = pct * width / 100;
    std::fprintf(stderr, "\rplanning ranks [%s%s] %3d%%", std::string(done, '#').c_str(),
                 std::string(width - done, ' ').c_str(), pct);
    if (pct >= 100) std::fprintf(stderr, "\r%*s\r", width + 24, "");
    std::fflush(stderr);
  };
}

double peak_memory_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024;
}

json term_json(const sim::Term& t) {
  return {{"resource", t.kind}, {"instance", t.instance}, {"seconds", t.seconds}};
}

json to_json(const sim::Workload& w, const sim::Traffic& t, const sim::Prediction& p,
             double elapsed) {
  json phases = json::object();
  for (const auto& [name, s] : p.phases) phases[name] = s;
  json rounds = json::array();
  for (const sim::RoundTime& r : p.rounds)
    rounds.push_back({{"exchange", r.exchange}, {"write", r.write},
                      {"exchange_by", term_json(r.exchange_by)}, {"write_by", term_json(r.write_by)}});
  json resources = json::array();
  for (const sim::Term& r : p.by_resource) resources.push_back(term_json(r));
  json params = json::object();
  for (const auto& [k, v] : w.params.values()) params[k] = v;
  return {{"workload", {{"pattern", w.pattern.name}, {"ranks", w.ranks}, {"engine", w.engine},
                        {"params", params}}},
          {"plan", {{"mode", t.mode}, {"nodes", t.nodes}, {"writers", t.writers},
                    {"rounds", t.rounds.size()}, {"window_bytes", t.window},
                    {"bytes_per_step", t.bytes}, {"steps", t.steps}, {"segments", t.segments},
                    {"segments_described", t.described}}},
          {"seconds", p.total},
          {"bandwidth", p.bandwidth},
          {"phases", phases},
          {"plan_per_step", {{"first", p.plan_first_step}, {"later", p.plan_later_step}}},
          {"bottleneck", term_json(p.bottleneck)},
          {"resources", resources},
          {"rounds", rounds},
          {"simulation", {{"elapsed_s", elapsed}, {"peak_memory_bytes", peak_memory_bytes()}}}};
}

void print_text(const sim::Workload& w, const sim::Traffic& t, const sim::Prediction& p,
                double elapsed) {
  std::printf("%s, %d ranks on %d nodes, %s engine (%s): %s per step in %zu rounds, %llu steps\n",
              w.pattern.name.c_str(), w.ranks, t.nodes, w.engine.c_str(), t.mode.c_str(),
              sim::format_bytes(static_cast<double>(t.bytes)).c_str(), t.rounds.size(),
              static_cast<unsigned long long>(t.steps));
  std::printf("predicted: %s, %s\n", sim::format_duration(p.total).c_str(),
              sim::format_rate(p.bandwidth).c_str());
  for (const auto& [name, s] : p.phases)
    if (s > 0) std::printf("  %-9s %10s  %5.1f%%\n", name.c_str(), sim::format_duration(s).c_str(),
                           100 * s / p.total);
  if (t.steps > 1)
    std::printf("planning: %s the first step, %s each later step (plans reused)\n",
                sim::format_duration(p.plan_first_step).c_str(),
                sim::format_duration(p.plan_later_step).c_str());
  std::printf("bottleneck: %s (%s), %s of the run\n", p.bottleneck.kind.c_str(),
              p.bottleneck.instance.c_str(), sim::format_duration(p.bottleneck.seconds).c_str());
  std::printf("simulated in %.2f s, peak memory %s\n", elapsed,
              sim::format_bytes(peak_memory_bytes()).c_str());
}

int plot(const json& j, const std::string& out) {
  const std::string data = out + ".json";
  std::ofstream(data) << j.dump(1);
  const std::string cmd = fmt::format("\"{}\" \"{}/scripts/sim_plot.py\" \"{}\" \"{}\"",
                                      project_python(), TAPIO_SOURCE_DIR, data, out);
  const int rc = std::system(cmd.c_str());
  std::remove(data.c_str());
  return rc == 0 ? 0 : fail("--plot: " + cmd + " failed (matplotlib in the project's .venv, or in $TAPIO_PYTHON?)");
}

}  // namespace

int run_sim(const SimOptions& o) {
  if (o.calibrate) return run_calibrate(o);
  if (o.cluster.empty() || o.workload.empty())
    return fail("sim: give CLUSTER.toml and WORKLOAD.toml (or --calibrate)");
  std::vector<std::string> cluster_sets, workload_sets;
  for (const std::string& s : o.sets) (cluster_key(s) ? cluster_sets : workload_sets).push_back(s);
  auto cluster = sim::load_cluster(o.cluster, cluster_sets);
  if (!cluster.ok()) return fail(cluster.status().message());
  auto workload = sim::load_workload(o.workload, workload_sets, TAPIO_SOURCE_DIR "/../shared/data/e3sm-io");
  if (!workload.ok()) return fail(workload.status().message());
  const auto t0 = std::chrono::steady_clock::now();
  auto pattern = sim::make_pattern(workload->pattern, workload->ranks);
  if (!pattern.ok()) return fail(pattern.status().message());
  if (o.explain) return explain(o, *cluster, *workload, **pattern);
  auto traffic = sim::plan_traffic(*workload, **pattern, *cluster, progress_bar());
  if (!traffic.ok()) return fail(traffic.status().message());
  const sim::Prediction p = sim::predict(*traffic, *cluster);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const json j = to_json(*workload, *traffic, p, elapsed);
  if (o.json) std::printf("%s\n", j.dump(1).c_str());
  else print_text(*workload, *traffic, p, elapsed);
  return o.plot.empty() ? 0 : plot(j, o.plot);
}

}  // namespace tapio::cli
