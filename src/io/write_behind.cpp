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

void WriteBehind::submit(std::function<Status()> job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(job));
  }
  changed_.notify_all();
}

Status WriteBehind::drain(size_t max_pending) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() + running_ <= max_pending; });
  return std::exchange(first_error_, Status());
}

void WriteBehind::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and nothing left
    auto job = std::move(queue_.front());
    queue_.pop_front();
    ++running_;
    const bool skip = !first_error_.ok();
    lock.unlock();
    Status st = skip ? Status() : job();
    lock.lock();
    --running_;
    if (!st.ok() && first_error_.ok()) first_error_ = st;
    changed_.notify_all();
  }
}

}  // namespace tapio::io
