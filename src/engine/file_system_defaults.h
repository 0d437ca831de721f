// What the file system under an opened path changes (docs/tuning.md, "File systems"): the
// defaults of stripe_size, block_align, data_align and direct that the user left unset, the
// Lustre layout new files get, and warnings.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "io/filesystem.h"

namespace tapio {

struct FileSystemPlan {
  // Parameter values for this file system, used only where the parameter is unset.
  std::vector<std::pair<std::string, std::string>> defaults;
  std::optional<io::LustreLayout> striping;  // new files' layout (Lustre, write or append)
  std::vector<std::string> warnings;
};

// Pure. Errors (TAPIO_ERR_CONFIG, naming the file): stripe_count set below 1 or above 2000;
// writing or appending on Lustre, a stripe_size that is not a multiple of 64KiB or not below
// 4GiB.
Result<FileSystemPlan> plan_for_file_system(const io::FileSystemInfo& fs, const OpenSpec& spec);

// Collective (same status on every rank): rank 0 asks `storage` for the file system of
// spec->path and broadcasts it; every rank applies the plan to spec->params (where unset) and
// spec->striping; rank 0 reports the warnings.
Status apply_file_system(const comm::Comm& comm, io::Storage& storage, OpenSpec* spec);

}  // namespace tapio
