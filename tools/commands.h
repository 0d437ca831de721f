// The tool's subcommands. Each returns the process exit code (0 ok, 1 error) and reports
// errors on stderr as "tapio: <message naming the file>".
#pragma once
#include <optional>
#include <string>

namespace tapio::cli {

struct LsOptions {
  std::string path;
  bool json = false;
};

struct DumpOptions {
  std::string path;
  std::string var;
  std::optional<std::string> step;   // record variables: one step (default: all)
  std::optional<std::string> start;  // comma-separated, without the record dimension
  std::optional<std::string> count;
  bool json = false;
};

int run_ls(const LsOptions& options);
int run_dump(const DumpOptions& options);

// Print "tapio: message" to stderr and return 1.
int fail(const std::string& message);

}  // namespace tapio::cli
