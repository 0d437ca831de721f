// What the subfile engine's writer (subfile_writer.h) and reader (subfile_reader.h) work with,
// lent by the engine, which outlives them: the communicator, the profile, the parsed
// parameters, the open request and the engine's step.
#pragma once
#include <functional>
#include <string>

#include "engine/engine.h"
#include "engine/subfile/subfile_spec.h"

namespace tapio {

struct SubfileParts {
  const comm::Comm& comm;
  Profile& profile;
  const SubfileSpec& spec;
  const Resources& res;  // the topology, the buffer pool, the definitions
  const OpenSpec& open;  // the path, the mode, the parameters, the striping
  std::function<uint64_t()> step;  // the engine's current step (write: the one being written)
  // Async output: steps from this one on were not committed after all (Engine::rewind_to).
  std::function<void(uint64_t step)> rewind;
  // Names a variable at a step in errors: "file 'x', variable 'v', step s".
  std::function<std::string(int var, uint64_t step)> at_step;

  io::Storage& storage() const { return storage_of(res); }
  const IoDef& io() const { return *res.io; }
  IoDef* mutable_io() const { return res.io; }  // read and append: the dataset's definitions
  const std::string& path() const { return open.path; }
  std::string file_path(const std::string& name) const { return open.path + "/" + name; }
  // Every rank's status, agreed (timed as the agree phase, as Engine::agree).
  Status agree(const Status& local) const {
    PhaseTimer t(&profile, Phase::kAgree);
    return comm::agree(comm, local, ok_status());
  }
};

}  // namespace tapio
