// What the readers of TOML files (core/config.cpp, src/sim) share: a table's entries in file
// order, a node's line, what a node held (for "(got ...)" in messages), and parsing with a
// syntax error as a value naming the file, line and column.
#pragma once
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <utility>
#include <vector>

#include "core/status.h"

namespace tapio::toml_nodes {

using Entry = std::pair<std::string, const toml::node*>;

int line_of(const toml::node& node);
// A table's entries in file order (toml::table iterates by key), so the first error reported
// is the first in the file.
std::vector<Entry> in_file_order(const toml::table& table);
// "'lots'", "an integer 5", "a float 1.5", "a boolean true", "a table", "an array".
std::string describe(const toml::node& node);
// TAPIO_ERR_CONFIG "<what> '<source>', line L, column C: TOML syntax error: ..." on bad syntax.
Result<toml::table> parse(std::string_view text, const std::string& what, const std::string& source);

}  // namespace tapio::toml_nodes
