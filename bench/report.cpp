// The per-pattern table printed to stdout (rank 0).
#include <cstdio>
#include <functional>
#include <string>

#include "results.h"
#include <cstdint>

namespace bench {
namespace {

std::string num(const std::optional<double>& v, const char* fmt = "%.0f") {
  if (!v) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, fmt, *v);
  return b;
}

std::string band(const std::vector<double>& v, const char* fmt = "%.1f") {
  if (v.empty()) return "n/a";
  const Stats s = stats(v);
  const std::string f = std::string(fmt) + " [" + fmt + "-" + fmt + "]";
  char b[96];
  std::snprintf(b, sizeof b, f.c_str(), s.median, s.min, s.max);
  return b;
}

std::string bytes(const std::optional<double>& v) {
  if (!v) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, "%.1fMiB", *v / 1048576.0);
  return b;
}

// Where a tapio engine's time went, per phase: the median rank's and the slowest rank's
// milliseconds per run (all steps, open to close), each the median over repetitions.
void print_phases(const char* what, const std::vector<MethodResult>& results,
                  const std::function<std::vector<json>(const MethodResult&)>& reps_of) {
  std::vector<std::string> names;
  for (const auto& m : results)
    if (m.ran() && names.empty()) names = phase_names(reps_of(m));
  if (names.empty()) return;
  std::printf("%s phases (ms per run; median rank, then max rank; median over reps):\n%-18s",
              what, "method");
  for (const auto& n : names) std::printf(" %9s", n.c_str());
  std::printf("\n");
  for (const auto& m : results) {
    if (!m.ran() || reps_of(m).empty()) continue;
    const json s = phase_summary(reps_of(m));
    for (const char* which : {"median", "max"}) {
      std::printf("%-18s", which[1] == 'e' ? m.name.c_str() : "  (max rank)");
      for (const auto& n : names) std::printf(" %9.2f", s[n][which].get<double>());
      std::printf("\n");
    }
  }
}

// The plan phase of each batch (step) and the plans made and reused: a decomposition planned
// once plans in its first step only (last repetition, median rank).
void print_plans(const std::vector<MethodResult>& results) {
  bool any = false;
  for (const auto& m : results) any |= m.ran() && !m.write.plan.is_null();
  if (!any) return;
  std::printf("plan phase per step (ms, median rank, last rep; plans made/reused, bytes held):\n");
  for (const auto& m : results) {
    if (!m.ran()) continue;
    for (const auto& [what, c] : {std::pair{"w", &m.write}, std::pair{"r", &m.read}}) {
      if (c->plan.is_null()) continue;
      std::printf("%-18s %s", m.name.c_str(), what);
      for (const json& v : c->plan["per_batch_ms"]) std::printf(" %8.2f", v.get<double>());
      std::printf("   made %.0f reused %.0f bytes %.0f\n", c->plan.value("plans_made", 0.0),
                  c->plan.value("plans_reused", 0.0), c->plan.value("plan_cache_bytes", 0.0));
    }
  }
}

// A pattern that reads a small selection of blocks (selection): the read in milliseconds, what
// it cost the storage in blocks' worth, and its speed against HDF5 (chunked by block).
void print_selection(const RunInfo& info, const std::vector<MethodResult>& results) {
  const double block = info.params["block_bytes"].get<double>();
  std::optional<double> hdf5_ms;
  for (const auto& m : results)
    if (m.name == "phdf5" && m.verified()) hdf5_ms = stats(m.read_ms).median;
  std::printf("selection read (%llu B from %llu block(s) of %.0f B; open to close, slowest rank; "
              "storage counters of the last repetition, all ranks; blocks = bytes read / block):\n",
              static_cast<unsigned long long>(info.params["selection_bytes"].get<uint64_t>()),
              static_cast<unsigned long long>(info.params["blocks_touched"].get<uint64_t>()), block);
  std::printf("%-18s %-26s %12s %8s %10s %10s\n", "method", "read ms median [min-max]",
              "bytes read", "r req", "blocks", "vs phdf5");
  for (const auto& m : results) {
    if (!m.ran()) continue;
    const double ms = stats(m.read_ms).median;
    std::optional<double> blocks, speed;
    if (m.read.bytes) blocks = *m.read.bytes / block;
    if (hdf5_ms && ms > 0) speed = *hdf5_ms / ms;
    std::printf("%-18s %-26s %12s %8s %10s %10s\n", m.name.c_str(), band(m.read_ms, "%.2f").c_str(),
                num(m.read.bytes).c_str(), num(m.read.requests).c_str(), num(blocks, "%.1f").c_str(),
                num(speed, "%.2f").c_str());
  }
}

}  // namespace

