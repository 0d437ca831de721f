// An in-process Comm for unit tests: N virtual ranks in one process, each running on its own
// thread but only one at a time. A rank runs until it blocks in a call (a receive, a probe, a
// collective whose other ranks have not arrived), then the scheduler hands over to the next
// rank that can go on: in rank order after the blocked one, or — with a seed — a random one,
// also at points where a rank could be overtaken (sends, collective entries). So a run is a
// function of its seed: message orders, and races between ranks, are reproducible.
//
// A hang under MPI is a state where no rank can go on: the fake detects it, fails the blocked
// calls (TAPIO_ERR_INTERNAL "deadlock") so that every body returns, and run() reports it.
// Sends complete only when received (unless small: set_eager_limit), and a message still
// unreceived when the bodies return is reported too: under MPI its sender could hang.
//
// Failures are injected by call: the nth isend of rank r is not delivered and returns an
// error (MPI_Isend failing); an irecv is not posted; a collective completes and then returns
// an error on that rank with its output scrambled (MPI returning an error after the ranks
// met: the result must not be trusted); a window allocation or sync fails.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "comm/comm.h"

namespace tapio::comm {

struct FakeFault {
  int rank = 0;
  // "isend", "irecv", "probe", "waitall", a collective ("barrier", "bcast", "allreduce",
  // "exscan", "gather", "gatherv", "scatterv", "allgather", "reduce_scatter", "split"), or
  // "allocate_shared", "win_sync".
  std::string call;
  int nth = 0;  // the nth such call (from 0) of that rank fails; -1: every one
};

class FakeWorld {
 public:
  explicit FakeWorld(int ranks, uint64_t seed = 0);
  ~FakeWorld();
  FakeWorld(const FakeWorld&) = delete;
  FakeWorld& operator=(const FakeWorld&) = delete;

  void inject(FakeFault fault);
  // Sends of at most this many bytes complete when posted; larger ones when received, as
  // MPI's rendezvous sends do. Default 0: every non-empty send waits for its receive.
  void set_eager_limit(uint64_t bytes);
  int size() const;
  // Runs body(comm) on every virtual rank (see above); OK, or the deadlock that was found.
  Status run(const std::function<void(Comm& comm)>& body);
  // How many calls of `call` rank made in the last run.
  int calls(int rank, const std::string& call) const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace tapio::comm
