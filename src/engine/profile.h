// Per-engine profile: I/O counters, messages and where each rank's time inside tapio goes,
// phase by phase, reduced over ranks and written as JSON at close when the `profile`
// parameter names a file.
#pragma once
#include <array>
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "io/counters.h"

namespace tapio {

// What a rank is doing inside a tapio call. Phases are exclusive: entering one pauses the
// one it is nested in, so a rank's phase times add up to (at most) its time inside tapio, and
// what is left over is unattributed overhead.
enum class Phase : int {
  kPlan,      // turning selections into runs, requests, domains, routes
  kCopy,      // copying data between buffers (packing, placing)
  kSwap,      // byte-swapping to or from the file's byte order
  kChecksum,  // checksums and block statistics (min/max)
  kExchange,  // moving data between ranks
  kWrite,     // in write calls, or waiting for background writes to finish
  kSync,      // fsync and writeback
  kRead,      // in read calls
  kMetadata,  // headers, indexes, numrecs, metadata records
  kAgree,     // waiting for other ranks: agreements, barriers, reductions
  kEncode,    // encoding and decoding blocks with operators (subfile engine)
};
inline constexpr int kPhaseCount = 11;
const char* phase_name(Phase p);  // "plan", "copy", "swap", ...

// Point-to-point messages the engine sent and received (MPI's collectives are not counted).
struct MessageCounts {
  uint64_t sent = 0;
  uint64_t bytes_sent = 0;
  // Of `sent`, those to a rank on another node (the topology's; collective writes): what a
  // network carries, which two-level aggregation divides.
  uint64_t between_nodes = 0;
  uint64_t received = 0;
  uint64_t bytes_received = 0;

  void send(uint64_t bytes, uint64_t messages = 1) {
    sent += messages;
    bytes_sent += bytes;
  }
  void receive(uint64_t bytes, uint64_t messages = 1) {
    received += messages;
    bytes_received += bytes;
  }
};

// Decomposition plans (engine/plan_cache.h): made the first time a selection is used,
// reused for every variable and step that uses it again; the most bytes they held at once.
struct PlanCounts {
  uint64_t made = 0;
  uint64_t reused = 0;
  uint64_t cache_bytes = 0;
  uint64_t kept_bytes = 0;  // what the file left in its context at close (kept_plans.h)
};

// Background writes and what the calling thread waited for them.
struct AsyncCounts {
  // Seconds a background thread spent writing (write-behind): not part of any phase, which
  // only count the calling thread; what the caller waited for shows as `write`.
  std::atomic<int64_t> background_write_ns{0};
  // Async output: how often, and for how long, end_step or close waited for background writes
  // (async_buffer full, or the previous step's writes unfinished); also part of `write`.
  uint64_t waits = 0;
  double wait = 0;
};

// Seconds per phase (exclusive), timed by PhaseTimer, and the plan phase per batch.
class PhaseTimes {
 public:
  std::array<double, kPhaseCount> seconds{};

  double operator[](Phase p) const { return seconds[static_cast<int>(p)]; }
  // A batch of data (a write step, a perform_puts, a perform_gets) starts: the plan phase is
  // also counted per batch, so that a decomposition planned once shows as a first batch that
  // plans and later ones that do not ("plan_per_batch" in the JSON).
  void begin_batch() { plan_at_batch_.push_back((*this)[Phase::kPlan]); }
  std::vector<double> plan_per_batch() const;

 private:
  friend class PhaseTimer;
  int current_ = -1;  // the phase being timed, or -1
  std::vector<double> plan_at_batch_;  // the plan phase's total when each batch began
  std::chrono::steady_clock::time_point since_{};
};

struct Profile {
  io::Counters io;            // what this rank's files saw
  MessageCounts messages;
  uint64_t bytes_copied = 0;  // user data copied between buffers in memory (not by MPI)
  uint64_t steps = 0;
  uint64_t rounds = 0;        // two-phase rounds (collective engine)
  PlanCounts plans;
  PhaseTimes phases;
  double in_calls = 0;        // seconds inside tapio's collective calls (open to close)
  double total_time = 0;      // open to close, the application's time between calls included
  AsyncCounts async;

  // Collective: one reduction of the counters (sum/min/max) and one gather of the phase
  // times (min/median/max per phase need every rank's value), which also carries the
  // counters listed per rank; rank 0 writes `path` as JSON.
  Status write_json(const comm::Comm& comm, const std::string& path, const std::string& engine,
                    const std::string& file) const;
};

// Times one phase from construction to destruction, pausing the enclosing phase meanwhile.
// Only the thread that owns the profile may use it.
class PhaseTimer {
 public:
  PhaseTimer(Profile* profile, Phase phase);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  PhaseTimes* times_;
  int outer_;
};

// Adds the seconds between construction and destruction to *target (a plain stopwatch, for
// totals that are not phases).
class ScopedTimer {
 public:
  explicit ScopedTimer(double* target)
      : target_(target), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    *target_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  double* target_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace tapio
