// Comm over MPI: the library's communicator. Its own duplicate of the application's
// communicator (tapio's messages never mix with the application's), with MPI errors returned
// as codes instead of aborting.
#pragma once
#include <mpi.h>

#include <memory>

#include "comm/comm.h"

namespace tapio::comm {

class MpiComm final : public Comm {
 public:
  // Duplicates `comm` and makes MPI errors return codes on it. MPI_COMM_NULL is
  // TAPIO_ERR_ARG, before MPI's error handler could abort on it.
  static Result<MpiComm> duplicate(MPI_Comm comm);
  MpiComm() : Comm(0, 1) {}
  MpiComm(MpiComm&& other) noexcept;
  MpiComm& operator=(MpiComm&& other) noexcept;
  ~MpiComm() override;

  MPI_Comm raw() const { return comm_; }

  Result<std::unique_ptr<Comm>> split(int color, int key) const override;
  Result<std::unique_ptr<Comm>> split_shared() const override;
  Status allocate_shared(uint64_t bytes, std::unique_ptr<SharedWindow>* out) const override;

 protected:
  Status do_barrier() const override;
  Status do_bcast(void* data, int bytes, int root) const override;
  Status do_allreduce(void* values, int n, Type type, Op op) const override;
  Status do_exscan(const void* in, void* out, int n, Type type, Op op) const override;
  Status do_gather(const void* send, int bytes, void* recv, int root) const override;
  Status do_gatherv(const void* send, int count, void* recv, const int* counts,
                    const int* displs, size_t elem_size, int root) const override;
  Status do_scatterv(const void* send, const int* counts, const int* displs, void* recv,
                     int count, size_t elem_size, int root) const override;
  Status do_allgather(const void* send, int bytes, void* recv) const override;
  Status do_reduce_scatter(const void* send, void* recv, const int* counts, Type type,
                           Op op) const override;
  Status post_send(const Pieces& data, int dest, int tag, Request* out) const override;
  Status post_recv(const Pieces& into, int source, int tag, Request* out) const override;
  Status wait_all(Request* requests, size_t n) const override;
  Status do_probe(int source, int tag, Envelope* found) const override;
  Status do_recv(void* buf, int bytes, int source, int tag) const override;

 private:
  // MPI_Isend or MPI_Irecv of `pieces`.
  Status post(bool send, const Pieces& pieces, int peer, int tag, Request* out) const;
  // Takes ownership of `comm` (or fails naming `call`).
  static Result<MpiComm> adopt(int rc, MPI_Comm comm, const char* call);
  Result<std::unique_ptr<Comm>> agreed(Result<MpiComm> made) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
};

// The error status of an MPI call, naming the call.
Status mpi_status(int rc, const char* call);

// Whether MPI may be called now: TAPIO_ERR_STATE, naming `call`, before MPI_Init and after
// MPI_Finalize (any other MPI call would then abort the process). Local.
Status mpi_ready(const char* call);

}  // namespace tapio::comm
