#include "engine/profile.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

namespace tapio {
namespace {

constexpr const char* kPhaseNames[kPhaseCount] = {
    "plan", "copy", "swap", "checksum", "exchange", "write", "sync", "read", "metadata", "agree"};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

struct Named {
  std::vector<std::string> names;
  std::vector<double> values;
  void add(const std::string& name, double v) {
    names.push_back(name);
    values.push_back(v);
  }
};

Named flatten_counters(const Profile& p) {
  Named n;
  n.names = io::Counters::names();
  n.values = p.io.values();
  n.add("messages_sent", static_cast<double>(p.messages_sent));
  n.add("bytes_sent", static_cast<double>(p.bytes_sent));
  n.add("messages_received", static_cast<double>(p.messages_received));
  n.add("bytes_received", static_cast<double>(p.bytes_received));
  n.add("bytes_copied", static_cast<double>(p.bytes_copied));
  n.add("rounds", static_cast<double>(p.rounds));
  n.add("time_in_calls", p.in_calls);
  n.add("time_background_write", static_cast<double>(p.background_write_ns.load()) * 1e-9);
  n.add("time_total", p.total_time);
  return n;
}

// Each phase, then "other": time inside tapio's calls that no phase claims.
std::vector<double> phase_values(const Profile& p) {
  std::vector<double> v(p.phase.begin(), p.phase.end());
  double claimed = 0;
  for (double t : p.phase) claimed += t;
  v.push_back(std::max(0.0, p.in_calls - claimed));
  return v;
}

nlohmann::ordered_json phase_json(const std::vector<double>& all, int ranks) {
  const int n = kPhaseCount + 1;
  nlohmann::ordered_json j;
  std::vector<double> column(ranks);
  for (int k = 0; k < n; ++k) {
    double sum = 0;
    for (int r = 0; r < ranks; ++r) sum += column[r] = all[static_cast<size_t>(r) * n + k];
    std::sort(column.begin(), column.end());
    const double median = ranks % 2 ? column[ranks / 2]
                                    : (column[ranks / 2 - 1] + column[ranks / 2]) / 2;
    const char* name = k < kPhaseCount ? kPhaseNames[k] : "other";
    j[name] = {{"min", column.front()}, {"median", median}, {"max", column.back()}, {"sum", sum}};
  }
  return j;
}

}  // namespace

const char* phase_name(Phase p) { return kPhaseNames[static_cast<int>(p)]; }

PhaseTimer::PhaseTimer(Profile* profile, Phase phase)
    : profile_(profile), outer_(profile->current_) {
  const auto now = std::chrono::steady_clock::now();
  if (outer_ >= 0)
    profile_->phase[outer_] += std::chrono::duration<double>(now - profile_->since_).count();
  profile_->current_ = static_cast<int>(phase);
  profile_->since_ = now;
}

PhaseTimer::~PhaseTimer() {
  profile_->phase[profile_->current_] += seconds_since(profile_->since_);
  profile_->current_ = outer_;
  profile_->since_ = std::chrono::steady_clock::now();
}

Status Profile::write_json(const comm::Comm& comm, const std::string& path,
                           const std::string& engine, const std::string& file) const {
  Named mine = flatten_counters(*this);
  std::vector<double> sum, lo, hi, phases;
  TAPIO_RETURN_IF_ERROR(comm.allreduce_sum_min_max(mine.values, &sum, &lo, &hi));
  TAPIO_RETURN_IF_ERROR(comm.gather_doubles(phase_values(*this), 0, &phases));
  Status local = ok_status();
  if (comm.rank() == 0) {
    nlohmann::ordered_json j;
    j["engine"] = engine;
    j["file"] = file;
    j["ranks"] = comm.size();
    j["steps"] = steps;
    for (size_t i = 0; i < mine.values.size(); ++i)
      j["counters"][mine.names[i]] = {{"sum", sum[i]}, {"min", lo[i]}, {"max", hi[i]}};
    j["phases"] = phase_json(phases, comm.size());
    std::ofstream out(path);
    out << j.dump(2) << "\n";
    if (!out)
      local = error(TAPIO_ERR_IO, "cannot write the profile '{}' of file '{}'", path, file);
  }
  return comm::agree(comm, local);
}

}  // namespace tapio
