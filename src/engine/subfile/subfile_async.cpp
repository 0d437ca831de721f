// Subfile writer, asynchronous output (the `async` parameter; docs/design.md, "Asynchronous
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
#include "engine/subfile/subfile_writer.h"

namespace tapio {

void SubfileWriter::write_behind(io::File* file, uint64_t offset, std::shared_ptr<const void> owner,
                                 const uint8_t* data, uint64_t size, const char* what) {
  reserve_async(writer_, size, p_.spec.async_buffer, &p_.profile);
  std::string ctx = fmt::format("dataset '{}', {}, step {}, rank {} (a background write)",
                                p_.path(), what, p_.step(), p_.comm.rank());
  const bool eager = p_.spec.fsync.close && file == group_.data.get();
  writer_.write(file, {io::Piece{offset, data, size}}, eager, std::move(ctx), std::move(owner),
                size);
}

// This rank's region copied out of the user's buffers into a pooled buffer (its pages mapped
// already after the first steps), each 1 MiB piece summed just before it is copied, while it
// is in cache.
Status SubfileWriter::write_direct_behind(const subfile::PutStream& stream, uint64_t offset,
                                          std::vector<subfile::BlockSums>* sums) {
  if (stream.bytes() == 0) return ok_status();
  subfile::BlockSummers summers(stream, p_.io(), p_.spec.stats, sums);
  reserve_async(writer_, stream.bytes(), p_.spec.async_buffer, &p_.profile);
  auto copy = std::make_shared<PooledBuffer>(p_.res.buffers);
  uint8_t* out = copy->get().prepare(stream.bytes());
  for (uint64_t from = 0; from < stream.bytes(); from += kPiece) {
    const uint64_t to = std::min(stream.bytes(), from + kPiece);
    {
      PhaseTimer t(&p_.profile, Phase::kChecksum);
      summers.add(from, to);
    }
    PhaseTimer t(&p_.profile, Phase::kCopy);
    stream.for_each(from, to, [&](size_t, const uint8_t* data, uint64_t n) {
      std::memcpy(out, data, n);
      out += n;
    });
  }
  p_.profile.bytes_copied += stream.bytes();
  const uint8_t* data = copy->get().data();
  write_behind(group_.data.get(), offset, std::move(copy), data, stream.bytes(), "its subfile");
  return ok_status();
}

// Round k received into a buffer of its own, which its write job keeps until written.
Status SubfileWriter::receive_round_behind(uint64_t k, const plan::GroupLayout& layout,
                                           const subfile::PutStream& stream,
                                           subfile::BlockSummers* summers, bool* lost) {
  const uint64_t from = layout.base + k * p_.spec.writers.round;
  const uint64_t length = std::min(p_.spec.writers.round, layout.end - from);
  reserve_async(writer_, length, p_.spec.async_buffer, &p_.profile);
  auto buf = std::make_shared<PooledBuffer>(p_.res.buffers);
  uint8_t* into = buf->get().prepare(length);
  TAPIO_RETURN_IF_ERROR(receive_round(k, layout, stream, summers, into, length, lost));
  if (!*lost)
    write_behind(group_.data.get(), from, std::move(buf), into, length, "its group's subfile");
  return ok_status();
}

// A buffering layer's bytes (and with fsync = step, the subfile) reach storage before the
// step's index record, which is queued after this.
void SubfileWriter::flush_behind() {
  if (!group_.data) return;
  const std::string ctx = fmt::format("dataset '{}', the subfile's flush, step {}, rank {}",
                                      p_.path(), p_.step(), p_.comm.rank());
  writer_.submit([file = group_.data.get(), sync = p_.spec.fsync.step, ctx] {
    TAPIO_RETURN_IF_ERROR(file->flush().with_context(ctx));
    return sync ? file->sync().with_context(ctx) : ok_status();
  });
}

Status SubfileWriter::settle_pending() {
  if (!async_.pending) return ok_status();
  const Pending p = *std::exchange(async_.pending, std::nullopt);
  const subfile::StepRecord& record = p.record;
  const Status written = p_.agree(drain_async(writer_, &p_.profile));
  if (!written.ok()) return redo_from(p, written);
  async_.indexing = p;
  if (p_.comm.rank() != 0) return ok_status();
  async_.indexing->index_at = files_.index_end;
  std::vector<uint8_t> bytes = subfile::encode_step(record);
  files_.index_end += bytes.size();
  const std::string ctx = fmt::format("dataset '{}', the index record of step {}, rank 0",
                                      p_.path(), record.step);
  writer_.submit([this, md = files_.md.get(), file = files_.index.get(),
                  at = async_.indexing->index_at, sync = p_.spec.fsync.step, ctx, bytes,
                  step = record.step] {
    if (sync) TAPIO_RETURN_IF_ERROR(md->sync().with_context(ctx));  // the records it names
    TAPIO_RETURN_IF_ERROR(file->write_at(at, bytes.data(), bytes.size()).with_context(ctx));
    if (sync) TAPIO_RETURN_IF_ERROR(file->sync().with_context(ctx));
    async_.indexed = step + 1;
    return ok_status();
  });
  return ok_status();
}

// Either the pending step's writes failed, or already the index record queued before them
// (then that step is redone too, and its index region is written again).
Status SubfileWriter::redo_from(const Pending& pending, Status failed) {
  const auto& indexing = async_.indexing;
  uint64_t index_failed =
      p_.comm.rank() == 0 && indexing && async_.indexed <= indexing->record.step ? 1 : 0;
  keep(&failed, p_.comm.bcast_value(&index_failed, 0));
  const Pending redo = index_failed ? *async_.indexing : pending;
  forget_step(redo.selections, redo.definitions);
  last_step_shapes_.clear();  // the next step's blocks are checked for overlaps
  if (p_.comm.rank() == 0) {
    files_.md_end = redo.record.md_offset;
    if (index_failed) files_.index_end = redo.index_at;
  }
  async_.indexing.reset();
  p_.rewind(redo.record.step);
  return failed;
}

}  // namespace tapio
