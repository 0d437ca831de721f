// The typed calls of Comm, written once over its primitives (comm.h).
#include "comm/comm.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>

#include "core/out_of_memory.h"

namespace tapio::comm {
namespace {

Status to_int_counts(const std::vector<uint64_t>& in, std::vector<int>* out, const char* what) {
  out->resize(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] > static_cast<uint64_t>(INT_MAX))
      return error(TAPIO_ERR_UNSUPPORTED,
                   "{} of {} elements exceeds the 2^31 elements one MPI call can move", what,
                   in[i]);
    (*out)[i] = static_cast<int>(in[i]);
  }
  return ok_status();
}

Status fits_int(uint64_t n, const char* what) {
  if (n <= static_cast<uint64_t>(INT_MAX)) return ok_status();
  return error(TAPIO_ERR_UNSUPPORTED, "{} of {} bytes exceeds the 2^31 bytes of one message",
               what, n);
}

}  // namespace

Pieces Pieces::bytes(const void* at, uint64_t n) {
  Pieces p;
  p.base = static_cast<uint8_t*>(const_cast<void*>(at));
  p.blocks.push_back(Block{0, n, n, 1});
  return p;
}

uint64_t Pieces::size() const {
  uint64_t n = 0;
  for (const Block& b : blocks) n += b.bytes();
  return n;
}

size_t element_size(Comm::Type type) {
  switch (type) {
    case Comm::Type::kUint8: return 1;
    case Comm::Type::kInt32: return 4;
    case Comm::Type::kUint32: return 4;
    case Comm::Type::kUint64: return 8;
    case Comm::Type::kDouble: return 8;
  }
  return 1;
}

Status Comm::barrier() const { return do_barrier(); }

Status Comm::bcast_values(uint64_t* values, int n, int root) const {
  return do_bcast(values, static_cast<int>(sizeof *values) * n, root);
}

Status Comm::bcast_bytes(std::vector<uint8_t>& bytes, int root) const {
  // One broadcast of a fixed size carries the length and the first bytes, so a small payload
  // (an error message, a dataset's metadata) costs one collective, not two.
  constexpr uint64_t kFirst = 16384, kHead = kFirst - 8;
  std::vector<uint8_t> first(kFirst);
  uint64_t n = bytes.size();
  if (rank_ == root) {
    std::memcpy(first.data(), &n, 8);
    std::copy_n(bytes.begin(), std::min(n, kHead), first.begin() + 8);  // empty: no null memcpy
  }
  TAPIO_RETURN_IF_ERROR(do_bcast(first.data(), static_cast<int>(kFirst), root));
  if (rank_ != root) {
    std::memcpy(&n, first.data(), 8);
    bytes.resize(n);
    std::copy_n(first.begin() + 8, std::min(n, kHead), bytes.begin());
  }
  // The rest in pieces of at most 1 GiB, so no count overflows int.
  constexpr uint64_t kPiece = 1ull << 30;
  for (uint64_t off = kHead; off < n; off += kPiece)
    TAPIO_RETURN_IF_ERROR(
        do_bcast(bytes.data() + off, static_cast<int>(std::min(kPiece, n - off)), root));
  return ok_status();
}

Status Comm::allreduce_max(uint64_t* values, int n) const {
  return do_allreduce(values, n, Type::kUint64, Op::kMax);
}
Status Comm::allreduce_max(uint8_t* values, int n) const {
  return do_allreduce(values, n, Type::kUint8, Op::kMax);
}
Status Comm::allreduce_sum(uint64_t* values, int n) const {
  return do_allreduce(values, n, Type::kUint64, Op::kSum);
}

Status Comm::exscan(const uint64_t* values, int n, Op op, uint64_t* before) const {
  TAPIO_RETURN_IF_ERROR(do_exscan(values, before, n, Type::kUint64, op));
  if (rank_ == 0) std::fill(before, before + n, 0);
  return ok_status();
}

Status Comm::exscan_sum(uint64_t value, uint64_t* before) const {
  return exscan(&value, 1, Op::kSum, before);
}

Status Comm::exscan_sum(const std::vector<uint64_t>& values, std::vector<uint64_t>* before) const {
  before->assign(values.size(), 0);
  return exscan(values.data(), static_cast<int>(values.size()), Op::kSum, before->data());
}

