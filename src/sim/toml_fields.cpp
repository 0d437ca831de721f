#include "sim/toml_fields.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <toml++/toml.h>

#include "core/params.h"
#include "core/toml_nodes.h"
#include "sim/units.h"

namespace tapio::sim {
namespace {

using toml_nodes::describe;
using toml_nodes::Entry;
using toml_nodes::in_file_order;
using toml_nodes::line_of;

std::string expected(const Field& f) {
  switch (f.kind) {
    case FieldKind::kInteger: return fmt::format("an integer of at least {}", f.min);
    case FieldKind::kNumber: return fmt::format("a number of at least {}", f.min);
    case FieldKind::kRate: return "a rate like \"12GiB/s\"";
    case FieldKind::kDuration: return "a duration like \"1.5us\" or \"7.4ms\"";
    case FieldKind::kSize: return "a size like \"1MiB\"";
    case FieldKind::kBoolean: return "true or false";
    case FieldKind::kText: break;
  }
  if (f.choices.empty()) return "a string";
  std::string out = "one of ";
  for (size_t i = 0; i < f.choices.size(); ++i) out += (i ? ", " : "") + std::string(f.choices[i]);
  return out;
}

// The number a node holds for field f, or nullopt (wrong type or form).
std::optional<double> number_of(const Field& f, const toml::node& node) {
  const auto* i = node.as_integer();
  const auto* d = node.as_floating_point();
  const auto* s = node.as_string();
  switch (f.kind) {
    case FieldKind::kInteger:
      if (i) return static_cast<double>(i->get());
      return std::nullopt;
    case FieldKind::kNumber:
      if (i) return static_cast<double>(i->get());
      if (d) return d->get();
      return std::nullopt;
    case FieldKind::kBoolean:
      if (const auto* b = node.as_boolean()) return b->get() ? 1.0 : 0.0;
      return std::nullopt;
    case FieldKind::kRate:
    case FieldKind::kDuration:
      if (i) return static_cast<double>(i->get());
      if (d) return d->get();
      if (s) {
        Result<double> v = f.kind == FieldKind::kRate ? parse_rate(s->get()) : parse_duration(s->get());
        if (v.ok()) return *v;
      }
      return std::nullopt;
    case FieldKind::kSize:
      if (i && i->get() >= 0) return static_cast<double>(i->get());
      if (s) {
        Result<uint64_t> v = parse_size(s->get());
        if (v.ok()) return static_cast<double>(*v);
      }
      return std::nullopt;
    case FieldKind::kText: break;
  }
  return std::nullopt;
}

std::string dotted(std::string_view section, std::string_view key) {
  return section.empty() ? std::string(key) : fmt::format("{}.{}", section, key);
}

Status apply(const Field& f, const toml::node& node, const Source& src) {
  const std::string name = dotted(f.section, f.key);
  if (f.kind == FieldKind::kText) {
    const auto* s = node.as_string();
    const bool ok = s && (f.choices.empty() || std::find(f.choices.begin(), f.choices.end(),
                                                         s->get()) != f.choices.end());
    if (!ok) {
      std::string hint;
      if (s && !f.choices.empty()) {
        const std::string best = nearest(s->get(), f.choices);
        if (!best.empty()) hint = fmt::format("; did you mean '{}'?", best);
      }
      return at_line(src, line_of(node), fmt::format("'{}' must be {} (got {}){}", name,
                                                     expected(f), describe(node), hint));
    }
    f.set_text(s->get());
    return ok_status();
  }
  const std::optional<double> v = number_of(f, node);
  if (!v || *v < f.min)
    return at_line(src, line_of(node),
                   fmt::format("'{}' must be {}{} (got {})", name, expected(f),
                               v && f.kind != FieldKind::kInteger && f.kind != FieldKind::kNumber
                                   ? fmt::format(", at least {}", f.min)
                                   : "",
                               describe(node)));
  f.set_number(*v);
  return ok_status();
}

std::vector<std::string_view> keys_of(const std::vector<Field>& fields, std::string_view section) {
  std::vector<std::string_view> out;
  for (const Field& f : fields)
    if (f.section == section) out.push_back(f.key);
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string best = nearest(word, candidates);
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

// The text of a scalar for an open section (numbers as written, booleans as true/false).
std::optional<std::string> scalar_text(const toml::node& node) {
  if (const auto* s = node.as_string()) return s->get();
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* b = node.as_boolean()) return std::string(b->get() ? "true" : "false");
  if (const auto* d = node.as_floating_point()) return fmt::format("{}", d->get());
  return std::nullopt;
}

Status read_table(const toml::table& table, std::string_view section, const Source& src,
                  const std::vector<Field>& fields,
                  const std::vector<std::string_view>& open_sections, const Extra& extra) {
  const bool open = std::find(open_sections.begin(), open_sections.end(), section) !=
                    open_sections.end();
  std::vector<std::string_view> sections;
  for (const Field& f : fields)
    if (!f.section.empty() && std::find(sections.begin(), sections.end(), f.section) == sections.end())
      sections.push_back(f.section);
  for (std::string_view s : open_sections) sections.push_back(s);
  for (const Entry& e : in_file_order(table)) {
    const auto& [key, node] = e;
    if (section.empty() && node->is_table()) {
      if (std::find(sections.begin(), sections.end(), key) == sections.end())
        return at_line(src, line_of(*node), fmt::format("unknown section [{}]{}", key,
                                                         did_you_mean(key, sections)));
      TAPIO_RETURN_IF_ERROR(
          read_table(*node->as_table(), key, src, fields, open_sections, extra));
      continue;
    }
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const Field& x) {
      return x.section == section && x.key == key;
    });
    if (f != fields.end()) {
      TAPIO_RETURN_IF_ERROR(apply(*f, *node, src));
      continue;
    }
    if (open && extra) {
      const std::optional<std::string> text = scalar_text(*node);
      if (!text)
        return at_line(src, line_of(*node), fmt::format("'{}' must be a single value (got {})",
                                                         dotted(section, key), describe(*node)));
      TAPIO_RETURN_IF_ERROR(extra(section, key, *text, line_of(*node)));
      continue;
    }
    std::vector<std::string_view> candidates = keys_of(fields, section);
    if (section.empty()) candidates.insert(candidates.end(), sections.begin(), sections.end());
    return at_line(src, line_of(*node),
                   fmt::format("unknown key '{}'{}", dotted(section, key),
                               did_you_mean(key, candidates)));
  }
  return ok_status();
}

}  // namespace

