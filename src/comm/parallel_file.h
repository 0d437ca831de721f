// One file opened by every rank through MPI-IO (MPI_File_*): the mpiio engine's data handle.
// A batch moves with ONE set_view (an hindexed filetype over the rank's byte ranges) and ONE
// write_all / read_all, so the MPI library (ROMIO or OMPIO) does the two-phase aggregation.
// Only over an MpiComm: the fake communicator has no MPI-IO (open fails with UNSUPPORTED).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm.h"

namespace tapio::comm {

using Hints = std::vector<std::pair<std::string, std::string>>;
using Extents = std::vector<std::pair<uint64_t, uint64_t>>;  // (file offset, bytes)

// "key=value,key=value" (blanks around keys and values ignored, empty items skipped) as
// (key, value) pairs; TAPIO_ERR_CONFIG naming `mpiio_hints` when an item is not key=value or
// does not fit MPI's limits. Pure: no MPI calls.
Result<Hints> parse_mpiio_hints(const std::string& text);

class ParallelFile {
 public:
  // Collective over `comm`: every rank opens `path` (which exists) with `hints`. This rank's
  // status: the caller agrees on it, then closes a handle that opened if some rank failed.
  static Result<std::unique_ptr<ParallelFile>> open(const Comm& comm, const std::string& path,
                                                    bool read_only, const Hints& hints);
  ~ParallelFile();  // close() must have run (it is collective)
  ParallelFile(const ParallelFile&) = delete;
  ParallelFile& operator=(const ParallelFile&) = delete;

  // Collective: one set_view over `extents` (sorted, disjoint) and one write_all / read_all
  // of the contiguous `buffer` holding them back to back. A rank with no extents (or whose
  // types cannot be built) moves zero bytes but still enters both calls.
  Status transfer(bool write, const Extents& extents, uint8_t* buffer, uint64_t bytes);
  // Collective: as transfer's write, with MPI_File_iwrite_all: returns once the write has
  // started; `buffer` must stay unchanged until finish_write. One started write at a time:
  // no other call on this file before finish_write (set_view may not meet a pending write).
  // Where the MPI-IO lacks a working MPI_File_iwrite_all (Open MPI's ROMIO) the write is made
  // at once, blocking, and finish_write reports its status.
  Status start_write(const Extents& extents, const uint8_t* buffer, uint64_t bytes);
  // Local: the started write completed (MPI_Request_get_status until done: MPI_Wait crashes on
  // a failed OMPIO request), with its status and the start's, and TAPIO_ERR_IO when it wrote
  // fewer bytes than it started; OK when none was started. How much of it progressed before is
  // the MPI library's business.
  Status finish_write();
  // Whether a failed or short write fails transfer / finish_write: not under Open MPI's
  // default MPI-IO, OMPIO, which prints the error and reports success. A caller that must not
  // lose data reserves the storage first (the mpiio engine, docs/reliability.md).
  bool reports_failed_writes() const;
  Status sync();   // collective
  Status close();  // collective; idempotent

 private:
  struct Handle;
  explicit ParallelFile(std::unique_ptr<Handle> h);
  std::unique_ptr<Handle> h_;
};

}  // namespace tapio::comm