Status Comm::exscan_max(const std::vector<uint64_t>& values, std::vector<uint64_t>* before) const {
  before->assign(values.size(), 0);
  return exscan(values.data(), static_cast<int>(values.size()), Op::kMax, before->data());
}

Status Comm::allreduce_sum_min_max(const std::vector<double>& mine, std::vector<double>* sum,
                                   std::vector<double>* lo, std::vector<double>* hi) const {
  std::vector<double> triples;
  triples.reserve(3 * mine.size());
  for (double v : mine) triples.insert(triples.end(), {v, v, v});
  TAPIO_RETURN_IF_ERROR(
      do_allreduce(triples.data(), static_cast<int>(mine.size()), Type::kDouble, Op::kSumMinMax));
  sum->resize(mine.size());
  lo->resize(mine.size());
  hi->resize(mine.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    (*sum)[i] = triples[3 * i];
    (*lo)[i] = triples[3 * i + 1];
    (*hi)[i] = triples[3 * i + 2];
  }
  return ok_status();
}

// Between a gather's sizes and its data: the root takes its buffer (take()), and whether it
// could is told to all in one byte's broadcast, so that nobody sends into a gather the root
// cannot enter. False on every rank when it could not (*st: the others' error).
bool Comm::root_has_room(int root, const std::function<void()>& take, Status* st) const {
  uint8_t room = 1;
  if (rank_ == root) {
    try {
      take();
    } catch (const std::bad_alloc&) {
      room = 0;
    } catch (const std::length_error&) {
      room = 0;
    }
  }
  // A rank whose broadcast failed still enters the gather the others are in (the root keeps
  // what it knows), and returns the broadcast's error.
  uint8_t told = room;
  const Status sent = do_bcast(&told, 1, root);
  keep(st, sent);
  if (sent.ok()) room = told;
  if (!room && rank_ != root)
    keep(st, error(TAPIO_ERR_NOMEM, "rank {}, a gather's root, is out of memory", root));
  return room;
}

Status Comm::gather_bytes(const std::vector<uint8_t>& mine, int root, std::vector<uint8_t>* all,
                          std::vector<uint64_t>* counts) const {
  uint64_t n = mine.size();
  std::vector<uint64_t> sizes(rank_ == root ? size_ : 0);
  TAPIO_RETURN_IF_ERROR(do_gather(&n, 8, sizes.data(), root));
  std::vector<uint64_t> displs(sizes.size());
  uint64_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    displs[i] = total;
    total += sizes[i];
  }
  Status st = ok_status();
  if (!root_has_room(root, [&] { all->resize(total); }, &st))
    return rank_ == root ? out_of_memory("gathering every rank's bytes", total) : st;
  keep(&st, gatherv(mine.data(), n, rank_ == root ? all->data() : nullptr, sizes, displs, 1, root));
  if (rank_ == root && counts) *counts = std::move(sizes);
  return st;
}

Status Comm::gather_fitting_bytes(const std::vector<uint8_t>& mine, int root,
                                  std::vector<uint8_t>* all, std::vector<uint64_t>* counts) const {
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(rank_ == root ? size_ : 0), displs(sizes.size());
  // A failed gather of the sizes still enters the data's gather (the others are in it), the
  // root then receiving nothing; the first error is returned.
  Status st = do_gather(&n, sizeof n, sizes.data(), root);
  if (!st.ok()) std::fill(sizes.begin(), sizes.end(), 0);
  for (size_t i = 1; i < sizes.size(); ++i) displs[i] = displs[i - 1] + sizes[i - 1];
  const uint64_t total = sizes.empty() ? 0 : static_cast<uint64_t>(displs.back()) + sizes.back();
  if (!root_has_room(root, [&] {
        all->resize(total);
        counts->assign(sizes.begin(), sizes.end());
      }, &st))
    return rank_ == root ? out_of_memory("gathering every rank's bytes", total) : st;
  keep(&st, do_gatherv(mine.data(), n, rank_ == root ? all->data() : nullptr, sizes.data(),
                       displs.data(), 1, root));
  return st;
}

