#include "comm/comm.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace tapio::comm {
namespace {

// An MPI datatype of `elem_size` contiguous bytes, freed when it goes out of scope.
class ElementType {
 public:
  explicit ElementType(size_t elem_size) {
    MPI_Type_contiguous(static_cast<int>(elem_size), MPI_BYTE, &type_);
    MPI_Type_commit(&type_);
  }
  ~ElementType() { MPI_Type_free(&type_); }
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_;
};

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

}  // namespace

Status mpi_status(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return ok_status();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return error(TAPIO_ERR_MPI, "{} failed: {}", call, std::string(text, len));
}

Result<Comm> Comm::duplicate(MPI_Comm comm) {
  Comm c;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_dup(comm, &c.comm_), "MPI_Comm_dup"));
  MPI_Comm_set_errhandler(c.comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c.comm_, &c.rank_);
  MPI_Comm_size(c.comm_, &c.size_);
  return c;
}

Result<Comm> Comm::split(const Comm& parent, int color, int key) {
  Comm c;
  TAPIO_RETURN_IF_ERROR(
      mpi_status(MPI_Comm_split(parent.comm_, color, key, &c.comm_), "MPI_Comm_split"));
  MPI_Comm_set_errhandler(c.comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c.comm_, &c.rank_);
  MPI_Comm_size(c.comm_, &c.size_);
  return c;
}

Result<Comm> Comm::split_shared(const Comm& parent) {
  Comm c;
  TAPIO_RETURN_IF_ERROR(mpi_status(MPI_Comm_split_type(parent.comm_, MPI_COMM_TYPE_SHARED,
                                                       parent.rank_, MPI_INFO_NULL, &c.comm_),
                                   "MPI_Comm_split_type"));
  MPI_Comm_set_errhandler(c.comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(c.comm_, &c.rank_);
  MPI_Comm_size(c.comm_, &c.size_);
  return c;
}

Status Comm::exscan(const uint64_t* values, int n, MPI_Op op, uint64_t* before) const {
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Exscan(values, before, n, MPI_UINT64_T, op, comm_), "MPI_Exscan"));
  if (rank_ == 0) std::fill(before, before + n, 0);
  return ok_status();
}

Status Comm::exscan_sum(uint64_t value, uint64_t* before) const {
  return exscan(&value, 1, MPI_SUM, before);
}

Status Comm::exscan_max(const std::vector<uint64_t>& values, std::vector<uint64_t>* before) const {
  before->assign(values.size(), 0);
  return exscan(values.data(), static_cast<int>(values.size()), MPI_MAX, before->data());
}

Comm::Comm(Comm&& other) noexcept { *this = std::move(other); }

Comm& Comm::operator=(Comm&& other) noexcept {
  if (this != &other) {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
    comm_ = other.comm_;
    rank_ = other.rank_;
    size_ = other.size_;
    other.comm_ = MPI_COMM_NULL;
  }
  return *this;
}

Comm::~Comm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

Status Comm::barrier() const { return mpi_status(MPI_Barrier(comm_), "MPI_Barrier"); }

Status Comm::bcast_bytes(std::vector<uint8_t>& bytes, int root) const {
  // One broadcast of a fixed size carries the length and the first bytes, so a small payload
  // (an error message, a dataset's metadata) costs one collective, not two.
  constexpr uint64_t kFirst = 16384, kHead = kFirst - 8;
  std::vector<uint8_t> first(kFirst);
  uint64_t n = bytes.size();
  if (rank_ == root) {
    std::memcpy(first.data(), &n, 8);
    std::memcpy(first.data() + 8, bytes.data(), std::min(n, kHead));
  }
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Bcast(first.data(), static_cast<int>(kFirst), MPI_BYTE, root, comm_), "MPI_Bcast"));
  if (rank_ != root) {
    std::memcpy(&n, first.data(), 8);
    bytes.resize(n);
    std::memcpy(bytes.data(), first.data() + 8, std::min(n, kHead));
  }
  // The rest in pieces of at most 1 GiB, so no count overflows int.
  constexpr uint64_t kPiece = 1ull << 30;
  for (uint64_t off = kHead; off < n; off += kPiece) {
    const int len = static_cast<int>(std::min(kPiece, n - off));
    TAPIO_RETURN_IF_ERROR(
        mpi_status(MPI_Bcast(bytes.data() + off, len, MPI_BYTE, root, comm_), "MPI_Bcast"));
  }
  return ok_status();
}

Status Comm::allreduce(void* values, int n, MPI_Datatype type, MPI_Op op) const {
  return mpi_status(MPI_Allreduce(MPI_IN_PLACE, values, n, type, op, comm_), "MPI_Allreduce");
}

Status Comm::allreduce_max(uint64_t* value) const {
  return allreduce(value, 1, MPI_UINT64_T, MPI_MAX);
}
Status Comm::allreduce_max(uint8_t* values, int n) const {
  return allreduce(values, n, MPI_UINT8_T, MPI_MAX);
}
Status Comm::allreduce_sum(uint64_t* values, int n) const {
  return allreduce(values, n, MPI_UINT64_T, MPI_SUM);
}
Status Comm::allreduce_sum(uint64_t* value) const {
  return allreduce(value, 1, MPI_UINT64_T, MPI_SUM);
}
namespace {

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

}  // namespace