void print_table(const RunInfo& info, const std::vector<MethodResult>& results) {
  char rd[64] = "";
  if (info.read_bytes != info.write_bytes)
    std::snprintf(rd, sizeof rd, ", %.1f MiB read", info.read_bytes / 1048576.0);
  std::printf("\npattern %s: %d ranks, %.1f MiB written%s, %d interleaved reps, dir %s (%s), %s\n",
              info.pattern.c_str(), info.ranks, info.write_bytes / 1048576.0, rd,
              info.reps, info.dir.c_str(), info.machine.value("filesystem", "?").c_str(),
              info.fsync ? "fsync at close" : "no fsync (page cache)");
  std::printf("params: %s\n", info.params.dump().c_str());
  std::printf("%-18s %-26s %-26s %8s %7s %8s %10s %8s %10s %8s %8s %s\n", "method",
              "write MiB/s median [min-max]", "read MiB/s", "vs peer", "vs raw", "w req",
              "w bytes", "r req", "r bytes", "msgs", "RSS MiB", "verified");
  for (const auto& m : results) {
    if (!m.ran()) {
      std::printf("%-18s %s: %s\n", m.name.c_str(), m.status().c_str(),
                  (m.error.empty() ? m.avail.reason : m.error).c_str());
      continue;
    }
    std::printf("%-18s %-26s %-26s %8s %7s %8s %10s %8s %10s %8s %8.1f %s\n", m.name.c_str(),
                band(m.write_mib_s).c_str(),
                info.timed_read ? band(m.read_mib_s).c_str() : "(not timed)",
                num(ratio_to_best_peer(m, results), "%.2f").c_str(),
                num(ratio_to_raw(m, results), "%.2f").c_str(), num(m.write.requests).c_str(),
                bytes(m.write.bytes).c_str(), num(m.read.requests).c_str(),
                bytes(m.read.bytes).c_str(), num(m.write.messages).c_str(), m.peak_rss_mib,
                m.verified() ? "yes" : "NO");
  }
  if (info.timed_read && info.params.contains("block_bytes")) print_selection(info, results);
  print_phases("write", results, [](const MethodResult& m) { return m.write_phases; });
  if (info.timed_read)
    print_phases("read", results, [](const MethodResult& m) { return m.read_phases; });
  print_plans(results);
  // Metadata measurements of the methods that have them (the subfile methods).
  bool any = false;
  for (const auto& m : results) any |= m.ran() && m.extra.is_object();
  if (any) {
    std::printf("metadata per step (median over reps; stabilise = end_step, slowest rank; fetch = "
                "a reader's open + begin_step; end-to-end = write open-close + fetch):\n");
    std::printf("%-20s %8s %8s %12s %12s %12s %10s %10s %14s\n", "method", "blocks", "md KiB",
                "stabilise ms", "fetch ms", "end2end ms", "B/block", "first ms", "last ms");
    for (const auto& m : results) {
      if (!m.ran() || !m.extra.is_object()) continue;
      const json& x = m.extra;
      auto med = [&](const char* k) { return x[k]["median"].get<double>(); };
      auto opt_ms = [&](const char* k) -> std::string {
        return x.contains(k) ? num(x[k].get<double>(), "%.3f") : "n/a";
      };
      std::string per_block = x["md_bytes_per_block_step"].is_null()
                                  ? "n/a" : num(x["md_bytes_per_block_step"].get<double>(), "%.1f");
      std::printf("%-20s %8llu %8.1f %12.3f %12.3f %12.3f %10s %10s %14s\n", m.name.c_str(),
                  static_cast<unsigned long long>(x["blocks_per_step"].get<uint64_t>()),
                  x["md_bytes"].get<double>() / 1024.0, med("stabilise_ms_per_step"),
                  med("fetch_ms_per_step"), med("end_to_end_ms_per_step"), per_block.c_str(),
                  opt_ms("stabilise_ms_first_window").c_str(), opt_ms("stabilise_ms_last_window").c_str());
    }
  }
  std::fflush(stdout);
}

}  // namespace bench
