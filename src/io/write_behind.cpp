#include "io/write_behind.h"

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

WriteBehind::Ticket WriteBehind::submit(std::function<Status()> job) {
  Ticket ticket;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
    ticket = ++submitted_;
  }
  changed_.notify_all();
  return ticket;
}

Status WriteBehind::wait(Ticket ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return finished_ >= ticket; });
  return std::exchange(first_error_, Status());
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
    const bool skip = !first_error_.ok();
    lock.unlock();
    Status st = skip ? Status() : job();
    lock.lock();
    ++finished_;
    if (!st.ok() && first_error_.ok()) first_error_ = st;
    changed_.notify_all();
  }
}

}  // namespace tapio::io
