// Which engine opens a file: the registry of built engines and the path defaults.
#include <algorithm>

#include "core/warnings.h"
#include "engine/collective/collective_engine.h"
#include "engine/engine.h"
#include "engine/file_system_defaults.h"
#include "engine/mpiio/mpiio_engine.h"
#include "engine/serial/serial_engine.h"
#include "engine/subfile/subfile_engine.h"
#include "io/write_behind.h"

namespace tapio {

bool is_subfile_dataset(io::Storage& storage, const std::string& path) {
  // A path that is no directory (a NetCDF file, nothing) cannot be listed.
  auto found = storage.list(path, subfile::kIndexName);
  return found.ok() && std::any_of(found->begin(), found->end(), [](const io::StoredFile& f) {
           return f.name == subfile::kIndexName;
         });
}

Result<std::string> default_engine(const comm::Comm& comm, io::Storage& storage,
                                   const std::string& path, OpenMode mode) {
  // An existing dataset is read with the engine that wrote it, whatever it is called; rank 0
  // looks (a large job must not stat the path from every rank) and one reduction tells all.
  uint64_t dataset = 0;
  if (mode != OpenMode::kWrite) {
    if (comm.rank() == 0) dataset = is_subfile_dataset(storage, path);
    TAPIO_RETURN_IF_ERROR(comm.allreduce_max(&dataset));
  }
  // Otherwise one standard NetCDF file for `.nc` paths, a subfile dataset (a directory) for
  // the others.
  const bool netcdf = path.size() >= 3 && path.compare(path.size() - 3, 3, ".nc") == 0;
  return std::string(netcdf && !dataset ? "collective" : "subfile");
}

namespace {

// Async output's writer thread needs a CPU of its own to hide anything; MPI launchers bind
// each rank to one core when there are enough of them (Open MPI does at 2 ranks or fewer per
// node), and the thread inherits that. Said once per process, by rank 0.
void warn_if_async_shares_a_cpu(const EngineEnv& env) {
  static bool warned = false;
  if (warned || env.spec.mode == OpenMode::kRead || !env.spec.params.get_bool("async") ||
      env.res.comm->rank() != 0 || io::allowed_cpus() != 1)
    return;
  warned = true;
  warn(fmt::format("file '{}': async = true, but rank 0 is bound to one CPU, which its "
                   "background writer thread shares with the program: little is hidden. Bind "
                   "each rank to two or more CPUs (Open MPI: --map-by slot:PE=2, or "
                   "--bind-to none; docs/tuning.md, async)",
                   env.spec.path));
}

const EngineEntry* find_entry(std::string_view name) {
  for (const EngineEntry& entry : engine_registry())
    if (entry.name == name) return &entry;
  return nullptr;
}

// Operators exist only where the format has a place for a coded block: NetCDF classic has
// none, so asking such an engine for one is an error rather than silently uncompressed output.
Status check_operator(const OpenSpec& spec, const EngineEntry& entry) {
  if (spec.mode == OpenMode::kRead || entry.capabilities.operators ||
      spec.params.get("operator").empty())
    return ok_status();
  return error(TAPIO_ERR_CONFIG,
               "file '{}': operator = '{}' applies only to the subfile engine (the {} engine "
               "writes NetCDF, which has no operators)",
               spec.path, spec.params.get("operator"), spec.engine);
}

}  // namespace

const std::vector<EngineEntry>& engine_registry() {
  // In the order of engine_names() (core/params.cpp, which config validation uses): a test
  // keeps the two lists equal.
  static const std::vector<EngineEntry> kEntries = {
      {"serial", {.operators = false}, &SerialEngine::open},
      {"mpiio", {.operators = false}, &MpiioEngine::open},
      {"collective", {.operators = false}, &CollectiveEngine::open},
      {"subfile", {.operators = true}, &SubfileEngine::open},
  };
  return kEntries;
}

Result<std::unique_ptr<Engine>> open_engine(EngineEnv env) {
  // The name was validated against engine_names() when the spec was built.
  const EngineEntry* entry = find_entry(env.spec.engine);
  if (entry == nullptr)
    return error(TAPIO_ERR_INTERNAL, "file '{}': engine '{}' is not registered", env.spec.path,
                 env.spec.engine);
  TAPIO_RETURN_IF_ERROR(check_operator(env.spec, *entry));
  TAPIO_RETURN_IF_ERROR(apply_file_system(*env.res.comm, storage_of(env.res), &env.spec));
  warn_if_async_shares_a_cpu(env);
  auto engine = entry->open(std::move(env));
  if (engine.ok()) (*engine)->opened();
  return engine;
}

}  // namespace tapio
