// The per-pattern table printed to stdout (rank 0).
#include <cstdio>
#include <string>

#include "results.h"

namespace bench {
namespace {

std::string num(const std::optional<double>& v, const char* fmt = "%.0f") {
  if (!v) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, fmt, *v);
  return b;
}

std::string band(const std::vector<double>& v) {
  if (v.empty()) return "n/a";
  const Stats s = stats(v);
  char b[96];
  std::snprintf(b, sizeof b, "%.1f [%.1f-%.1f]", s.median, s.min, s.max);
  return b;
}

std::string bytes(const std::optional<double>& v) {
  if (!v) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, "%.1fMiB", *v / 1048576.0);
  return b;
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
  std::printf("%-12s %-26s %-26s %8s %7s %8s %10s %8s %10s %8s %8s %s\n", "method",
              "write MiB/s median [min-max]", "read MiB/s", "vs peer", "vs raw", "w req",
              "w bytes", "r req", "r bytes", "msgs", "RSS MiB", "verified");
  for (const auto& m : results) {
    if (!m.ran()) {
      std::printf("%-12s %s: %s\n", m.name.c_str(), m.status().c_str(),
                  (m.error.empty() ? m.avail.reason : m.error).c_str());
      continue;
    }
    std::printf("%-12s %-26s %-26s %8s %7s %8s %10s %8s %10s %8s %8.1f %s\n", m.name.c_str(),
                band(m.write_mib_s).c_str(),
                info.timed_read ? band(m.read_mib_s).c_str() : "(not timed)",
                num(ratio_to_best_peer(m, results), "%.2f").c_str(),
                num(ratio_to_raw(m, results), "%.2f").c_str(), num(m.write.requests).c_str(),
                bytes(m.write.bytes).c_str(), num(m.read.requests).c_str(),
                bytes(m.read.bytes).c_str(), num(m.write.messages).c_str(), m.peak_rss_mib,
                m.verified() ? "yes" : "NO");
  }
  std::fflush(stdout);
}

}  // namespace bench
