// Subfile engine, aggregate writes: the group's step is cut into rounds of `buffer_size`
// (plan/group_layout.h). Every rank sends the group's first rank its bytes of each round as one
// message, which MPI gathers straight from the user's buffers; the first rank receives each
// round's messages straight into one of two round buffers, copies its own bytes in, and hands
// the round to a write-behind thread while the next one arrives in the other buffer. Messages
// of one sender arrive in the order sent, so one tag serves every round.
#include <cstring>

#include "engine/subfile/put_stream.h"
#include "engine/subfile/subfile_engine.h"

namespace tapio {
namespace {

constexpr int kRoundTag = 7101;

// An MPI datatype of stream bytes [from, to) where they lie in the user's buffers (absolute
// addresses, used with MPI_BOTTOM), freed with the object.
class StreamType {
 public:
  StreamType(const subfile::PutStream& stream, uint64_t from, uint64_t to) {
    std::vector<int> lengths;
    std::vector<MPI_Aint> addresses;
    stream.for_each(from, to, [&](size_t, const uint8_t* data, uint64_t n) {
      MPI_Aint at;
      MPI_Get_address(data, &at);
      addresses.push_back(at);
      lengths.push_back(static_cast<int>(n));  // n <= the round size, at most 1 GiB
    });
    MPI_Type_create_hindexed(static_cast<int>(lengths.size()), lengths.data(), addresses.data(),
                             MPI_BYTE, &type_);
    MPI_Type_commit(&type_);
  }
  ~StreamType() { MPI_Type_free(&type_); }
  StreamType(const StreamType&) = delete;
  StreamType& operator=(const StreamType&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

}  // namespace

Status SubfileEngine::send_rounds(const std::vector<PutOp>& puts, const plan::GroupLayout& layout,
                                  std::vector<subfile::BlockSums>* sums) {
  const subfile::PutStream stream(puts, io());
  subfile::BlockSummers summers(stream, io(), spec_.stats, sums);
  const uint64_t me = static_cast<uint64_t>(group_->rank());
  const uint64_t offset = layout.offsets[me], round = spec_.round;
  std::vector<std::unique_ptr<StreamType>> types;
  std::vector<MPI_Request> sends;
  // This rank's bytes of round k are its region's intersection with the round.
  for (uint64_t at = offset; at < offset + layout.sizes[me];) {
    const uint64_t k = (at - layout.base) / round;
    const uint64_t to = std::min(offset + layout.sizes[me], layout.base + (k + 1) * round);
    {
      PhaseTimer t(&profile(), Phase::kChecksum);
      summers.add(at - offset, to - offset);
    }
    types.push_back(std::make_unique<StreamType>(stream, at - offset, to - offset));
    sends.emplace_back();
    MPI_Isend(MPI_BOTTOM, 1, types.back()->get(), 0, kRoundTag, group_->raw(), &sends.back());
    profile().messages_sent += 1;
    profile().bytes_sent += to - at;
    at = to;
  }
  PhaseTimer t(&profile(), Phase::kExchange);
  return comm::mpi_status(
      MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE),
      "MPI_Waitall (subfile round data)");
}

Status SubfileEngine::write_rounds(const std::vector<PutOp>& puts, const plan::GroupLayout& layout,
                                   std::vector<subfile::BlockSums>* sums) {
  const subfile::PutStream stream(puts, io());
  subfile::BlockSummers summers(stream, io(), spec_.stats, sums);
  if (!writer_) writer_ = std::make_unique<io::WriteBehind>();
  io::WriteBehind::Ticket last_write[2] = {0, 0};
  Status local = ok_status();  // after a failed write: keep receiving, write nothing
  const uint64_t rounds = plan::round_count(layout, spec_.round);
  for (uint64_t k = 0; k < rounds; ++k) {
    const uint64_t from = layout.base + k * spec_.round;
    const uint64_t length = std::min(spec_.round, layout.end - from);
    {
      PhaseTimer t(&profile(), Phase::kWrite);  // the write that last used this buffer
      const Status st = writer_->wait(last_write[k % 2]);
      if (local.ok()) local = st;
    }
    uint8_t* buf = round_bufs_[k % 2].prepare(length);
    std::vector<MPI_Request> recvs;
    uint64_t filled = 0;  // bytes of buf before the next part; gaps between regions are zeroed
    for (const plan::RoundPart& p : plan::round_parts(layout, spec_.round, k)) {
      std::memset(buf + filled, 0, p.at - filled);
      filled = p.at + p.length;
      if (p.member != 0) {
        recvs.emplace_back();
        MPI_Irecv(buf + p.at, static_cast<int>(p.length), MPI_BYTE, p.member, kRoundTag,
                  group_->raw(), &recvs.back());
        profile().messages_received += 1;
        profile().bytes_received += p.length;
        continue;
      }
      {
        PhaseTimer t(&profile(), Phase::kChecksum);
        summers.add(p.stream, p.stream + p.length);
      }
      PhaseTimer t(&profile(), Phase::kCopy);
      uint8_t* out = buf + p.at;
      stream.for_each(p.stream, p.stream + p.length, [&](size_t, const uint8_t* data, uint64_t n) {
        std::memcpy(out, data, n);
        out += n;
      });
      profile().bytes_copied += p.length;
    }
    std::memset(buf + filled, 0, length - filled);
    {
      PhaseTimer t(&profile(), Phase::kExchange);
      const Status st = comm::mpi_status(
          MPI_Waitall(static_cast<int>(recvs.size()), recvs.data(), MPI_STATUSES_IGNORE),
          "MPI_Waitall (subfile round data)");
      if (local.ok()) local = st;
    }
    if (!local.ok()) continue;
    io::File* file = data_.get();
    const bool eager = spec_.sync_close;
    std::atomic<int64_t>* background = &profile().background_write_ns;
    last_write[k % 2] = writer_->submit([file, buf, from, length, eager, background] {
      AtomicTimer t(background);
      TAPIO_RETURN_IF_ERROR(file->write_at(from, buf, length));
      if (eager) file->start_writeback(from, length);
      return ok_status();
    });
  }
  PhaseTimer t(&profile(), Phase::kWrite);
  const Status drained = writer_->drain();
  return local.ok() ? drained : local;
}

}  // namespace tapio
