#include "engine/profile.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

namespace tapio {
namespace {

constexpr const char* kPhaseNames[kPhaseCount] = {
    "plan", "copy", "swap", "checksum", "exchange", "write", "sync", "read", "metadata", "agree",
    "encode"};

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
  n.add("messages_sent", static_cast<double>(p.messages.sent));
  n.add("bytes_sent", static_cast<double>(p.messages.bytes_sent));
  n.add("messages_between_nodes", static_cast<double>(p.messages.between_nodes));
  n.add("messages_received", static_cast<double>(p.messages.received));
  n.add("bytes_received", static_cast<double>(p.messages.bytes_received));
  n.add("bytes_copied", static_cast<double>(p.bytes_copied));
  n.add("rounds", static_cast<double>(p.rounds));
  n.add("plans_made", static_cast<double>(p.plans.made));
  n.add("plans_reused", static_cast<double>(p.plans.reused));
  n.add("plan_cache_bytes", static_cast<double>(p.plans.cache_bytes));
  n.add("plan_kept_bytes", static_cast<double>(p.plans.kept_bytes));
  n.add("batches", static_cast<double>(p.phases.plan_per_batch().size()));
  n.add("time_in_calls", p.in_calls);
  n.add("time_background_write", static_cast<double>(p.async.background_write_ns.load()) * 1e-9);
  n.add("time_total", p.total_time);
  n.add("async_waits", static_cast<double>(p.async.waits));
  n.add("time_async_wait", p.async.wait);
  return n;
}

// Each phase, then "other": time inside tapio's calls that no phase claims.
std::vector<double> phase_values(const Profile& p) {
  std::vector<double> v(p.phases.seconds.begin(), p.phases.seconds.end());
  double claimed = 0;
  for (double t : p.phases.seconds) claimed += t;
  v.push_back(std::max(0.0, p.in_calls - claimed));
  return v;
}

// The counters also listed rank by rank (in "per_rank"), for per-rank plots: they travel in
// the phases' gather, so they cost no extra message.
constexpr const char* kPerRankCounters[] = {
    "POSIX_READS",       "POSIX_WRITES",       "POSIX_BYTES_READ",  "POSIX_BYTES_WRITTEN",
    "POSIX_F_READ_TIME", "POSIX_F_WRITE_TIME", "POSIX_F_META_TIME", "time_in_calls",
    "time_total"};
constexpr int kPerRankCounterCount = sizeof(kPerRankCounters) / sizeof(kPerRankCounters[0]);
constexpr int kGathered = kPhaseCount + 1 + kPerRankCounterCount;  // per rank, then batches

// What each rank sends to rank 0: its phase values, its kPerRankCounters, then the plan
// phase of its first `batches` batches (the fewest any rank had: every rank sends as many).
std::vector<double> gathered_values(const Profile& p, const Named& counters, size_t batches) {
  std::vector<double> v = phase_values(p);
  for (const char* name : kPerRankCounters) {
    const auto it = std::find(counters.names.begin(), counters.names.end(), name);
    v.push_back(counters.values[it - counters.names.begin()]);
  }
  const std::vector<double> plan = p.phases.plan_per_batch();
  v.insert(v.end(), plan.begin(), plan.begin() + static_cast<long>(batches));
  return v;
}

// Entry k of every rank's gathered values (`stride` each).
std::vector<double> column_of(const std::vector<double>& all, int ranks, size_t stride, int k) {
  std::vector<double> column(ranks);
  for (int r = 0; r < ranks; ++r) column[r] = all[static_cast<size_t>(r) * stride + k];
  return column;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char* phase_or_other(int k) { return k < kPhaseCount ? kPhaseNames[k] : "other"; }

nlohmann::ordered_json phase_json(const std::vector<double>& all, int ranks, size_t stride) {
  const int n = kPhaseCount + 1;
  nlohmann::ordered_json j;
  for (int k = 0; k < n; ++k) {
    std::vector<double> column = column_of(all, ranks, stride, k);
    double sum = 0;
    for (double v : column) sum += v;
    const auto [lo, hi] = std::minmax_element(column.begin(), column.end());
    j[phase_or_other(k)] = {
        {"min", *lo}, {"median", median_of(column)}, {"max", *hi}, {"sum", sum}};
  }
  return j;
}

// The plan phase of each batch: median and max over ranks, batch by batch.
nlohmann::ordered_json plan_per_batch_json(const std::vector<double>& all, int ranks,
                                           size_t batches) {
  nlohmann::ordered_json j = {{"median", nlohmann::json::array()},
                              {"max", nlohmann::json::array()}};
  for (size_t b = 0; b < batches; ++b) {
    const std::vector<double> column =
        column_of(all, ranks, kGathered + batches, kGathered + static_cast<int>(b));
    j["median"].push_back(median_of(column));
    j["max"].push_back(*std::max_element(column.begin(), column.end()));
  }
  return j;
}

nlohmann::ordered_json per_rank_json(const std::vector<double>& all, int ranks, size_t stride) {
  nlohmann::ordered_json j;
  for (int k = 0; k < kPhaseCount + 1; ++k)
    j["phases"][phase_or_other(k)] = column_of(all, ranks, stride, k);
  for (int c = 0; c < kPerRankCounterCount; ++c)
    j["counters"][kPerRankCounters[c]] = column_of(all, ranks, stride, kPhaseCount + 1 + c);
  return j;
}

}  // namespace

const char* phase_name(Phase p) { return kPhaseNames[static_cast<int>(p)]; }

std::vector<double> PhaseTimes::plan_per_batch() const {
  std::vector<double> out(plan_at_batch_.size());
  for (size_t b = 0; b < out.size(); ++b)
    out[b] = (b + 1 < out.size() ? plan_at_batch_[b + 1] : (*this)[Phase::kPlan]) -
             plan_at_batch_[b];
  return out;
}

PhaseTimer::PhaseTimer(Profile* profile, Phase phase)
    : times_(&profile->phases), outer_(times_->current_) {
  const auto now = std::chrono::steady_clock::now();
  if (outer_ >= 0)
    times_->seconds[outer_] += std::chrono::duration<double>(now - times_->since_).count();
  times_->current_ = static_cast<int>(phase);
  times_->since_ = now;
}

PhaseTimer::~PhaseTimer() {
  times_->seconds[times_->current_] += seconds_since(times_->since_);
  times_->current_ = outer_;
  times_->since_ = std::chrono::steady_clock::now();
}

Status Profile::write_json(const comm::Comm& comm, const std::string& path,
                           const std::string& engine, const std::string& file) const {
  Named mine = flatten_counters(*this);
  std::vector<double> sum, lo, hi, gathered;
  TAPIO_RETURN_IF_ERROR(comm.allreduce_sum_min_max(mine.values, &sum, &lo, &hi));
  const auto fewest = static_cast<size_t>(
      lo[std::find(mine.names.begin(), mine.names.end(), "batches") - mine.names.begin()]);
  TAPIO_RETURN_IF_ERROR(
      comm.gather_doubles(gathered_values(*this, mine, fewest), 0, &gathered));
  Status local = ok_status();
  if (comm.rank() == 0) {
    nlohmann::ordered_json j;
    j["engine"] = engine;
    j["file"] = file;
    j["ranks"] = comm.size();
    j["steps"] = steps;
    for (size_t i = 0; i < mine.values.size(); ++i)
      j["counters"][mine.names[i]] = {{"sum", sum[i]}, {"min", lo[i]}, {"max", hi[i]}};
    j["phases"] = phase_json(gathered, comm.size(), kGathered + fewest);
    j["plan_per_batch"] = plan_per_batch_json(gathered, comm.size(), fewest);
    j["per_rank"] = per_rank_json(gathered, comm.size(), kGathered + fewest);
    std::ofstream out(path);
    out << j.dump(2) << "\n";
    if (!out)
      local = error(TAPIO_ERR_IO, "cannot write the profile '{}' of file '{}'", path, file);
  }
  return comm::agree(comm, local);
}

}  // namespace tapio