Status at_line(const Source& source, int line, const std::string& message) {
  return error(TAPIO_ERR_CONFIG, "{} '{}', line {}: {}", source.what, source.name, line, message);
}

Status read_fields(std::string_view text, const Source& source, const std::vector<Field>& fields,
                   const std::vector<std::string_view>& open_sections, const Extra& extra) {
  TAPIO_ASSIGN_OR_RETURN(toml::table root, toml_nodes::parse(text, source.what, source.name));
  return read_table(root, "", source, fields, open_sections, extra);
}

}  // namespace tapio::sim

namespace tapio::sim {
namespace {

bool parses(const std::string& text) {
#if TOML_EXCEPTIONS
  try {
    (void)toml::parse(text);
    return true;
  } catch (const toml::parse_error&) {
    return false;
  }
#else
  return static_cast<bool>(toml::parse(text));
#endif
}

}  // namespace

Status read_override(const std::string& assignment, const std::string& what,
                     const std::vector<Field>& fields,
                     const std::vector<std::string_view>& open_sections, const Extra& extra) {
  const size_t eq = assignment.find('=');
  const Source src{"--set", assignment};
  if (eq == std::string::npos || eq == 0)
    return error(TAPIO_ERR_CONFIG, "--set '{}': expected KEY=VALUE for the {}", assignment, what);
  const std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  const size_t dot = key.find('.');
  const std::string head = dot == std::string::npos ? "" : "[" + key.substr(0, dot) + "]\n";
  const std::string name = dot == std::string::npos ? key : key.substr(dot + 1);
  // A TOML value as written, else the same text as a string.
  const std::string literal = head + name + " = " + value + "\n";
  const std::string quoted = head + name + " = \"" + value + "\"\n";
  const bool is_toml = parses(literal);
  const Status st = read_fields(is_toml ? literal : quoted, src, fields, open_sections, extra);
  if (st.ok()) return st;
  // The line number of a one-line document says nothing; keep the message.
  std::string msg = st.message();
  const size_t colon = msg.find(": ", msg.find("line"));
  return error(TAPIO_ERR_CONFIG, "--set '{}' ({}): {}", assignment, what,
               colon == std::string::npos ? msg : msg.substr(colon + 2));
}

Status read_text_file(const std::string& path, const std::string& what, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return error(TAPIO_ERR_CONFIG, "{} '{}': cannot open: {}", what, path, std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return error(TAPIO_ERR_CONFIG, "{} '{}': read failed", what, path);
  *text = out.str();
  return ok_status();
}

}  // namespace tapio::sim
