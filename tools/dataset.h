// A tapio dataset (a directory written by the subfile engine: tapio.idx, tapio.md, data.G.K)
// opened for reading through the tapio API, for `ls`, `dump` and `convert`. Calls MPI: start it
// first (mpi_session.h). Every call that moves data is collective over MPI_COMM_WORLD.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "comm/mpi_comm.h"
#include "core/model.h"
#include "core/status.h"
#include "tapio/tapio.hpp"
#include "user_config.h"

namespace tapio::cli {

// A directory holding tapio.idx.
bool is_dataset_dir(const std::string& path);

// The definitions an IO holds (after opening a file for reading: the file's), in order.
Result<IoDef> read_definitions(tapio_io* io);

// Runs f, turning a tapio::Error into a Status with the library's message.
template <typename F>
Status api_call(F&& f) {
  try {
    f();
  } catch (const tapio::Error& e) {
    return Status(static_cast<Code>(e.code()), e.what());
  }
  return ok_status();
}

class Dataset {
 public:
  // Collective. Opens `path` for reading with the subfile engine, whatever engine a rule of
  // the user's config picks (its parameters apply).
  static Result<std::unique_ptr<Dataset>> open(const std::string& path);
  ~Dataset();

  const std::string& path() const { return path_; }
  const IoDef& definitions() const { return def_; }
  // The definitions as a NetCDF file holds them (`tapio convert` writes them): joined
  // variables as CF contiguous ragged arrays (format/netcdf/ragged.h).
  const IoDef& netcdf_definitions() const { return netcdf_def_; }
  // Per sample dimension (a joined variable's first), every step's length.
  const std::map<std::string, std::vector<uint64_t>>& sample_lengths() const { return samples_; }
  uint64_t steps() const { return steps_; }
  // The tool's context: the user's config applies through config(), not behind its back.
  tapio::Context& context() { return *ctx_; }
  const UserConfig& config() const { return config_; }

  // Local. Queues a get of the box start/count (empty for 0-d) of `var` at `step` (ignored for
  // fixed variables) into `out`: elements of the variable's type, host order, C order of the box.
  Status queue_get(const VariableDef& var, const std::vector<uint64_t>& start,
                   const std::vector<uint64_t>& count, uint64_t step, void* out);
  // Local. queue_get in netcdf_definitions()' terms: a ragged variable's rows may span steps,
  // and a count variable's value is the step's length.
  Status queue_netcdf_get(const VariableDef& var, const std::vector<uint64_t>& start,
                          const std::vector<uint64_t>& count, uint64_t step, void* out);
  // Collective: agrees on `queued` (this rank's first failed queue_get, or OK) first, so that a
  // rank that could not queue its gets fails every rank's call instead of leaving the others
  // in the read; then reads what was queued.
  Status perform_gets(const Status& queued = Status());
  // Local. The bytes of `var` over every step, as put and as stored (operators).
  Result<std::pair<uint64_t, uint64_t>> stored_bytes(const VariableDef& var);
  Status close();         // collective

 private:
  Dataset() = default;
  std::string path_;
  std::unique_ptr<tapio::Context> ctx_;
  comm::MpiComm comm_;  // for agreeing on local failures between the reads
  UserConfig config_;
  tapio::IO io_;
  tapio::Engine engine_;
  IoDef def_;
  IoDef netcdf_def_;
  std::map<std::string, std::vector<uint64_t>> samples_;
  uint64_t steps_ = 0;

  Status measure_samples();
};

}  // namespace tapio::cli
