#include "api/definitions_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/same_everywhere.h"
#include "core/out_of_memory.h"
#include "format/subfile/le_bytes.h"

namespace tapio::api {
namespace {

// An attribute's text, or its first bytes in hex: enough to see two values differ.
std::string preview(const Attribute& a) {
  const size_t n = std::min<size_t>(a.data.size(), 32);
  if (a.type == TAPIO_CHAR) return fmt::format("'{}'", std::string(a.data.begin(), a.data.begin() + n));
  return fmt::format("{:02x}", fmt::join(a.data.begin(), a.data.begin() + n, ""));
}

void add_attributes(Items& items, const std::vector<Attribute>& attrs, const std::string& owner) {
  items.add_count(attrs.size(), "attributes " + owner);
  for (const Attribute& a : attrs) {
    std::vector<uint8_t> bytes;
    subfile::LeWriter w(bytes);
    w.str(a.name);
    w.u32(a.type);
    w.bytes(a.data.data(), a.data.size());
    items.add(fmt::format("attribute '{}' {} ({} of {} bytes: {})", a.name, owner,
                          type_name(a.type), a.data.size(), preview(a)),
              bytes);
  }
}

Items items_of(const IoDef& io, const std::string& path, const std::string& engine,
               const Params& params, OpenMode mode) {
  Items items;
  std::vector<uint8_t> opened(path.begin(), path.end());
  opened.push_back(static_cast<uint8_t>(mode));
  items.add(fmt::format("path '{}' opened in {} mode", path, mode_name(mode)), opened);
  if (mode != OpenMode::kRead) {
    items.add_count(io.dims.size(), "dimensions declared");
    for (const DimensionDef& d : io.dims) {
      std::vector<uint8_t> bytes;
      subfile::LeWriter w(bytes);
      w.str(d.name);
      w.u64(d.length);
      items.add(fmt::format("dimension '{}' ({})", d.name,
                            d.unlimited() ? std::string("unlimited") : std::to_string(d.length)),
                bytes);
    }
    items.add_count(io.vars.size(), "variables");
    for (const VariableDef& v : io.vars) {
      std::vector<uint8_t> bytes;
      subfile::LeWriter w(bytes);
      w.str(v.name);
      w.u32(v.type);
      w.u8(v.record);
      w.u64(v.shape.size());
      for (size_t d = 0; d < v.shape.size(); ++d) {
        w.u64(v.shape[d]);
        w.str(d < v.dim_names.size() ? v.dim_names[d] : "");
      }
      items.add(fmt::format("variable '{}' ({} [{}] ({}){})", v.name, type_name(v.type),
                            fmt::join(v.shape, ", "), fmt::join(v.dim_names, ", "),
                            v.record ? ", a value per step" : ", fixed"),
                bytes);
      add_attributes(items, v.attrs, fmt::format("of variable '{}'", v.name));
    }
    add_attributes(items, io.attrs, "of the file");
  }
  std::vector<uint8_t> bytes(engine.begin(), engine.end());
  items.add(fmt::format("engine '{}'", engine), bytes);
  items.add_count(params.values().size(), "parameters set");
  for (const auto& [key, value] : params.values()) {
    std::vector<uint8_t> kv;
    subfile::LeWriter w(kv);
    w.str(key);
    w.str(value);
    items.add(fmt::format("parameter {} = '{}'", key, value), kv);
  }
  return items;
}

}  // namespace

Status check_same_definitions(const comm::Comm& comm, const IoDef& io, const std::string& path,
                              const std::string& engine, const Params& params, OpenMode mode) {
  // A file's thousands of definitions make lists of megabytes: their allocation failing on
  // one rank fails the open on every rank, in the comparison's agreement.
  Items items;
  const std::string doing = fmt::format("checking the definitions of '{}'", path);
  const Status built = catch_out_of_memory(doing, [&] {
    items = items_of(io, path, engine, params, mode);
    return ok_status();
  });
  return check_same_everywhere(comm, built, items, TAPIO_ERR_ARG,
                               "definitions differ across ranks (every rank must define the same)");
}

}  // namespace tapio::api
