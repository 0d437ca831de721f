// tapio-bench: run one pattern with many methods, interleaved repetitions, verified results.
//   mpiexec -n P tapio-bench PATTERN [options]      (contract: docs/benchmarks.md)
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "progress.h"  // tools/: the tapio command's progress line
#include "registry.h"
#include "results.h"
#include "tapio/tapio.hpp"

namespace bench {
namespace {

// Peak RSS of this process since the last reset: VmHWM, which writing 5 to clear_refs resets.
bool reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}
double peak_rss_mib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

double max_over_ranks(MPI_Comm comm, double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

// With --compute: for each method M measured beside M-async, the share of M's write time that
// M-async hid behind the compute: (compute + write - wall_async) / write, where compute is
// what the busy loops took in M's run (no writer thread beside them) and write = wall_M -
// compute. Medians of the interleaved repetitions; wall is open to close, compute included.
void print_hidden_writes(double wmib, const std::vector<MethodResult>& results) {
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  for (const MethodResult& sync : results)
    for (const MethodResult& async : results) {
      if (async.name != sync.name + "-async" || !sync.ran() || !async.ran()) continue;
      const double ws = wmib / median(sync.write_mib_s), wa = wmib / median(async.write_mib_s);
      const double compute = median(sync.compute_s), write = ws - compute;
      std::printf("hidden writes, %s vs %s: wall %.3f s vs %.3f s, compute %.3f s (%.3f s in "
                  "%s), write %.3f s: %.0f%% hidden\n",
                  async.name.c_str(), sync.name.c_str(), wa, ws, compute,
                  median(async.compute_s), async.name.c_str(), write,
                  100.0 * (compute + write - wa) / write);
    }
}

struct Options {
  std::string methods, dir = "/tmp", json_path, op;
  int reps = 3;
  bool keep = false, no_fsync = false, read = false;
};

int run(int argc, char** argv, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);

  CLI::App app{"tapio-bench: I/O patterns x methods, interleaved repetitions, verified"};
  app.fallthrough();
  app.require_subcommand(1, 1);
  Options o;
  app.add_option("--methods", o.methods, "comma-separated methods (default: every built method)");
  app.add_option("--reps", o.reps, "interleaved repetitions")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--dir", o.dir, "where files go (/dev/shm allowed)")->capture_default_str();
  app.add_flag("--keep", o.keep, "keep each method's output as DIR/PATTERN.METHOD.*");
  app.add_option("--json", o.json_path, "write the results as JSON to this file");
  app.add_flag("--no-fsync", o.no_fsync, "no fsync at close (page-cache figures)");
  app.add_flag("--read", o.read, "also time reading back");
  app.add_option("--operator", o.op,
                 "licom only: compare the subfile engine with this operator (e.g. zstd:level=3, "
                 "zfp:accuracy=1e-3) against it without, on smooth LICOM-like fields");
  std::vector<std::pair<CLI::App*, PatternBuilder>> subs;
  for (const auto& p : patterns()) {
    CLI::App* sub = app.add_subcommand(p.name, p.help);
    if (p.setup)
      subs.push_back({sub, p.setup(sub)});
    else
      subs.push_back({sub, nullptr}), sub->allow_extras();
  }
  // A pattern not yet implemented: say so (its own options are not defined yet).
  for (int i = 1; i < argc; ++i)
    for (const auto& p : patterns())
      if (!p.setup && p.name == argv[i]) {
        if (rank == 0) std::fprintf(stderr, "tapio-bench: pattern '%s' is not yet implemented\n", argv[i]);
        return 2;
      }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (rank == 0) return app.exit(e);
    return e.get_exit_code();
  }
  CLI::App* chosen = nullptr;
  PatternBuilder builder;
  for (auto& [sub, b] : subs)
    if (sub->parsed()) chosen = sub, builder = b;
  if (!builder) {
    if (rank == 0)
      std::fprintf(stderr, "tapio-bench: pattern '%s' is not yet implemented\n",
                   chosen->get_name().c_str());
    return 2;
  }
  std::unique_ptr<Pattern> pattern;
  try {
    pattern = builder(rank, size);
  } catch (const BenchError& e) {
    if (rank == 0) std::fprintf(stderr, "tapio-bench: %s\n", e.what());
    return 2;
  }

