// Write-behind: one background thread runs queued write jobs in order, so an aggregator can
// receive round k+1 while round k goes to storage (IDDIO's pipeline mode; seed 003's `bufa`).
// Only the owning thread calls submit/drain; jobs must not call MPI.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "core/status.h"

namespace tapio::io {

class WriteBehind {
 public:
  WriteBehind();
  ~WriteBehind();  // finishes queued jobs
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // Queue a job. After a job fails, later jobs are skipped (their buffers are still released).
  void submit(std::function<Status()> job);
  // Block until at most `max_pending` jobs are queued or running; returns the first error
  // since the last drain that returned one.
  Status drain(size_t max_pending = 0);

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<Status()>> queue_;
  size_t running_ = 0;
  bool stopping_ = false;
  Status first_error_;
  std::thread worker_;
};

}  // namespace tapio::io
