// Comm over MPI (mpi_comm.h): each primitive is one MPI call, its return code checked.
#include "comm/mpi_comm.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <utility>

namespace tapio::comm {
namespace {

static_assert(sizeof(MPI_Request) <= sizeof(uint64_t), "a request handle fits 64 bits");

// An MPI datatype, freed on destruction (MPI lets a type be freed while a send or receive that
// uses it is still pending).
class MpiType {
 public:
  MpiType() = default;
  MpiType(const MpiType&) = delete;
  MpiType& operator=(const MpiType&) = delete;
  ~MpiType() {
    if (type_ != MPI_DATATYPE_NULL) (void)MPI_Type_free(&type_);
  }
  MPI_Datatype* out() { return &type_; }
  MPI_Datatype get() const { return type_; }
  Status commit() { return mpi_status(MPI_Type_commit(&type_), "MPI_Type_commit"); }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

// The (buffer, count, datatype) of one message.
struct Buffer {
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_BYTE;
  MpiType owned;  // the derived type, if one was needed
};

Status int_length(uint64_t n, int* out) {
  if (n > static_cast<uint64_t>(INT_MAX))
    return error(TAPIO_ERR_UNSUPPORTED, "a piece of {} bytes exceeds MPI's int count", n);
  *out = static_cast<int>(n);
  return ok_status();
}

// Blocks of contiguous bytes: one hindexed type.
Status hindexed(const Pieces& p, Buffer* out) {
  const size_t n = p.blocks.size();
  std::vector<int> lengths(n);
  std::vector<MPI_Aint> displs(n);
  for (size_t i = 0; i < n; ++i) {
    TAPIO_RETURN_IF_ERROR(int_length(p.blocks[i].bytes(), &lengths[i]));
    displs[i] = static_cast<MPI_Aint>(p.blocks[i].offset);
  }
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Type_create_hindexed(static_cast<int>(n), lengths.data(),
                                                            displs.data(), MPI_BYTE,
                                                            out->owned.out()),
                                   "MPI_Type_create_hindexed"));
  return out->owned.commit();
}

// Some blocks strided: one struct entry per block, a strided one an hvector (freed here: the
// struct keeps what it needs).
Status structured(const Pieces& p, Buffer* out) {
  const size_t n = p.blocks.size();
  std::vector<int> lengths(n);
  std::vector<MPI_Aint> displs(n);
  std::vector<MPI_Datatype> types(n, MPI_BYTE);
  std::vector<MpiType> vectors(n);
  for (size_t i = 0; i < n; ++i) {
    const Block& b = p.blocks[i];
    displs[i] = static_cast<MPI_Aint>(b.offset);
    if (b.contiguous()) {
      TAPIO_RETURN_IF_ERROR(int_length(b.bytes(), &lengths[i]));
      continue;
    }
    int count = 0, length = 0;
    TAPIO_RETURN_IF_ERROR(int_length(b.count, &count));
    TAPIO_RETURN_IF_ERROR(int_length(b.length, &length));
    TAPIO_RETURN_IF_ERROR(mpi_status(
        MPI_Type_create_hvector(count, length, static_cast<MPI_Aint>(b.stride), MPI_BYTE,
                                vectors[i].out()),
        "MPI_Type_create_hvector"));
    lengths[i] = 1;
    types[i] = vectors[i].get();
  }
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Type_create_struct(static_cast<int>(n), lengths.data(),
                                                          displs.data(), types.data(),
                                                          out->owned.out()),
                                   "MPI_Type_create_struct"));
  return out->owned.commit();
}

Status to_buffer(const Pieces& p, Buffer* out) {
  static uint8_t dummy = 0;
  out->buf = p.base ? p.base : &dummy;
  const uint64_t size = p.size();
  if (size == 0) return ok_status();
  if (p.contiguous()) {
    out->buf = p.base + p.blocks[0].offset;
    return int_length(size, &out->count);
  }
  out->count = 1;
  const bool strided = std::any_of(p.blocks.begin(), p.blocks.end(),
                                   [](const Block& b) { return !b.contiguous(); });
  TAPIO_RETURN_IF_ERROR(strided ? structured(p, out) : hindexed(p, out));
  out->type = out->owned.get();
  return ok_status();
}

