#include "api/config_agreement.h"

#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "api/same_everywhere.h"
#include "format/subfile/records.h"

namespace tapio::api {
namespace {

// The config file this rank is given, and its text as read.
struct Given {
  std::string path;          // "" = none
  const char* from = "";     // "config_path" or "TAPIO_CONFIG"
  Result<std::string> text = std::string();
};

Given given(const char* config_path) {
  Given g;
  if (config_path && *config_path) {
    g.path = config_path;
    g.from = "config_path";
  } else if (const char* env = std::getenv("TAPIO_CONFIG"); env && *env) {
    g.path = env;
    g.from = "TAPIO_CONFIG";
  }
  if (!g.path.empty()) g.text = Config::read(g.path);
  return g;
}

// What the ranks compare: which file (or none), then what it holds (or why it cannot be read).
Items items_of(const Given& g) {
  Items items;
  if (g.path.empty()) {
    items.add("no config file (config_path is NULL and TAPIO_CONFIG unset)", nullptr, 0);
    return items;
  }
  const std::string file = "config file '" + g.path + "'";
  items.add(fmt::format("{} (from {})", file, g.from), g.path.data(), g.path.size());
  if (g.text.ok()) {
    const uint64_t hash = subfile::checksum(g.text->data(), g.text->size());
    items.add(fmt::format("{} of {} bytes (XXH3-64 {:016x})", file, g.text->size(), hash),
              g.text->data(), g.text->size());
  } else {  // the message names the file and why it cannot be read
    const std::string& why = g.text.status().message();
    items.add(why, why.data(), why.size());
  }
  return items;
}

}  // namespace

Result<std::optional<Config>> load_agreed_config(const comm::Comm& comm, const char* config_path) {
  const Given g = given(config_path);
  TAPIO_RETURN_IF_ERROR(check_same_everywhere(
      comm, ok_status(), items_of(g), TAPIO_ERR_CONFIG,
      "the config file differs across ranks (give every rank the same config_path or "
      "TAPIO_CONFIG, naming the same file)"));
  // From here every rank holds the same text, so parsing fails or succeeds alike everywhere.
  if (g.path.empty()) return std::optional<Config>();
  TAPIO_RETURN_IF_ERROR(g.text.status());
  TAPIO_ASSIGN_OR_RETURN(Config config, Config::parse(*g.text, g.path));
  return std::optional<Config>(std::move(config));
}

}  // namespace tapio::api
