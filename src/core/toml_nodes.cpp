#include "core/toml_nodes.h"

#include <fmt/format.h>

#include <algorithm>

namespace tapio::toml_nodes {

int line_of(const toml::node& node) { return static_cast<int>(node.source().begin.line); }

std::vector<Entry> in_file_order(const toml::table& table) {
  std::vector<Entry> out;
  for (auto&& [key, node] : table) out.emplace_back(std::string(key.str()), &node);
  std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) {
    const auto &pa = a.second->source().begin, &pb = b.second->source().begin;
    return std::make_pair(pa.line, pa.column) < std::make_pair(pb.line, pb.column);
  });
  return out;
}

std::string describe(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string: return fmt::format("'{}'", node.as_string()->get());
    case toml::node_type::integer: return fmt::format("an integer {}", node.as_integer()->get());
    case toml::node_type::floating_point:
      return fmt::format("a float {}", node.as_floating_point()->get());
    case toml::node_type::boolean: return fmt::format("a boolean {}", node.as_boolean()->get());
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    default: return "a date or time";
  }
}

namespace {

Status syntax_error(const std::string& what, const std::string& source,
                    const toml::parse_error& e) {
  return error(TAPIO_ERR_CONFIG, "{} '{}', line {}, column {}: TOML syntax error: {}", what,
               source, e.source().begin.line, e.source().begin.column, e.description());
}

}  // namespace

Result<toml::table> parse(std::string_view text, const std::string& what, const std::string& source) {
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, std::string_view(source));
  } catch (const toml::parse_error& e) {
    return syntax_error(what, source, e);
  }
#else
  toml::parse_result result = toml::parse(text, std::string_view(source));
  if (!result) return syntax_error(what, source, result.error());
  return std::move(result).table();
#endif
}

}  // namespace tapio::toml_nodes
