// The communicator: every message and collective tapio makes goes through this interface, with
// errors as values, 64-bit sizes, and the one agreement primitive every collective tapio call
// ends with. Two implementations: MpiComm (comm/mpi_comm.h, the library's) and FakeComm
// (comm/fake_comm.h: N virtual ranks in one process, for unit tests of the engines).
//
// The interface is a small set of virtual primitives (protected, below); the typed calls the
// engines use are written once over them, so the fake and MPI share every protocol decision:
// how a failed send still reaches its receiver, how a failed receive is drained, how counts
// that do not fit an int are refused before anyone enters a collective.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/byte_buffer.h"
#include "core/status.h"

namespace tapio::comm {

constexpr int kAnySource = -1;

// `count` pieces of `length` bytes, `stride` bytes apart, the first one `offset` bytes after a
// message's base address.
struct Block {
  uint64_t offset = 0;
  uint64_t length = 0;
  uint64_t stride = 0;
  uint64_t count = 1;
  uint64_t bytes() const { return length * count; }
  bool contiguous() const { return count == 1 || stride == length; }
};

// The bytes of one message, in order: blocks of memory from `base`. One contiguous block is
// plain bytes; more let MPI gather a send or scatter a receive itself (one copy, by MPI).
struct Pieces {
  uint8_t* base = nullptr;
  std::vector<Block> blocks;

  static Pieces bytes(const void* at, uint64_t n);
  uint64_t size() const;
  bool contiguous() const { return blocks.size() == 1 && blocks[0].contiguous(); }
};

// A send or receive in flight (MPI_Request). Filled by isend/irecv, completed by waitall.
struct Request {
  uint64_t handle = 0;     // the implementation's
  uint64_t received = 0;   // a receive, after waitall: the bytes that arrived
  int peer = 0;
  int tag = 0;
  bool receive = false;
  bool failed = false;     // a receive that could not be posted: drained at waitall
};
using Requests = std::vector<Request>;

// What a probe found.
struct Envelope {
  int source = -1;
  uint64_t bytes = 0;
};

// Memory the ranks of a communicator share (MPI_Win_allocate_shared): each rank's part.
class SharedWindow {
 public:
  virtual ~SharedWindow() = default;
  // The first byte of `rank`'s part (null if it has none).
  virtual uint8_t* base(int rank) const = 0;
  // A memory barrier (MPI_Win_sync): after writing into another rank's part and before telling
  // it so, and after hearing so and before reading.
  virtual Status sync() const = 0;
};

class Comm {
 public:
  virtual ~Comm() = default;
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Collective: ranks with the same color form a new communicator, ordered by key.
  virtual Result<std::unique_ptr<Comm>> split(int color, int key) const = 0;
  // Collective: the ranks that share memory with this one (MPI_COMM_TYPE_SHARED).
  virtual Result<std::unique_ptr<Comm>> split_shared() const = 0;
  // Collective: a shared window of `bytes` on this rank (every rank its own size). *out is set
  // whenever the window was made, even if preparing it then failed on this rank (the status
  // says so): freeing it is collective, so it goes with the others' when they agree to.
  virtual Status allocate_shared(uint64_t bytes, std::unique_ptr<SharedWindow>* out) const = 0;

