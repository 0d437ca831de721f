#include "io/write_behind.h"

#include <sched.h>

namespace tapio::io {

WriteBehind::WriteBehind() : worker_([this] { run(); }) {}

WriteBehind::~WriteBehind() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

WriteBehind::Ticket WriteBehind::submit(std::function<Status()> job, uint64_t bytes) {
  Ticket ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(Job{std::move(job), bytes});
    held_ += bytes;
    ticket = ++submitted_;
  }
  changed_.notify_all();
  return ticket;
}

Status WriteBehind::wait(Ticket ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_ >= ticket; });
  // The jobs queued until the failure is reported were queued assuming success: skip them.
  if (!first_error_.ok()) skip_through_ = submitted_;
  return std::exchange(first_error_, Status());
}

bool WriteBehind::wait_for_room(uint64_t bytes, uint64_t budget) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto room = [&] { return held_ == 0 || held_ + bytes <= budget; };
  if (room()) return false;
  changed_.wait(lock, room);
  return true;
}

bool WriteBehind::busy() {
  std::lock_guard<std::mutex> lock(mutex_);
  return finished_ < submitted_;
}

Status WriteBehind::failure() {
  std::lock_guard<std::mutex> lock(mutex_);
  return first_error_;
}

Status WriteBehind::drain() {
  Ticket last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last = submitted_;
  }
  return wait(last);
}

void WriteBehind::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    auto job = std::move(queue_.front());
    queue_.pop_front();
    const bool skip = !first_error_.ok() || finished_ < skip_through_;
    lock.unlock();
    Status st = skip ? Status() : job.run();
    job.run = nullptr;  // the buffers it holds are released before wait_for_room hears of it
    lock.lock();
    held_ -= job.bytes;
    ++finished_;
    if (!st.ok() && first_error_.ok()) first_error_ = st;
    changed_.notify_all();
  }
}

int allowed_cpus() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
#endif
  return 0;
}

}  // namespace tapio::io
