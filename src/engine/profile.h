// Per-engine profile: I/O counters, messages and per-phase timers, reduced over ranks and
// written as JSON at close when the `profile` parameter names a file.
#pragma once
#include <chrono>
#include <string>

#include "comm/comm.h"
#include "io/counters.h"

namespace tapio {

struct Profile {
  io::Counters io;            // what this rank's files saw
  uint64_t messages_sent = 0;
  uint64_t bytes_sent = 0;
  uint64_t messages_received = 0;
  uint64_t bytes_received = 0;
  uint64_t steps = 0;
  uint64_t rounds = 0;        // two-phase rounds (collective engine)
  double exchange_time = 0;   // moving data between ranks
  double write_time = 0;      // in write calls (including waiting for them)
  double read_time = 0;
  double metadata_time = 0;   // headers, indexes, numrecs
  double wait_time = 0;       // waiting for other ranks (agreement, barriers)
  double total_time = 0;      // open to close

  // Collective: sum/min/max over ranks; rank 0 writes `path` as JSON.
  Status write_json(const comm::Comm& comm, const std::string& path, const std::string& engine,
                    const std::string& file) const;
};

// Adds the seconds between construction and destruction to *target.
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