  Status barrier() const;
  // Root's n values reach every rank.
  Status bcast_values(uint64_t* values, int n, int root) const;
  Status bcast_value(uint64_t* value, int root) const { return bcast_values(value, 1, root); }
  // Root's bytes reach every rank (resized on non-roots).
  Status bcast_bytes(std::vector<uint8_t>& bytes, int root) const;
  // MAX and MIN of uint64 values below 2^63 only: some MPIs (MPICH 4.0) compare MPI_UINT64_T
  // as signed in these operations.
  Status allreduce_max(uint64_t* value) const { return allreduce_max(value, 1); }
  Status allreduce_max(uint64_t* values, int n) const;  // element-wise
  Status allreduce_max(uint8_t* values, int n) const;   // element-wise, e.g. flags
  Status allreduce_sum(uint64_t* value) const { return allreduce_sum(value, 1); }
  Status allreduce_sum(uint64_t* values, int n) const;  // element-wise
  // Sum of `value` over the ranks before this one (0 on rank 0).
  Status exscan_sum(uint64_t value, uint64_t* before) const;
  Status exscan_sum(const std::vector<uint64_t>& values, std::vector<uint64_t>* before) const;
  Status exscan_max(const std::vector<uint64_t>& values, std::vector<uint64_t>* before) const;
  // Element-wise sum, minimum and maximum over the ranks, in one reduction.
  Status allreduce_sum_min_max(const std::vector<double>& mine, std::vector<double>* sum,
                               std::vector<double>* lo, std::vector<double>* hi) const;
  // Every rank's bytes reach root, concatenated in rank order; *counts gets each rank's
  // length (root only). A root without room for them fails it on every rank (root_has_room).
  Status gather_bytes(const std::vector<uint8_t>& mine, int root, std::vector<uint8_t>* all,
                      std::vector<uint64_t>* counts) const;
  // gather_bytes for a total the caller knows fits in 2^31 bytes (agreed beforehand, e.g. by a
  // reduction it needed anyway): one gather of the sizes, the root's room (root_has_room) and
  // one gatherv.
  Status gather_fitting_bytes(const std::vector<uint8_t>& mine, int root,
                              std::vector<uint8_t>* all, std::vector<uint64_t>* counts) const;
  // gather_fitting_bytes when the root already knows every rank's length (`counts`, root only:
  // agreed beforehand, e.g. unchanged since a gather, as a reduction the caller needed anyway
  // said) and holds room for them in *all: the gatherv alone.
  Status gather_known_bytes(const std::vector<uint8_t>& mine, int root,
                            const std::vector<uint64_t>& counts, std::vector<uint8_t>* all) const;
  // Every rank's value, in rank order, on every rank: O(size) memory, for small communicators
  // such as a node's ranks.
  Status allgather(uint64_t mine, std::vector<uint64_t>* all) const;
  Status allgather(int mine, std::vector<int>* all) const;
  // Every rank's `mine` (the same length on every rank) reaches root, in rank order.
  Status gather_doubles(const std::vector<double>& mine, int root, std::vector<double>* all) const;
  // Reduce-scatter of uint32 sums: rank r receives recv_counts[r] entries (the r-th slice of
  // the element-wise sum of everyone's `send`, whose length is the sum of recv_counts).
  Status reduce_scatter_sum(const std::vector<uint32_t>& send, const std::vector<int>& recv_counts,
                            std::vector<uint32_t>* mine) const;
  // Gatherv / Scatterv in units of `elem_size`-byte elements (so counts reach 2^31 elements,
  // not 2^31 bytes). counts/displs (elements) are significant at root only.
  Status gatherv(const void* send, uint64_t send_count, void* recv,
                 const std::vector<uint64_t>& counts, const std::vector<uint64_t>& displs,
                 size_t elem_size, int root) const;
  Status scatterv(const void* send, const std::vector<uint64_t>& counts,
                  const std::vector<uint64_t>& displs, void* recv, uint64_t recv_count,
                  size_t elem_size, int root) const;

  // Point to point. A message is at most 2^31 - 1 bytes. Messages of one sender with one tag
  // arrive in the order sent.
  //
  // Failing without hanging the peer: a send that cannot be posted is replaced by an empty
  // message to the same rank and tag (the receiver, which counts on a message, gets one it can
  // tell apart: fewer bytes than it expects), and a receive that cannot be posted is drained
  // at waitall (the message is received into scratch memory, so its sender's wait ends).
  // Either way the call returns the error, which the caller keeps and agrees on at the end of
  // its collective call.
  Status isend(const Pieces& data, int dest, int tag, Requests* requests) const;
  Status irecv(const Pieces& into, int source, int tag, Requests* requests) const;
  // Completes every request and clears the list; the first error, after all are done.
  // *received, if given, gets each request's received bytes (0 for sends and failed ones).
  Status waitall(Requests* requests, std::vector<uint64_t>* received = nullptr) const;
  // Blocks until a message from `source` (or kAnySource) with `tag` can be received.
  Status probe(int source, int tag, Envelope* found) const;
  // Receives a message probed before (exactly `bytes`).
  Status recv(void* buf, uint64_t bytes, int source, int tag) const;
  // probe, then recv into *into (resized to the message); *from gets its source.
  Status probe_recv(int source, int tag, ByteBuffer* into, int* from) const;