Status Comm::gather_known_bytes(const std::vector<uint8_t>& mine, int root,
                                const std::vector<uint64_t>& counts,
                                std::vector<uint8_t>* all) const {
  std::vector<int> sizes(counts.begin(), counts.end()), displs(sizes.size());
  for (size_t i = 1; i < sizes.size(); ++i) displs[i] = displs[i - 1] + sizes[i - 1];
  return do_gatherv(mine.data(), static_cast<int>(mine.size()),
                    rank_ == root ? all->data() : nullptr, sizes.data(), displs.data(), 1, root);
}

Status Comm::allgather(uint64_t mine, std::vector<uint64_t>* all) const {
  all->assign(size_, 0);
  return do_allgather(&mine, sizeof mine, all->data());
}

Status Comm::allgather(int mine, std::vector<int>* all) const {
  all->assign(size_, 0);
  return do_allgather(&mine, sizeof mine, all->data());
}

Status Comm::gather_doubles(const std::vector<double>& mine, int root,
                            std::vector<double>* all) const {
  all->assign(rank_ == root ? mine.size() * size_ : 0, 0.0);
  return do_gather(mine.data(), static_cast<int>(mine.size() * sizeof(double)), all->data(),
                   root);
}

Status Comm::reduce_scatter_sum(const std::vector<uint32_t>& send,
                                const std::vector<int>& recv_counts,
                                std::vector<uint32_t>* mine) const {
  mine->assign(recv_counts[rank_], 0);
  return do_reduce_scatter(send.data(), mine->data(), recv_counts.data(), Type::kUint32,
                           Op::kSum);
}

Status Comm::gatherv(const void* send, uint64_t send_count, void* recv,
                     const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                     size_t elem_size, int root) const {
  std::vector<int> icounts, idispls;
  Status local = ok_status();
  if (rank_ == root) {
    local = to_int_counts(counts, &icounts, "a gather");
    if (local.ok()) local = to_int_counts(displs, &idispls, "a gather displacement");
  }
  if (send_count > static_cast<uint64_t>(INT_MAX))
    local = error(TAPIO_ERR_UNSUPPORTED, "sending {} elements exceeds 2^31", send_count);
  // Agree before the gather so that no rank enters it alone.
  TAPIO_RETURN_IF_ERROR(agree(*this, local));
  return do_gatherv(send, static_cast<int>(send_count), recv, icounts.data(), idispls.data(),
                    elem_size, root);
}

Status Comm::scatterv(const void* send, const std::vector<uint64_t>& counts,
                      const std::vector<uint64_t>& displs, void* recv, uint64_t recv_count,
                      size_t elem_size, int root) const {
  std::vector<int> icounts, idispls;
  Status local = ok_status();
  if (rank_ == root) {
    local = to_int_counts(counts, &icounts, "a scatter");
    if (local.ok()) local = to_int_counts(displs, &idispls, "a scatter displacement");
  }
  if (recv_count > static_cast<uint64_t>(INT_MAX))
    local = error(TAPIO_ERR_UNSUPPORTED, "receiving {} elements exceeds 2^31", recv_count);
  TAPIO_RETURN_IF_ERROR(agree(*this, local));
  return do_scatterv(send, icounts.data(), idispls.data(), recv, static_cast<int>(recv_count),
                     elem_size, root);
}

Status Comm::isend(const Pieces& data, int dest, int tag, Requests* requests) const {
  requests->emplace_back();
  Status st = fits_int(data.size(), "a message");
  if (st.ok()) st = post_send(data, dest, tag, &requests->back());
  if (st.ok()) return st;
  // The receiver counts on a message: it gets an empty one, and this rank reports the error.
  const Status empty = post_send(Pieces::bytes(nullptr, 0), dest, tag, &requests->back());
  if (!empty.ok()) requests->pop_back();
  return st;
}

Status Comm::irecv(const Pieces& into, int source, int tag, Requests* requests) const {
  requests->emplace_back();
  Request& r = requests->back();
  Status st = fits_int(into.size(), "a message");
  if (st.ok()) st = post_recv(into, source, tag, &r);
  if (st.ok()) return st;
  // Its sender's wait must still end: the message is drained at waitall.
  r = Request{};
  r.peer = source;
  r.tag = tag;
  r.receive = true;
  r.failed = true;
  return st;
}