Status Comm::allreduce_sum_min_max(const std::vector<double>& mine, std::vector<double>* sum,
                                   std::vector<double>* lo, std::vector<double>* hi) const {
  std::vector<double> triples;
  triples.reserve(3 * mine.size());
  for (double v : mine) triples.insert(triples.end(), {v, v, v});
  MPI_Datatype triple;
  MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
  MPI_Type_commit(&triple);
  MPI_Op op;
  MPI_Op_create(&sum_min_max, 1, &op);
  const int rc = MPI_Allreduce(MPI_IN_PLACE, triples.data(), static_cast<int>(mine.size()), triple,
                               op, comm_);
  MPI_Op_free(&op);
  MPI_Type_free(&triple);
  TAPIO_RETURN_IF_ERROR(mpi_status(rc, "MPI_Allreduce (sum, min, max)"));
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

Status Comm::gather_bytes(const std::vector<uint8_t>& mine, int root, std::vector<uint8_t>* all,
                          std::vector<uint64_t>* counts) const {
  uint64_t n = mine.size();
  std::vector<uint64_t> sizes(rank_ == root ? size_ : 0);
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Gather(&n, 1, MPI_UINT64_T, sizes.data(), 1, MPI_UINT64_T, root, comm_), "MPI_Gather"));
  std::vector<uint64_t> displs(sizes.size());
  uint64_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    displs[i] = total;
    total += sizes[i];
  }
  if (rank_ == root) all->resize(total);
  TAPIO_RETURN_IF_ERROR(gatherv(mine.data(), n, rank_ == root ? all->data() : nullptr, sizes,
                                displs, 1, root));
  if (rank_ == root && counts) *counts = std::move(sizes);
  return ok_status();
}

Status Comm::gather_fitting_bytes(const std::vector<uint8_t>& mine, int root,
                                  std::vector<uint8_t>* all, std::vector<uint64_t>* counts) const {
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(rank_ == root ? size_ : 0), displs(sizes.size());
  TAPIO_RETURN_IF_ERROR(mpi_status(
      MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm_), "MPI_Gather"));
  for (size_t i = 1; i < sizes.size(); ++i) displs[i] = displs[i - 1] + sizes[i - 1];
  if (rank_ == root) {
    all->resize(sizes.empty() ? 0 : static_cast<size_t>(displs.back()) + sizes.back());
    counts->assign(sizes.begin(), sizes.end());
  }
  return mpi_status(MPI_Gatherv(mine.data(), n, MPI_BYTE, rank_ == root ? all->data() : nullptr,
                                sizes.data(), displs.data(), MPI_BYTE, root, comm_),
                    "MPI_Gatherv");
}

Status Comm::allgather(uint64_t mine, std::vector<uint64_t>* all) const {
  all->assign(size_, 0);
  return mpi_status(MPI_Allgather(&mine, 1, MPI_UINT64_T, all->data(), 1, MPI_UINT64_T, comm_),
                    "MPI_Allgather");
}

Status Comm::gather_doubles(const std::vector<double>& mine, int root,
                            std::vector<double>* all) const {
  const int n = static_cast<int>(mine.size());
  all->assign(rank_ == root ? mine.size() * size_ : 0, 0.0);
  return mpi_status(MPI_Gather(mine.data(), n, MPI_DOUBLE, all->data(), n, MPI_DOUBLE, root, comm_),
                    "MPI_Gather");
}

Status Comm::reduce_scatter_sum(const std::vector<uint32_t>& send,
                                const std::vector<int>& recv_counts,
                                std::vector<uint32_t>* mine) const {
  mine->assign(recv_counts[rank_], 0);
  return mpi_status(MPI_Reduce_scatter(send.data(), mine->data(), recv_counts.data(),
                                       MPI_UINT32_T, MPI_SUM, comm_),
                    "MPI_Reduce_scatter");
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
  ElementType type(elem_size);
  return mpi_status(MPI_Gatherv(send, static_cast<int>(send_count), type.get(), recv,
                                icounts.data(), idispls.data(), type.get(), root, comm_),
                    "MPI_Gatherv");
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
  ElementType type(elem_size);
  return mpi_status(MPI_Scatterv(send, icounts.data(), idispls.data(), type.get(), recv,
                                 static_cast<int>(recv_count), type.get(), root, comm_),
                    "MPI_Scatterv");
}

Status agree(const Comm& comm, const Status& local) {
  int failing = local.ok() ? comm.size() : comm.rank();
  int rc = MPI_Allreduce(MPI_IN_PLACE, &failing, 1, MPI_INT, MPI_MIN, comm.raw());
  if (rc != MPI_SUCCESS) return mpi_status(rc, "MPI_Allreduce (error agreement)");
  if (failing == comm.size()) return ok_status();
  // The first failing rank tells everyone its code and message.
  std::vector<uint8_t> bytes;
  if (comm.rank() == failing) {
    const std::string msg =
        local.agreed() ? local.message() : fmt::format("rank {}: {}", failing, local.message());
    const int code = static_cast<int>(local.code());
    bytes.resize(sizeof code);
    std::memcpy(bytes.data(), &code, sizeof code);
    bytes.insert(bytes.end(), msg.begin(), msg.end());
  }
  Status st = comm.bcast_bytes(bytes, failing);
  if (!st.ok()) return st;
  int code = 0;
  std::memcpy(&code, bytes.data(), sizeof code);
  return Status(static_cast<Code>(code), std::string(bytes.begin() + sizeof code, bytes.end()))
      .as_agreed();
}

Status bcast_status(const Comm& comm, int root, const Status& at_root) {
  int code = static_cast<int>(at_root.code());
  TAPIO_RETURN_IF_ERROR(
      mpi_status(MPI_Bcast(&code, 1, MPI_INT, root, comm.raw()), "MPI_Bcast (status)"));
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
