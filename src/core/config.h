// The run-time configuration file (TOML): rules that match an IO name or a file path glob and
// set the engine and parameters, so a program's I/O changes with the machine, not the code.
//
//   [[rule]]
//   io   = "history*"        # optional: glob on the IO name
//   path = "/scratch/*.nc"   # optional: glob on the file path
//   engine = "serial"
//   fsync = "close"
//   buffer_size = "32MiB"
//
// Rules apply in file order; later matching rules override earlier ones, and every rule
// overrides what the program set. A rule with neither io nor path matches everything.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/params.h"
#include "core/status.h"

namespace tapio {

struct ConfigRule {
  std::string io_glob;    // "" matches any IO name
  std::string path_glob;  // "" matches any path
  std::string engine;     // "" leaves the engine unchanged
  std::map<std::string, std::string> params;  // canonical values
  int line = 0;           // where the rule starts, for messages

  // fnmatch(3) with no flags on both globs: '*' also matches '/', so "*.nc" matches any path
  // ending in .nc. An empty glob matches anything.
  bool matches(std::string_view io_name, std::string_view path) const;
};

class Config {
 public:
  // Parse TOML text; `source` names the file in messages. Errors: TAPIO_ERR_CONFIG with
  // "config file 'X', line N: ..." and, for unknown keys, "did you mean 'Y'?".
  static Result<Config> parse(std::string_view text, const std::string& source);
  // Read and parse a file; an unreadable file is TAPIO_ERR_CONFIG "config file 'X': ...".
  static Result<Config> load(const std::string& path);
  // The text of a config file, unparsed; errors as load's.
  static Result<std::string> read(const std::string& path);

  const std::vector<ConfigRule>& rules() const { return rules_; }
  const std::string& source() const { return source_; }

  // Apply the matching rules to *engine and *params (file values override program values).
  // Either pointer may be null to apply only the other.
  Status apply(std::string_view io_name, std::string_view path, std::string* engine,
               Params* params) const;

 private:
  std::string source_;
  std::vector<ConfigRule> rules_;
};

}  // namespace tapio
