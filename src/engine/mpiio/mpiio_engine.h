// The mpiio engine: the MPI-IO collective baseline (the seeds' MPI-IO method). Every rank
// opens the NetCDF file with MPI_File_open; a batch of puts becomes ONE MPI_File_set_view with
// an hindexed filetype over the rank's byte ranges and ONE MPI_File_write_all (reads: one
// MPI_File_read_all), so the MPI library (ROMIO or OMPIO) does the two-phase aggregation. The
// file is exactly the one the serial engine writes: the header, numrecs and fill stay with the
// NetcdfEngine base on rank 0's POSIX handle.
#pragma once
#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/netcdf_engine.h"
#include "engine/overlap_check.h"

namespace tapio {

// "key=value,key=value" (blanks around keys and values ignored, empty items skipped) as
// (key, value) pairs; TAPIO_ERR_CONFIG naming `mpiio_hints` when an item is not key=value or
// does not fit MPI's limits. Pure: no MPI calls.
Result<std::vector<std::pair<std::string, std::string>>> parse_mpiio_hints(
    const std::string& text);

class MpiioEngine final : public NetcdfEngine {
 public:
  // Collective: creates, opens for append, or opens for reading env.path.
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~MpiioEngine() override;

 private:
  explicit MpiioEngine(EngineEnv env);

  Status open_data_file();  // collective: MPI_File_open on every rank
  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status read_gets(const std::vector<GetOp>& gets) override;
  Status close_files() override;

  // Collective: one set_view over `extents` (file byte offset, bytes; sorted, disjoint) and
  // one write_all / read_all of the contiguous `buffer` holding them back to back. A rank with
  // no extents moves zero bytes but still enters both calls.
  Status transfer(bool write, const std::vector<std::pair<uint64_t, uint64_t>>& extents,
                  uint8_t* buffer, uint64_t bytes);
  Status mpi_error(int rc, const char* call) const;  // names the file

  // Rank 0: make the file reach the end of record `step` before the data of a new record is
  // written (see write_puts).
  Status extend_to_record(uint64_t step);

  MPI_File fh_ = MPI_FILE_NULL;
  uint64_t extended_records_ = 0;  // every rank: the file reaches the end of this many records
  RepeatedPuts repeated_;          // this rank's previous batch (overlap checks)
  MPI_Info info_ = MPI_INFO_NULL;  // the hints, kept until close
};

}  // namespace tapio