  // Methods: the requested ones in the order asked, or every one that was built.
  RunConfig cfg{o.dir, !o.no_fsync, comm, rank, size};
  cfg.compute_s = pattern->compute_seconds();
  std::vector<std::unique_ptr<Method>> methods;
  auto all = all_methods();
  if (!o.op.empty()) {
    const std::optional<std::string> bad = compare_operator(o.op, *pattern, &o.methods, &all);
    if (bad) {
      if (rank == 0) std::fprintf(stderr, "tapio-bench: %s\n", bad->c_str());
      return 2;
    }
    o.read = true;
  }
  if (o.methods.empty()) {
    for (auto& m : all)
      if (!named_only(m->name())) methods.push_back(std::move(m));
  } else {
    for (const auto& want : split_list(o.methods)) {
      bool found = false;
      for (auto& m : all)
        if (m && m->name() == want) methods.push_back(std::move(m)), found = true;
      if (!found) {
        if (rank == 0) {
          std::string known;
          for (auto& m : all_methods()) known += " " + m->name();
          std::fprintf(stderr, "tapio-bench: unknown method '%s' (known:%s)\n", want.c_str(), known.c_str());
        }
        return 2;
      }
    }
  }
  std::vector<MethodResult> results(methods.size());
  for (size_t i = 0; i < methods.size(); ++i) {
    results[i].name = methods[i]->name();
    results[i].avail = methods[i]->available(cfg);
    if (results[i].avail.kind == Availability::kAvailable)
      results[i].avail = methods[i]->supports(*pattern);
    if (cfg.compute_s > 0 && !methods[i]->computes())
      results[i].avail = {Availability::kUnavailable, "--compute is run by the tapio methods only"};
    if (results[i].avail.kind == Availability::kAvailable && pattern->joined() &&
        !methods[i]->joins())
      results[i].avail = {Availability::kUnavailable,
                          "no joined arrays (a length that changes by step) in this method"};
  }

  // Every step's data, made before any timing, in each piece's memory layout.
  StepData data(pattern->steps());
  for (uint64_t s = 0; s < pattern->steps(); ++s)
    for (size_t v = 0; v < pattern->vars().size(); ++v) {
      const Piece& pc = pattern->step_write_piece(static_cast<int>(v), s);
      data[s].emplace_back(pc.mem_elements);
      fill(pc, static_cast<int>(v), s, data[s].back().data());
    }

  RunInfo info;
  info.pattern = pattern->name();
  info.ranks = size;
  info.reps = o.reps;
  info.params = pattern->params();
  info.machine = machine_description(comm, o.dir);
  info.write_bytes = pattern->write_bytes(comm);
  info.read_bytes = pattern->read_bytes(comm);
  info.timed_read = o.read;
  info.op = o.op;
  info.fsync = cfg.fsync;
  info.dir = o.dir;
  const double wmib = info.write_bytes / 1048576.0, rmib = info.read_bytes / 1048576.0;

  // Interleaved repetitions: A B C A B C ...
  const tapio::cli::Progress progress("tapio-bench " + pattern->name(), rank == 0);
  for (int rep = 0; rep < o.reps; ++rep)
    for (size_t i = 0; i < methods.size(); ++i) {
      MethodResult& r = results[i];
      if (r.avail.kind != Availability::kAvailable || !r.error.empty()) continue;
      Method& m = *methods[i];
      progress.show("repetition " + std::to_string(rep + 1) + "/" + std::to_string(o.reps) +
                    ", " + r.name);
      try {
        reset_peak_rss();
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        Counters w = m.write(cfg, *pattern, data);
        double t = max_over_ranks(comm, MPI_Wtime() - t0);
        r.write_mib_s.push_back(wmib / t);
        r.compute_s.push_back(w.compute_s);
        m.after_write(cfg, *pattern);  // untimed extra measurements (metadata timings)
        MPI_Barrier(comm);
        uint64_t wrong = 0;
        reset_max_error();
        t0 = MPI_Wtime();
        Counters rd = m.read_verify(cfg, *pattern, &wrong);
        t = max_over_ranks(comm, MPI_Wtime() - t0);
        r.max_error = std::max(r.max_error, max_over_ranks(comm, max_error()));
        r.read_mib_s.push_back(rmib / t);
        r.read_ms.push_back(1e3 * t);
        uint64_t all_wrong = 0;
        MPI_Allreduce(&wrong, &all_wrong, 1, MPI_UINT64_T, MPI_SUM, comm);
        r.wrong += all_wrong;
        r.write = w;
        r.read = rd;
        if (!w.phases.is_null()) r.write_phases.push_back(w.phases);
        if (!rd.phases.is_null()) r.read_phases.push_back(rd.phases);
        r.peak_rss_mib = std::max(r.peak_rss_mib, max_over_ranks(comm, peak_rss_mib()));
        if (!o.keep) m.remove(cfg, *pattern);
      } catch (const tapio::Error& e) {  // collective: every rank has it
        r.error = e.what();
        MPI_Barrier(comm);
        m.remove(cfg, *pattern);
      } catch (const BenchError& e) {  // a peer library's error (phdf5, adios1), collective too
        r.error = e.what();
        MPI_Barrier(comm);
        m.remove(cfg, *pattern);
      }
    }

  for (size_t i = 0; i < methods.size(); ++i)
    if (results[i].ran()) results[i].extra = methods[i]->extras();
  if (rank == 0) {
    print_table(info, results);
    if (!info.op.empty()) print_operator_table(info, results);
    if (cfg.compute_s > 0) print_hidden_writes(wmib, results);
    if (!o.json_path.empty()) {
      std::ofstream out(o.json_path);
      out << to_json(info, results).dump(2) << "\n";
      if (!out) {
        std::fprintf(stderr, "tapio-bench: cannot write %s\n", o.json_path.c_str());
        return 1;
      }
    }
  }
  bool bad = false;
  for (const auto& r : results) bad |= r.status() == "failed" || r.status() == "wrong";
  return bad ? 3 : 0;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    rc = bench::run(argc, argv, MPI_COMM_WORLD);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tapio-bench: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
