// The JSON of one run (the contract in docs/benchmarks.md) and the machine description.
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "registry.h"
#include "results.h"
#include "tapio/tapio.h"

namespace bench {

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

std::vector<std::string> phase_names(const std::vector<json>& reps) {
  std::vector<std::string> names;
  if (!reps.empty())
    for (const auto& [name, v] : reps.front().items()) names.push_back(name);
  return names;
}

json phase_summary(const std::vector<json>& reps) {
  if (reps.empty()) return nullptr;
  json out = json::object();
  for (const std::string& name : phase_names(reps)) {
    std::vector<double> median, max;
    for (const json& r : reps) {
      median.push_back(1e3 * r[name]["median"].get<double>());
      max.push_back(1e3 * r[name]["max"].get<double>());
    }
    out[name] = {{"median", stats(median).median}, {"max", stats(max).median}};
  }
  return out;
}

std::string MethodResult::status() const {
  if (avail.kind == Availability::kNotBuilt) return "not built";
  if (avail.kind == Availability::kUnavailable) return "unavailable";
  if (!error.empty()) return "failed";
  return wrong == 0 ? "ok" : "wrong";
}

static std::optional<double> median_write(const MethodResult& m) {
  if (!m.ran()) return std::nullopt;
  return stats(m.write_mib_s).median;
}

std::optional<double> ratio_to_best_peer(const MethodResult& m, const std::vector<MethodResult>& all) {
  std::optional<double> best;
  for (const auto& r : all)
    if (is_peer(r.name) && r.verified()) best = std::max(best.value_or(0), *median_write(r));
  auto mine = median_write(m);
  if (!best || !mine || *best <= 0) return std::nullopt;
  return *mine / *best;
}

std::optional<double> ratio_to_raw(const MethodResult& m, const std::vector<MethodResult>& all) {
  for (const auto& r : all)
    if (r.name == "raw" && r.verified()) {
      auto mine = median_write(m);
      const double raw = *median_write(r);
      if (!mine || raw <= 0) return std::nullopt;
      return *mine / raw;
    }
  return std::nullopt;
}

static std::string first_line_of(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) {
      auto c = line.find(':');
      std::string v = c == std::string::npos ? line : line.substr(c + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

// The file system type and the device behind `dir`, from /proc/mounts (longest mount prefix).
static std::pair<std::string, std::string> filesystem_of(const std::string& dir) {
  char real[4096];
  std::string path = realpath(dir.c_str(), real) ? real : dir;
  std::ifstream in("/proc/mounts");
  std::string dev, mnt, type, rest, best_type = "unknown", best_dev = "unknown";
  size_t best = 0;
  while (in >> dev >> mnt >> type && std::getline(in, rest)) {
    if (path.rfind(mnt, 0) == 0 && (path.size() == mnt.size() || mnt == "/" || path[mnt.size()] == '/') &&
        mnt.size() >= best) {
      best = mnt.size();
      best_type = type;
      best_dev = dev;
    }
  }
  return {best_type, best_dev};
}

json machine_description(MPI_Comm comm, const std::string& dir) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  MPI_Get_library_version(version, &n);
  std::string mpi(version, n);
  mpi = mpi.substr(0, mpi.find_first_of("\n,"));
  int nodes = 1;
  {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr = 0, leader = 0, rank;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_rank(comm, &rank);
    leader = nr == 0;
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_free(&node);
  }
  utsname u{};
  uname(&u);
  const auto [fstype, device] = filesystem_of(dir);
  const char* io = std::getenv("OMPI_MCA_io");
  const std::string mem = first_line_of("/proc/meminfo", "MemTotal");
  return {{"hostname", u.nodename},
          {"nodes", nodes},
          {"nproc", sysconf(_SC_NPROCESSORS_ONLN)},
          {"cpu", first_line_of("/proc/cpuinfo", "model name")},
          {"memory_gib", std::strtod(mem.c_str(), nullptr) / 1048576.0},
          {"kernel", std::string(u.sysname) + " " + u.release},
          {"mpi", mpi},
          {"mpi_io_component", io ? io : "default"},
          {"dir", dir},
          {"filesystem", fstype},
          {"device", device},
          {"tapio_version", tapio_version()}};
}

static json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

static json bw(const std::vector<double>& v) {
  if (v.empty()) return nullptr;
  const Stats s = stats(v);
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}};
}

json to_json(const RunInfo& info, const std::vector<MethodResult>& results) {
  json j;
  j["pattern"] = info.pattern;
  j["ranks"] = info.ranks;
  j["params"] = info.params;
  j["machine"] = info.machine;
  j["reps"] = info.reps;
  j["fsync"] = info.fsync;
  j["write_bytes"] = info.write_bytes;
  j["read_bytes"] = info.read_bytes;
  json& res = j["results"] = json::object();
  for (const auto& m : results) {
    json r;
    r["status"] = m.status();
    if (!m.avail.reason.empty()) r["reason"] = m.avail.reason;
    if (!m.error.empty()) r["reason"] = m.error;
    r["write_mib_s"] = m.ran() ? bw(m.write_mib_s) : json(nullptr);
    r["read_mib_s"] = m.ran() && info.timed_read ? bw(m.read_mib_s) : json(nullptr);
    r["read_ms"] = m.ran() && info.timed_read ? bw(m.read_ms) : json(nullptr);
    r["storage_write_requests"] = opt(m.write.requests);
    r["storage_read_requests"] = opt(m.read.requests);
    r["storage_bytes_written"] = opt(m.write.bytes);
    r["storage_bytes_read"] = opt(m.read.bytes);
    r["messages"] = opt(m.write.messages);
    r["messages_between_nodes"] = opt(m.write.messages_between_nodes);
    r["peak_rss_mib"] = m.ran() ? json(m.peak_rss_mib) : json(nullptr);
    r["verified"] = m.verified();
    r["ratio_best_peer"] = opt(ratio_to_best_peer(m, results));
    r["ratio_raw"] = opt(ratio_to_raw(m, results));
    if (!m.extra.is_null()) r["metadata"] = m.extra;
    if (!m.write_phases.empty()) r["write_phases_ms"] = phase_summary(m.write_phases);
    if (!m.read_phases.empty()) r["read_phases_ms"] = phase_summary(m.read_phases);
    if (!m.write.plan.is_null()) r["write_plan"] = m.write.plan;
    if (!m.read.plan.is_null()) r["read_plan"] = m.read.plan;
    res[m.name] = r;
  }
  if (!info.op.empty()) j["operator"] = operator_summary(info, results);
  return j;
}

}  // namespace bench
