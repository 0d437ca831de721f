// The one background writer of the engines (docs/design.md, "The background writer"): a
// write-behind thread (io::WriteBehind) started on first use, the jobs every engine queues on
// it — timed writes of byte ranges that start their writeback at once when the data must reach
// storage, a timed sync — and what asynchronous output needs around them: a memory budget for
// the bytes the queued jobs hold, and a failure kept until the commit it belongs to asks.
// Used from the owning thread only; jobs never call MPI.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "io/file.h"
#include "io/write_behind.h"

namespace tapio::io {

// Bytes to write: `length` bytes at `data` go to file offset `offset`.
struct Piece {
  uint64_t offset;
  const uint8_t* data;
  uint64_t length;
};

// Write `pieces` to `file` in order; with `eager`, start each one's writeback at once (the data
// must reach storage by the sync anyway, and the disk can work while the caller goes on).
Status write_pieces(File& file, const std::vector<Piece>& pieces, bool eager);

class BackgroundWriter {
 public:
  using Ticket = WriteBehind::Ticket;
  struct Options {
    // Asynchronous output: a failure met by wait() is kept for finish(), the call that commits
    // the step it belongs to (that step may have ended already).
    bool keeps_failures = false;
    std::atomic<int64_t>* busy_ns = nullptr;  // the thread's time in writes and syncs
  };

  explicit BackgroundWriter(Options options) : options_(options) {}
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;

  // Queue write_pieces(file, pieces, eager), its failure prefixed with `context` (empty:
  // none). The bytes must stay valid until the ticket is waited for, or `owner` keeps them:
  // then `held` of them count against the budget that reserve() checks until written.
  Ticket write(File* file, std::vector<Piece> pieces, bool eager, std::string context = {},
               std::shared_ptr<const void> owner = nullptr, uint64_t held = 0);
  // Queue file->sync(), timed as the writes are.
  Ticket sync(File* file);
  // Queue a job that makes the bytes it writes (a record swapped into file order), timed as
  // the writes are; it holds `held` bytes until it ends.
  Ticket submit_timed(std::function<Status()> job, uint64_t held = 0);
  // Queue any other job (a commit record, a flush), untimed.
  Ticket submit(std::function<Status()> job, uint64_t held = 0);

  // Block until the queued jobs hold at most `budget - bytes`; whether it had to wait.
  bool reserve(uint64_t bytes, uint64_t budget);
  // Block until job `ticket` (and every earlier one) finished, so the buffer it reads can be
  // reused; the first failure since one was last returned.
  Status wait(Ticket ticket);
  Status drain();  // wait() for every queued job
  // Whether a job was ever queued (the thread runs), and whether one has not finished yet.
  bool started() const { return queue_ != nullptr; }
  bool busy() const { return queue_ && queue_->busy(); }
  // keeps_failures: wait for every queued job, keeping a failure for finish().
  void wait_queued();
  // keeps_failures: every queued job finished; the first failure since the last finish().
  Status finish();
  // The failure finish() would report so far, without waiting.
  Status failure() const;

 private:
  WriteBehind& queue();

  Options options_;
  Status kept_;  // keeps_failures: a failure wait() met, for finish()
  // Destroyed, it finishes the queued jobs (they point into the owner's buffers).
  std::unique_ptr<WriteBehind> queue_;
};

}  // namespace tapio::io
