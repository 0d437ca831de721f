// Write-behind: one background thread runs queued write jobs in order, so an aggregator can
// receive round k+1 while round k goes to storage (IDDIO's pipeline mode; seed 003's `bufa`).
// Only the owning thread calls submit/wait/drain; jobs must not call MPI.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "core/status.h"

namespace tapio::io {

class WriteBehind {
 public:
  // Names one submitted job; jobs finish in ticket order. 0 names no job (already done).
  using Ticket = uint64_t;

  WriteBehind();
  ~WriteBehind();  // finishes queued jobs
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Queue a job. After a job fails, later jobs are skipped (their buffers are still released).
  Ticket submit(std::function<Status()> job);
  // Block until the job `ticket` (and so every earlier one) has finished, so the buffer it
  // reads can be reused; returns the first error since the last wait that returned one.
  Status wait(Ticket ticket);
  // wait() for every job submitted so far.
  Status drain();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<Status()>> queue_;
  Ticket submitted_ = 0;
  Ticket finished_ = 0;
  bool stopping_ = false;
  Status first_error_;
  std::thread worker_;
};

}  // namespace tapio::io