MPI_Datatype mpi_type(Comm::Type t) {
  switch (t) {
    case Comm::Type::kUint8: return MPI_UINT8_T;
    case Comm::Type::kInt32: return MPI_INT;
    case Comm::Type::kUint32: return MPI_UINT32_T;
    case Comm::Type::kUint64: return MPI_UINT64_T;
    case Comm::Type::kDouble: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(Comm::Op op) {
  switch (op) {
    case Comm::Op::kSum: return MPI_SUM;
    case Comm::Op::kMin: return MPI_MIN;
    case Comm::Op::kMax: return MPI_MAX;
    case Comm::Op::kSumMinMax: break;
  }
  return MPI_OP_NULL;
}

// (sum, min, max) triples, reduced element-wise.
void sum_min_max(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const double*>(in);
  auto* b = static_cast<double*>(inout);
  for (int i = 0; i < *len; ++i, a += 3, b += 3) {
    b[0] += a[0];
    b[1] = std::min(a[1], b[1]);
    b[2] = std::max(a[2], b[2]);
  }
}

// The triples' reduction: a type of three doubles and its operation.
Status allreduce_triples(void* values, int n, MPI_Comm comm) {
  MpiType triple;
  TAPIO_RETURN_IF_ERROR(
      mpi_status(MPI_Type_contiguous(3, MPI_DOUBLE, triple.out()), "MPI_Type_contiguous"));
  TAPIO_RETURN_IF_ERROR(triple.commit());
  MPI_Op op;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Op_create(&sum_min_max, 1, &op), "MPI_Op_create"));
  const int rc = MPI_Allreduce(MPI_IN_PLACE, values, n, triple.get(), op, comm);
  (void)MPI_Op_free(&op);
  return mpi_status(rc, "MPI_Allreduce (sum, min, max)");
}

// A type of `elem_size` contiguous bytes.
Status element_type(size_t elem_size, MpiType* type) {
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Type_contiguous(static_cast<int>(elem_size), MPI_BYTE, type->out()),
      "MPI_Type_contiguous"));
  return type->commit();
}

// A shared window, unlocked and freed with the object.
class MpiWindow final : public SharedWindow {
 public:
  MpiWindow(MPI_Win win, std::vector<uint8_t*> bases, bool locked)
      : win_(win), bases_(std::move(bases)), locked_(locked) {}
  ~MpiWindow() override {  // collective (MPI_Win_free)
    if (locked_) (void)MPI_Win_unlock_all(win_);
    (void)MPI_Win_free(&win_);
  }
  uint8_t* base(int rank) const override { return bases_[rank]; }
  Status sync() const override { return mpi_status(MPI_Win_sync(win_), "MPI_Win_sync"); }

 private:
  MPI_Win win_;
  std::vector<uint8_t*> bases_;
  bool locked_;
};

}  // namespace

Status mpi_status(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return ok_status();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  return error(TAPIO_ERR_MPI, "{} failed: {}", call, std::string(text, len));
}

Result<MpiComm> MpiComm::adopt(int rc, MPI_Comm comm, const char* call) {
  TAPIO_RETURN_IF_ERROR(mpi_status(rc, call));
  MpiComm c;
  c.comm_ = comm;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN),
                                   "MPI_Comm_set_errhandler"));
  int rank = 0, size = 1;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank"));
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_size(comm, &size), "MPI_Comm_size"));
  c.set_identity(rank, size);
  return c;
}

Status mpi_ready(const char* call) {
  int initialized = 0, finalized = 0;
  (void)MPI_Initialized(&initialized);  // both may be called at any time
  (void)MPI_Finalized(&finalized);
  if (finalized) return error(TAPIO_ERR_STATE, "MPI is finalized: call {} before MPI_Finalize", call);
  if (!initialized) return error(TAPIO_ERR_STATE, "MPI is not initialized: call {} after MPI_Init", call);
  return ok_status();
}

