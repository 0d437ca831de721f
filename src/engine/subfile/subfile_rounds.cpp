// Subfile writer, aggregate writes: the group's step is cut into rounds of `buffer_size`
// (plan/group_layout.h). Every rank sends the group's first rank its bytes of each round as one
// message, which MPI gathers straight from the user's buffers; the first rank receives each
// round's messages straight into one of two round buffers, copies its own bytes in, and hands
// the round to a write-behind thread while the next one arrives in the other buffer. Messages
// of one sender arrive in the order sent, so one tag serves every round.
#include <cstring>

#include "engine/subfile/put_stream.h"
#include "engine/subfile/subfile_writer.h"

namespace tapio {
namespace {

constexpr int kRoundTag = 7101;

// Stream bytes [from, to) where they lie in the user's buffers: blocks relative to the lowest
// address among them (a message gathered by MPI from several buffers).
comm::Pieces stream_pieces(const subfile::PutStream& stream, uint64_t from, uint64_t to) {
  std::vector<std::pair<uintptr_t, uint64_t>> spans;
  stream.for_each(from, to, [&](size_t, const uint8_t* data, uint64_t n) {
    spans.emplace_back(reinterpret_cast<uintptr_t>(data), n);
  });
  comm::Pieces p;
  if (spans.empty()) return comm::Pieces::bytes(nullptr, 0);
  uintptr_t lowest = spans[0].first;
  for (const auto& s : spans) lowest = std::min(lowest, s.first);
  p.base = reinterpret_cast<uint8_t*>(lowest);
  for (const auto& [at, n] : spans) p.blocks.push_back(comm::Block{at - lowest, n, n, 1});
  return p;
}

}  // namespace

Status SubfileWriter::send_rounds(const subfile::PutStream& stream,
                                  const plan::GroupLayout& layout,
                                  std::vector<subfile::BlockSums>* sums) {
  subfile::BlockSummers summers(stream, p_.io(), p_.spec.stats, sums);
  const uint64_t me = static_cast<uint64_t>(group_.comm->rank());
  const uint64_t offset = layout.offsets[me], round = p_.spec.writers.round;
  comm::Requests sends;
  Status local = ok_status();
  // This rank's bytes of round k are its region's intersection with the round.
  for (uint64_t at = offset; at < offset + layout.sizes[me];) {
    const uint64_t k = (at - layout.base) / round;
    const uint64_t to = std::min(offset + layout.sizes[me], layout.base + (k + 1) * round);
    {
      PhaseTimer t(&p_.profile, Phase::kChecksum);
      summers.add(at - offset, to - offset);
    }
    keep(&local, group_.comm->isend(stream_pieces(stream, at - offset, to - offset), 0, kRoundTag,
                               &sends));
    p_.profile.messages.send(to - at);
    at = to;
  }
  PhaseTimer t(&p_.profile, Phase::kExchange);
  keep(&local, group_.comm->waitall(&sends).with_context("subfile round data"));
  return local;
}

Status SubfileWriter::write_rounds(const subfile::PutStream& stream,
                                   const plan::GroupLayout& layout,
                                   std::vector<subfile::BlockSums>* sums) {
  subfile::BlockSummers summers(stream, p_.io(), p_.spec.stats, sums);
  io::BackgroundWriter::Ticket last_write[2] = {0, 0};
  Status local = ok_status();  // after a failed write: keep receiving, write nothing
  bool lost = false;           // a member's message was lost: write nothing either
  const uint64_t rounds = plan::round_count(layout, p_.spec.writers.round);
  for (uint64_t k = 0; k < rounds; ++k) {
    if (p_.spec.async) {
      keep(&local, receive_round_behind(k, layout, stream, &summers, &lost));
      continue;
    }
    const uint64_t from = layout.base + k * p_.spec.writers.round;
    const uint64_t length = std::min(p_.spec.writers.round, layout.end - from);
    {
      PhaseTimer t(&p_.profile, Phase::kWrite);  // the write that last used this buffer
      keep(&local, writer_.wait(last_write[k % 2]));
    }
    uint8_t* buf = round_bufs_[k % 2].prepare(length);
    keep(&local, receive_round(k, layout, stream, &summers, buf, length, &lost));
    // The write that next reuses buf waits for this one.
    if (local.ok() && !lost)
      last_write[k % 2] =
          writer_.write(group_.data.get(), {io::Piece{from, buf, length}}, p_.spec.fsync.close);
  }
  if (p_.spec.async) return local;
  PhaseTimer t(&p_.profile, Phase::kWrite);
  const Status drained = writer_.drain();
  return local.ok() ? drained : local;
}

// Round k in buf: the members' parts received straight into place, this rank's copied in
// (summed on the way), the gaps between regions zeroed. *lost when a member's message was
// lost (an empty one came: its sender failed to send, and reports it).
Status SubfileWriter::receive_round(uint64_t k, const plan::GroupLayout& layout,
                                    const subfile::PutStream& stream,
                                    subfile::BlockSummers* summers, uint8_t* buf,
                                    uint64_t length, bool* lost) {
  Status local = ok_status();
  comm::Requests recvs;
  std::vector<uint64_t> parts;  // the bytes each receive expects
  uint64_t filled = 0;  // bytes of buf before the next part; gaps between regions are zeroed
  for (const plan::RoundPart& p : plan::round_parts(layout, p_.spec.writers.round, k)) {
    std::memset(buf + filled, 0, p.at - filled);
    filled = p.at + p.length;
    if (p.member == 0) {
      copy_own_part(stream, summers, p.stream, p.length, buf + p.at);
      continue;
    }
    keep(&local, group_.comm->irecv(comm::Pieces::bytes(buf + p.at, p.length), p.member, kRoundTag,
                               &recvs));
    parts.push_back(p.length);
    p_.profile.messages.receive(p.length);
  }
  std::memset(buf + filled, 0, length - filled);
  PhaseTimer t(&p_.profile, Phase::kExchange);
  std::vector<uint64_t> received;
  keep(&local, group_.comm->waitall(&recvs, &received).with_context("subfile round data"));
  for (size_t i = 0; i < received.size(); ++i)
    if (received[i] == 0 && parts[i] > 0)
      *lost = true;
    else if (received[i] != parts[i])
      keep(&local, error(TAPIO_ERR_INTERNAL, "subfile round {}: {} of {} bytes arrived", k,
                         received[i], parts[i]));
  return local;
}

// Stream bytes [at, at + n) of this rank into out, summed just before they are copied.
void SubfileWriter::copy_own_part(const subfile::PutStream& stream, subfile::BlockSummers* summers,
                                  uint64_t at, uint64_t n, uint8_t* out) {
  {
    PhaseTimer t(&p_.profile, Phase::kChecksum);
    summers->add(at, at + n);
  }
  PhaseTimer t(&p_.profile, Phase::kCopy);
  stream.for_each(at, at + n, [&](size_t, const uint8_t* data, uint64_t len) {
    std::memcpy(out, data, len);
    out += len;
  });
  p_.profile.bytes_copied += n;
}

}  // namespace tapio
