// The user's config file ($TAPIO_CONFIG) as the `tapio` tool applies it to its own IOs. The
// tool reads datasets with the subfile engine, and `convert` writes the one NetCDF file its
// command line names: a rule that picks an engine for a program's output (`engine = "subfile"`
// for "*.nc") must neither turn OUT.nc into a directory nor make a dataset be read as a file.
// So the tool's context is created with kNoRules (the library applies nothing behind its back)
// and each IO takes here, before it opens, the matching rules' parameters, and their engine only
// where the caller allows it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "core/config.h"
#include "tapio/tapio.hpp"

namespace tapio::cli {

// A config file with no rules, for the tool's context.
inline constexpr const char* kNoRules = "/dev/null";

class UserConfig {
 public:
  // Collective: every rank reads $TAPIO_CONFIG, if set; a failure on one rank fails them all.
  static Result<UserConfig> load(const comm::Comm& comm);

  // Local, before `io` opens `path`: sets the parameters of the rules matching `io_name` and
  // `path` (later rules win), and the engine they pick if it is one of `engines`. Returns the
  // engine they picked and the IO did not take ("" if none).
  Result<std::string> apply(IO& io, const std::string& io_name, const std::string& path,
                            const std::vector<std::string>& engines) const;

  const std::string& source() const;  // the file's path ("" without one)

 private:
  std::optional<Config> config_;
};

}  // namespace tapio::cli