Result<MpiComm> MpiComm::duplicate(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return error(TAPIO_ERR_ARG, "the communicator is MPI_COMM_NULL");
  MPI_Comm dup = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(comm, &dup);
  return adopt(rc, dup, "MPI_Comm_dup");
}

Result<std::unique_ptr<Comm>> MpiComm::split(int color, int key) const {
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_split(comm_, color, key, &c);
  return agreed(adopt(rc, c, "MPI_Comm_split"));
}

// A communicator that some rank failed to get is no one's: the others would wait for that rank
// in its first collective. (One reduction per split: splits happen at open.)
Result<std::unique_ptr<Comm>> MpiComm::agreed(Result<MpiComm> made) const {
  TAPIO_RETURN_IF_ERROR(agree(*this, made.status()));
  return std::unique_ptr<Comm>(new MpiComm(std::move(made).value()));
}

Result<std::unique_ptr<Comm>> MpiComm::split_shared() const {
  MPI_Comm c = MPI_COMM_NULL;
  const int rc = MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank(), MPI_INFO_NULL, &c);
  return agreed(adopt(rc, c, "MPI_Comm_split_type"));
}

Status MpiComm::allocate_shared(uint64_t bytes, std::unique_ptr<SharedWindow>* out) const {
  void* mine = nullptr;
  MPI_Win win = MPI_WIN_NULL;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Win_allocate_shared(static_cast<MPI_Aint>(bytes), 1,
                                                           MPI_INFO_NULL, comm_, &mine, &win),
                                   "MPI_Win_allocate_shared"));
  std::vector<uint8_t*> bases(size(), nullptr);
  Status st = ok_status();
  for (int r = 0; r < size() && st.ok(); ++r) {
    MPI_Aint got = 0;
    int unit = 0;
    void* base = nullptr;
    st = mpi_status(MPI_Win_shared_query(win, r, &got, &unit, &base), "MPI_Win_shared_query");
    bases[r] = got > 0 ? static_cast<uint8_t*>(base) : nullptr;
  }
  // One passive epoch for the window's life: synchronisation is by messages and sync().
  const bool locked =
      st.ok() && (st = mpi_status(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all"))
                     .ok();
  out->reset(new MpiWindow(win, std::move(bases), locked));
  return st;
}

MpiComm::MpiComm(MpiComm&& other) noexcept : Comm(other.rank(), other.size()) {
  comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
}

MpiComm& MpiComm::operator=(MpiComm&& other) noexcept {
  if (this != &other) {
    if (comm_ != MPI_COMM_NULL) (void)MPI_Comm_free(&comm_);
    comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    set_identity(other.rank(), other.size());
  }
  return *this;
}

MpiComm::~MpiComm() {
  int finalized = 0;
  (void)MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) (void)MPI_Comm_free(&comm_);
}

Status MpiComm::do_barrier() const { return mpi_status(MPI_Barrier(comm_), "MPI_Barrier"); }

Status MpiComm::do_bcast(void* data, int bytes, int root) const {
  return mpi_status(MPI_Bcast(data, bytes, MPI_BYTE, root, comm_), "MPI_Bcast");
}

Status MpiComm::do_allreduce(void* values, int n, Type type, Op op) const {
  if (op == Op::kSumMinMax) return allreduce_triples(values, n, comm_);
  return mpi_status(MPI_Allreduce(MPI_IN_PLACE, values, n, mpi_type(type), mpi_op(op), comm_),
                    "MPI_Allreduce");
}

Status MpiComm::do_exscan(const void* in, void* out, int n, Type type, Op op) const {
  return mpi_status(MPI_Exscan(in, out, n, mpi_type(type), mpi_op(op), comm_), "MPI_Exscan");
}

Status MpiComm::do_gather(const void* send, int bytes, void* recv, int root) const {
  return mpi_status(MPI_Gather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, root, comm_),
                    "MPI_Gather");
}

