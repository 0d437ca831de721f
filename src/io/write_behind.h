// Write-behind: one background thread runs queued write jobs in order, so an aggregator can
// receive round k+1 while round k goes to storage (IDDIO's pipeline mode; seed 003's `bufa`).
// Only the owning thread calls submit/wait/drain; jobs must not call MPI. Asynchronous output
// (the `async` parameter) queues whole steps here, each job holding the bytes it writes, and
// bounds what the queued jobs hold (wait_for_room).
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

  // Queue a job. After a job fails, the jobs queued before its failure was reported by wait()
  // are skipped (their buffers are still released): they were queued assuming it succeeded.
  // A job that holds `bytes` of memory until it has finished counts them against the budget
  // that wait_for_room checks.
  Ticket submit(std::function<Status()> job, uint64_t bytes = 0);
  // Block until the unfinished jobs hold at most `budget - bytes` (or none is left, so a job
  // larger than the budget runs alone). Returns whether it had to wait.
  bool wait_for_room(uint64_t bytes, uint64_t budget);
  // Whether a submitted job has not finished yet.
  bool busy();
  // The error wait() would return, without waiting for anything or clearing it.
  Status failure();
  // Block until the job `ticket` (and so every earlier one) has finished, so the buffer it
  // reads can be reused; returns the first error since the last wait that returned one.
  Status wait(Ticket ticket);
  // wait() for every job submitted so far.
  Status drain();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  struct Job {
    std::function<Status()> run;
    uint64_t bytes;
  };
  std::deque<Job> queue_;
  uint64_t held_ = 0;  // bytes the unfinished jobs hold
  Ticket submitted_ = 0;
  Ticket finished_ = 0;
  bool stopping_ = false;
  Status first_error_;
  Ticket skip_through_ = 0;  // the last job queued when wait() reported a failure
  std::thread worker_;
};

// The CPUs this process may run on (its affinity mask), or 0 where that is unknown. A
// write-behind thread inherits the process's binding: bound to one CPU, it competes with the
// program's thread instead of running beside it.
int allowed_cpus();

}  // namespace tapio::io
