#include "core/config.h"

#include "core/toml_nodes.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <toml++/toml.h>
#include <utility>

namespace tapio {
namespace {

using toml_nodes::describe;
using toml_nodes::Entry;
using toml_nodes::in_file_order;
using toml_nodes::line_of;

Status at(const std::string& source, int line, const std::string& message) {
  return error(TAPIO_ERR_CONFIG, "config file '{}', line {}: {}", source, line, message);
}

// The text of a TOML scalar that `kind` accepts: strings always, integers for every kind but
// kString, booleans only for kBoolean. Anything else (floats, arrays, tables, dates) is nullopt.
std::optional<std::string> scalar_text(const toml::node& node, ParamKind kind) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer(); i && kind != ParamKind::kString)
    return std::to_string(i->get());
  if (const auto* b = node.as_boolean(); b && kind == ParamKind::kBoolean)
    return std::string(b->get() ? "true" : "false");
  return std::nullopt;
}

const std::vector<std::string_view>& rule_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> k = {"io", "path", "engine"};
    for (const ParamDef& def : param_registry()) k.push_back(def.name);
    return k;
  }();
  return keys;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string best = nearest(word, candidates);
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

std::string engine_list() {
  std::string out;
  for (std::string_view name : engine_names()) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

Status parse_glob(const Entry& e, const std::string& source, ConfigRule* rule) {
  const toml::node& node = *e.second;
  if (!node.is_string())
    return at(source, line_of(node),
              fmt::format("'{}' must be a string glob (got {})", e.first, describe(node)));
  (e.first == "io" ? rule->io_glob : rule->path_glob) = node.as_string()->get();
  return ok_status();
}

Status parse_engine(const Entry& e, const std::string& source, int index, ConfigRule* rule) {
  const toml::node& node = *e.second;
  if (!node.is_string())
    return at(source, line_of(node),
              fmt::format("'engine' must be an engine name (got {})", describe(node)));
  Result<std::string> engine = normalize_engine(node.as_string()->get());
  if (!engine.ok())
    return at(source, line_of(node),
              fmt::format("unknown engine '{}' in [[rule]] {} (known engines: {}){}",
                          node.as_string()->get(), index, engine_list(),
                          did_you_mean(node.as_string()->get(), engine_names())));
  rule->engine = *engine;
  return ok_status();
}

Status parse_param(const Entry& e, const std::string& source, int index, ConfigRule* rule) {
  const auto& [key, node] = e;
  const ParamDef* def = find_param(key);
  if (def == nullptr)
    return at(source, line_of(*node), fmt::format("unknown key '{}' in [[rule]] {}{}", key, index,
                                                  did_you_mean(key, rule_keys())));
  std::optional<std::string> text = scalar_text(*node, def->kind);
  if (!text)
    return at(source, line_of(*node),
              fmt::format("'{}' must be {} (got {})", key, param_expected(*def), describe(*node)));
  Result<std::string> value = normalize_param(key, *text);
  if (!value.ok()) return at(source, line_of(*node), value.status().message());
  rule->params[key] = *value;
  return ok_status();
}

Result<ConfigRule> parse_rule(const toml::table& table, const std::string& source, int index) {
  ConfigRule rule;
  rule.line = line_of(table);
  for (const Entry& e : in_file_order(table)) {
    if (e.first == "io" || e.first == "path") {
      TAPIO_RETURN_IF_ERROR(parse_glob(e, source, &rule));
    } else if (e.first == "engine") {
      TAPIO_RETURN_IF_ERROR(parse_engine(e, source, index, &rule));
    } else {
      TAPIO_RETURN_IF_ERROR(parse_param(e, source, index, &rule));
    }
  }
  return rule;
}

Status unknown_top_level(const Entry& e, const std::string& source) {
  const std::vector<std::string_view>& keys = rule_keys();
  bool rule_key = std::find(keys.begin(), keys.end(), e.first) != keys.end();
  std::string hint = rule_key ? fmt::format("; put '{}' inside a [[rule]]", e.first)
                              : did_you_mean(e.first, {"rule"});
  return at(source, line_of(*e.second),
            fmt::format("unknown top-level key '{}': the top level may hold only [[rule]] "
                        "tables{}",
                        e.first, hint));
}

Status not_rule_table(const toml::node& node, const std::string& source) {
  return at(source, line_of(node),
            fmt::format("'rule' must be an array of tables, written [[rule]] (got {})",
                        describe(node)));
}

Status parse_rules(const toml::table& root, const std::string& source,
                   std::vector<ConfigRule>* rules) {
  for (const Entry& e : in_file_order(root)) {
    if (e.first != "rule") return unknown_top_level(e, source);
    const toml::array* array = e.second->as_array();
    if (array == nullptr) return not_rule_table(*e.second, source);
    for (const toml::node& element : *array) {
      if (!element.is_table()) return not_rule_table(element, source);
      int index = static_cast<int>(rules->size()) + 1;
      TAPIO_ASSIGN_OR_RETURN(ConfigRule rule, parse_rule(*element.as_table(), source, index));
      rules->push_back(std::move(rule));
    }
  }
  return ok_status();
}

bool glob_match(const std::string& glob, std::string_view text) {
  return glob.empty() || fnmatch(glob.c_str(), std::string(text).c_str(), 0) == 0;
}

}  // namespace

bool ConfigRule::matches(std::string_view io_name, std::string_view path) const {
  return glob_match(io_glob, io_name) && glob_match(path_glob, path);
}

Result<Config> Config::parse(std::string_view text, const std::string& source) {
  TAPIO_ASSIGN_OR_RETURN(toml::table root, toml_nodes::parse(text, "config file", source));
  Config config;
  config.source_ = source;
  TAPIO_RETURN_IF_ERROR(parse_rules(root, source, &config.rules_));
  return config;
}

Result<Config> Config::load(const std::string& path) {
  TAPIO_ASSIGN_OR_RETURN(const std::string text, read(path));
  return parse(text, path);
}

Result<std::string> Config::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(TAPIO_ERR_CONFIG, "config file '{}': cannot open: {}", path,
                        std::strerror(errno));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))  // opens, then reads as empty
    return error(TAPIO_ERR_CONFIG, "config file '{}': is a directory", path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return error(TAPIO_ERR_CONFIG, "config file '{}': read failed", path);
  return text.str();
}

Status Config::apply(std::string_view io_name, std::string_view path, std::string* engine,
                     Params* params) const {
  for (const ConfigRule& rule : rules_) {
    if (!rule.matches(io_name, path)) continue;
    if (engine != nullptr && !rule.engine.empty()) *engine = rule.engine;
    if (params == nullptr) continue;
    for (const auto& [name, value] : rule.params)
      TAPIO_RETURN_IF_ERROR(params->set(name, value).with_context(
          fmt::format("config file '{}', line {}", source_, rule.line)));
  }
  return ok_status();
}

}  // namespace tapio