Status Comm::drain(const Request& failed) const {
  Envelope e;
  TAPIO_RETURN_IF_ERROR(do_probe(failed.peer, failed.tag, &e));
  std::vector<uint8_t> scratch(std::max<uint64_t>(e.bytes, 1));
  return do_recv(scratch.data(), static_cast<int>(e.bytes), e.source, failed.tag);
}

Status Comm::waitall(Requests* requests, std::vector<uint64_t>* received) const {
  // The posted requests first, in place (failed ones hold no handle), then the drains.
  Requests posted;
  std::vector<size_t> where;
  Status st = ok_status();
  for (size_t i = 0; i < requests->size(); ++i) {
    if ((*requests)[i].failed) continue;
    posted.push_back((*requests)[i]);
    where.push_back(i);
  }
  if (!posted.empty()) st = wait_all(posted.data(), posted.size());
  for (size_t k = 0; k < posted.size(); ++k) (*requests)[where[k]] = posted[k];
  for (const Request& r : *requests) {
    if (!r.failed) continue;
    const Status drained = drain(r);
    if (st.ok()) st = drained;
  }
  if (received) {
    received->clear();
    for (const Request& r : *requests) received->push_back(r.failed ? 0 : r.received);
  }
  requests->clear();
  return st;
}

Status Comm::probe(int source, int tag, Envelope* found) const {
  return do_probe(source, tag, found);
}

Status Comm::recv(void* buf, uint64_t bytes, int source, int tag) const {
  TAPIO_RETURN_IF_ERROR(fits_int(bytes, "a message"));
  return do_recv(buf, static_cast<int>(bytes), source, tag);
}

Status Comm::probe_recv(int source, int tag, ByteBuffer* into, int* from) const {
  Envelope e;
  TAPIO_RETURN_IF_ERROR(do_probe(source, tag, &e));
  *from = e.source;
  return do_recv(into->prepare(e.bytes), static_cast<int>(e.bytes), e.source, tag);
}

Status agree(const Comm& comm, const Status& local) { return agree(comm, local, ok_status()); }

Status agree(const Comm& comm, const Status& local, const Status& then) {
  // The smallest value wins: a rank failing `local` is its rank, one failing only `then` comes
  // after every such rank.
  const int size = comm.size();
  int failing = !local.ok() ? comm.rank() : !then.ok() ? size + comm.rank() : 2 * size;
  TAPIO_RETURN_IF_ERROR(comm.do_allreduce(&failing, 1, Comm::Type::kInt32, Comm::Op::kMin)
                            .with_context("the error agreement"));
  if (failing == 2 * size) return ok_status();
  failing %= size;
  // The first failing rank tells everyone its code and message.
  std::vector<uint8_t> bytes;
  if (comm.rank() == failing) {
    const Status& mine = local.ok() ? then : local;
    const std::string msg =
        mine.agreed() ? mine.message() : fmt::format("rank {}: {}", failing, mine.message());
    const int code = static_cast<int>(mine.code());
    bytes.resize(sizeof code);
    std::memcpy(bytes.data(), &code, sizeof code);
    bytes.insert(bytes.end(), msg.begin(), msg.end());
  }
  TAPIO_RETURN_IF_ERROR(comm.bcast_bytes(bytes, failing));
  int code = 0;
  std::memcpy(&code, bytes.data(), sizeof code);
  return Status(static_cast<Code>(code), std::string(bytes.begin() + sizeof code, bytes.end()))
      .as_agreed();
}

Status bcast_status(const Comm& comm, int root, const Status& at_root) {
  int code = static_cast<int>(at_root.code());
  TAPIO_RETURN_IF_ERROR(comm.do_bcast(&code, sizeof code, root).with_context("the status"));
  if (code == TAPIO_OK) return ok_status();
  std::vector<uint8_t> bytes;
  if (comm.rank() == root) {
    const std::string msg =
        at_root.agreed() ? at_root.message() : fmt::format("rank {}: {}", root, at_root.message());
    bytes.assign(msg.begin(), msg.end());
  }
  TAPIO_RETURN_IF_ERROR(comm.bcast_bytes(bytes, root));
  return Status(static_cast<Code>(code), std::string(bytes.begin(), bytes.end())).as_agreed();
}

}  // namespace tapio::comm
