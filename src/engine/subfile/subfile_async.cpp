// Subfile engine, asynchronous output (the `async` parameter; docs/design.md, "Asynchronous
// output of the subfile engine"). end_step k exchanges and gathers the metadata as usual, but
// every write of step k — each rank's region (direct) or each round (aggregate), the data
// flush and sync, rank 0's metadata region — is a job on the rank's write-behind thread that
// owns a copy of its bytes, so end_step returns once the step is in tapio's buffers. The next
// end_step (or close) first agrees that every rank's jobs finished, and only then rank 0
// queues step k's index record, which makes it visible: a crash keeps every step whose record
// was written, and a background failure is that agreement's error on every rank. MPI stays on
// the application thread; jobs touch only their file and their bytes.
#include <cstring>
#include <utility>

#include "engine/async_waits.h"
#include "engine/subfile/put_stream.h"
#include "engine/subfile/subfile_engine.h"

namespace tapio {

void SubfileEngine::write_behind(io::File* file, uint64_t offset, std::shared_ptr<const void> owner,
                                 const uint8_t* data, uint64_t size, const char* what) {
  reserve_async(writer_, size, spec_.async_buffer, &profile());
  std::string ctx = fmt::format("dataset '{}', {}, step {}, rank {} (a background write)",
                                path(), what, current_step(), comm().rank());
  const bool eager = spec_.sync_close && file == data_.get();
  writer_.write(file, {io::Piece{offset, data, size}}, eager, std::move(ctx), std::move(owner),
                size);
}

// This rank's region copied out of the user's buffers into a pooled buffer (its pages mapped
// already after the first steps), each 1 MiB piece summed just before it is copied, while it
// is in cache.
Status SubfileEngine::write_direct_behind(const subfile::PutStream& stream, uint64_t offset,
                                          std::vector<subfile::BlockSums>* sums) {
  if (stream.bytes() == 0) return ok_status();
  subfile::BlockSummers summers(stream, io(), spec_.stats, sums);
  reserve_async(writer_, stream.bytes(), spec_.async_buffer, &profile());
  auto copy = std::make_shared<PooledBuffer>(resources().buffers);
  uint8_t* out = copy->get().prepare(stream.bytes());
  for (uint64_t from = 0; from < stream.bytes(); from += kPiece) {
    const uint64_t to = std::min(stream.bytes(), from + kPiece);
    {
      PhaseTimer t(&profile(), Phase::kChecksum);
      summers.add(from, to);
    }
    PhaseTimer t(&profile(), Phase::kCopy);
    stream.for_each(from, to, [&](size_t, const uint8_t* data, uint64_t n) {
      std::memcpy(out, data, n);
      out += n;
    });
  }
  profile().bytes_copied += stream.bytes();
  const uint8_t* data = copy->get().data();
  write_behind(data_.get(), offset, std::move(copy), data, stream.bytes(), "its subfile");
  return ok_status();
}

// Round k received into a buffer of its own, which its write job keeps until written.
Status SubfileEngine::receive_round_behind(uint64_t k, const plan::GroupLayout& layout,
                                           const subfile::PutStream& stream,
                                           subfile::BlockSummers* summers, bool* lost) {
  const uint64_t from = layout.base + k * spec_.round;
  const uint64_t length = std::min(spec_.round, layout.end - from);
  reserve_async(writer_, length, spec_.async_buffer, &profile());
  auto buf = std::make_shared<PooledBuffer>(resources().buffers);
  uint8_t* into = buf->get().prepare(length);
  TAPIO_RETURN_IF_ERROR(receive_round(k, layout, stream, summers, into, length, lost));
  if (!*lost) write_behind(data_.get(), from, std::move(buf), into, length, "its group's subfile");
  return ok_status();
}

// A buffering layer's bytes (and with fsync = step, the subfile) reach storage before the
// step's index record, which is queued after this.
void SubfileEngine::flush_behind() {
  if (!data_) return;
  const std::string ctx = fmt::format("dataset '{}', the subfile's flush, step {}, rank {}",
                                      path(), current_step(), comm().rank());
  writer_.submit([file = data_.get(), sync = spec_.sync_step, ctx] {
    TAPIO_RETURN_IF_ERROR(file->flush().with_context(ctx));
    return sync ? file->sync().with_context(ctx) : ok_status();
  });
}

Status SubfileEngine::settle_pending() {
  if (!pending_) return ok_status();
  const Pending p = *std::exchange(pending_, std::nullopt);
  const subfile::StepRecord& record = p.record;
  const Status written = agree(drain_async(writer_, &profile()));
  if (!written.ok()) return redo_from(p, written);
  indexing_ = p;
  if (comm().rank() != 0) return ok_status();
  indexing_->index_at = index_end_;
  std::vector<uint8_t> bytes = subfile::encode_step(record);
  index_end_ += bytes.size();
  const std::string ctx = fmt::format("dataset '{}', the index record of step {}, rank 0",
                                      path(), record.step);
  writer_.submit([this, md = md_.get(), file = index_.get(), at = indexing_->index_at,
                   sync = spec_.sync_step, ctx, bytes, step = record.step] {
    if (sync) TAPIO_RETURN_IF_ERROR(md->sync().with_context(ctx));  // the records it names
    TAPIO_RETURN_IF_ERROR(file->write_at(at, bytes.data(), bytes.size()).with_context(ctx));
    if (sync) TAPIO_RETURN_IF_ERROR(file->sync().with_context(ctx));
    indexed_ = step + 1;
    return ok_status();
  });
  return ok_status();
}

// Either the pending step's writes failed, or already the index record queued before them
// (then that step is redone too, and its index region is written again).
Status SubfileEngine::redo_from(const Pending& pending, Status failed) {
  uint64_t index_failed =
      comm().rank() == 0 && indexing_ && indexed_ <= indexing_->record.step ? 1 : 0;
  keep(&failed, comm().bcast_value(&index_failed, 0));
  const Pending redo = index_failed ? *indexing_ : pending;
  forget_step(redo.selections, redo.definitions);
  last_step_shapes_.clear();  // the next step's blocks are checked for overlaps
  if (comm().rank() == 0) {
    md_end_ = redo.record.md_offset;
    if (index_failed) index_end_ = redo.index_at;
  }
  indexing_.reset();
  rewind_to(redo.record.step);
  return failed;
}

}  // namespace tapio
