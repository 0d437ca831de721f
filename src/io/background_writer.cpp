#include "io/background_writer.h"

#include <chrono>
#include <utility>

namespace tapio::io {
namespace {

// Adds the time from its construction to its destruction to a counter (if any).
class BusyTimer {
 public:
  explicit BusyTimer(std::atomic<int64_t>* ns)
      : ns_(ns), start_(std::chrono::steady_clock::now()) {}
  ~BusyTimer() {
    if (!ns_) return;
    const auto spent = std::chrono::steady_clock::now() - start_;
    ns_->fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(spent).count(),
                   std::memory_order_relaxed);
  }
  BusyTimer(const BusyTimer&) = delete;
  BusyTimer& operator=(const BusyTimer&) = delete;

 private:
  std::atomic<int64_t>* ns_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

Status write_pieces(File& file, const std::vector<Piece>& pieces, bool eager) {
  for (const Piece& p : pieces) {
    TAPIO_RETURN_IF_ERROR(file.write_at(p.offset, p.data, p.length));
    if (eager) file.start_writeback(p.offset, p.length);
  }
  return ok_status();
}

WriteBehind& BackgroundWriter::queue() {
  if (!queue_) queue_ = std::make_unique<WriteBehind>();
  return *queue_;
}

BackgroundWriter::Ticket BackgroundWriter::write(File* file, std::vector<Piece> pieces,
                                                 bool eager, std::string context,
                                                 std::shared_ptr<const void> owner,
                                                 uint64_t held) {
  return queue().submit(
      [file, pieces = std::move(pieces), context = std::move(context), owner = std::move(owner),
       eager, busy = options_.busy_ns] {
        BusyTimer t(busy);
        const Status st = write_pieces(*file, pieces, eager);
        return context.empty() ? st : st.with_context(context);
      },
      held);
}

BackgroundWriter::Ticket BackgroundWriter::sync(File* file) {
  return submit_timed([file] { return file->sync(); });
}

BackgroundWriter::Ticket BackgroundWriter::submit_timed(std::function<Status()> job,
                                                        uint64_t held) {
  return queue().submit(
      [job = std::move(job), busy = options_.busy_ns] {
        BusyTimer t(busy);
        return job();
      },
      held);
}

BackgroundWriter::Ticket BackgroundWriter::submit(std::function<Status()> job, uint64_t held) {
  return queue().submit(std::move(job), held);
}

bool BackgroundWriter::reserve(uint64_t bytes, uint64_t budget) {
  return queue_ && queue_->wait_for_room(bytes, budget);
}

Status BackgroundWriter::wait(Ticket ticket) {
  const Status st = queue_ ? queue_->wait(ticket) : ok_status();
  if (options_.keeps_failures) keep(&kept_, st);
  return st;
}

Status BackgroundWriter::drain() { return queue_ ? queue_->drain() : ok_status(); }

void BackgroundWriter::wait_queued() { keep(&kept_, drain()); }

Status BackgroundWriter::finish() {
  Status st = std::exchange(kept_, Status());
  keep(&st, drain());
  return st;
}

Status BackgroundWriter::failure() const {
  Status st = kept_;
  if (queue_) keep(&st, queue_->failure());
  return st;
}

}  // namespace tapio::io