Status MpiComm::do_gatherv(const void* send, int count, void* recv, const int* counts,
                           const int* displs, size_t elem_size, int root) const {
  MpiType type;
  if (elem_size > 1) TAPIO_RETURN_IF_ERROR(element_type(elem_size, &type));
  const MPI_Datatype t = elem_size > 1 ? type.get() : MPI_BYTE;
  return mpi_status(MPI_Gatherv(send, count, t, recv, counts, displs, t, root, comm_),
                    "MPI_Gatherv");
}

Status MpiComm::do_scatterv(const void* send, const int* counts, const int* displs, void* recv,
                            int count, size_t elem_size, int root) const {
  MpiType type;
  if (elem_size > 1) TAPIO_RETURN_IF_ERROR(element_type(elem_size, &type));
  const MPI_Datatype t = elem_size > 1 ? type.get() : MPI_BYTE;
  return mpi_status(MPI_Scatterv(send, counts, displs, t, recv, count, t, root, comm_),
                    "MPI_Scatterv");
}

Status MpiComm::do_allgather(const void* send, int bytes, void* recv) const {
  return mpi_status(MPI_Allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm_),
                    "MPI_Allgather");
}

Status MpiComm::do_reduce_scatter(const void* send, void* recv, const int* counts, Type type,
                                  Op op) const {
  return mpi_status(MPI_Reduce_scatter(send, recv, counts, mpi_type(type), mpi_op(op), comm_),
                    "MPI_Reduce_scatter");
}

Status MpiComm::post(bool send, const Pieces& pieces, int peer, int tag, Request* out) const {
  Buffer b;
  TAPIO_RETURN_IF_ERROR(to_buffer(pieces, &b));
  MPI_Request req = MPI_REQUEST_NULL;
  TAPIO_RETURN_IF_ERROR(
      send ? mpi_status(MPI_Isend(b.buf, b.count, b.type, peer, tag, comm_, &req), "MPI_Isend")
           : mpi_status(MPI_Irecv(b.buf, b.count, b.type, peer, tag, comm_, &req), "MPI_Irecv"));
  *out = Request{};
  std::memcpy(&out->handle, &req, sizeof req);
  out->peer = peer;
  out->tag = tag;
  out->receive = !send;
  return ok_status();
}

Status MpiComm::post_send(const Pieces& data, int dest, int tag, Request* out) const {
  return post(true, data, dest, tag, out);
}

Status MpiComm::post_recv(const Pieces& into, int source, int tag, Request* out) const {
  return post(false, into, source, tag, out);
}

Status MpiComm::wait_all(Request* requests, size_t n) const {
  std::vector<MPI_Request> reqs(n);
  for (size_t i = 0; i < n; ++i) std::memcpy(&reqs[i], &requests[i].handle, sizeof reqs[i]);
  std::vector<MPI_Status> statuses(n);
  Status st = mpi_status(MPI_Waitall(static_cast<int>(n), reqs.data(), statuses.data()),
                         "MPI_Waitall");
  for (size_t i = 0; i < n && st.ok(); ++i) {
    if (!requests[i].receive) continue;
    int got = 0;
    st = mpi_status(MPI_Get_count(&statuses[i], MPI_BYTE, &got), "MPI_Get_count");
    requests[i].received = got > 0 ? static_cast<uint64_t>(got) : 0;
  }
  return st;
}

Status MpiComm::do_probe(int source, int tag, Envelope* found) const {
  MPI_Status status;
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Probe(source == kAnySource ? MPI_ANY_SOURCE : source, tag, comm_, &status),
      "MPI_Probe"));
  int bytes = 0;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count"));
  found->source = status.MPI_SOURCE;
  found->bytes = static_cast<uint64_t>(bytes);
  return ok_status();
}

Status MpiComm::do_recv(void* buf, int bytes, int source, int tag) const {
  return mpi_status(MPI_Recv(buf, bytes, MPI_BYTE, source, tag, comm_, MPI_STATUS_IGNORE),
                    "MPI_Recv");
}

}  // namespace tapio::comm