  // What the typed calls are made of.
  enum class Type { kUint8, kInt32, kUint32, kUint64, kDouble };
  enum class Op { kSum, kMin, kMax, kSumMinMax };  // kSumMinMax: double triples

 protected:
  Comm(int rank, int size) : rank_(rank), size_(size) {}
  void set_identity(int rank, int size) {
    rank_ = rank;
    size_ = size;
  }

  // The primitives. Counts are ints (the callers check); sizes of Type elements.
  virtual Status do_barrier() const = 0;
  virtual Status do_bcast(void* data, int bytes, int root) const = 0;
  virtual Status do_allreduce(void* values, int n, Type type, Op op) const = 0;
  virtual Status do_exscan(const void* in, void* out, int n, Type type, Op op) const = 0;
  virtual Status do_gather(const void* send, int bytes, void* recv, int root) const = 0;
  virtual Status do_gatherv(const void* send, int count, void* recv, const int* counts,
                            const int* displs, size_t elem_size, int root) const = 0;
  virtual Status do_scatterv(const void* send, const int* counts, const int* displs, void* recv,
                             int count, size_t elem_size, int root) const = 0;
  virtual Status do_allgather(const void* send, int bytes, void* recv) const = 0;
  virtual Status do_reduce_scatter(const void* send, void* recv, const int* counts, Type type,
                                   Op op) const = 0;
  virtual Status post_send(const Pieces& data, int dest, int tag, Request* out) const = 0;
  virtual Status post_recv(const Pieces& into, int source, int tag, Request* out) const = 0;
  // Completes requests[0, n), filling `received` of receives; the first error.
  virtual Status wait_all(Request* requests, size_t n) const = 0;
  virtual Status do_probe(int source, int tag, Envelope* found) const = 0;
  virtual Status do_recv(void* buf, int bytes, int source, int tag) const = 0;

  // Element-wise; rank 0 gets zeros (MPI leaves its result undefined).
  Status exscan(const uint64_t* values, int n, Op op, uint64_t* before) const;
  // A gather's root takes its buffer (take(), which may throw for want of memory) and tells
  // every rank whether it could, in one byte's broadcast: false on every rank when not (*st,
  // but on the root: why).
  bool root_has_room(int root, const std::function<void()>& take, Status* st) const;

 private:
  friend Status agree(const Comm& comm, const Status& local, const Status& then);
  friend Status bcast_status(const Comm& comm, int root, const Status& at_root);
  Status drain(const Request& failed) const;

  int rank_ = 0;
  int size_ = 1;
};

// The size in bytes of one element of `type`.
size_t element_size(Comm::Type type);

// Collective: every rank passes its local status and every rank gets the same answer: OK if all
// were OK, else the error of the lowest failing rank, its message prefixed with "rank N: "
// (unless it was agreed on already). Call it at the end of every collective operation so that
// no rank leaves a collective alone.
Status agree(const Comm& comm, const Status& local);
// The same agreement (one reduction) over two statuses in order: the lowest rank's error of
// `local`, or where no rank failed `local`, the lowest rank's error of `then`. For a failure
// that only matters when every rank's `local` succeeded (converting data that a failure on
// another rank may have left unread).
Status agree(const Comm& comm, const Status& local, const Status& then);

// Collective: root's status, on every rank (one broadcast of its code, and of its message only
// when it failed).
Status bcast_status(const Comm& comm, int root, const Status& at_root);

}  // namespace tapio::comm
