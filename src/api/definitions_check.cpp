#include "api/definitions_check.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>

#include "format/subfile/le_bytes.h"
#include "format/subfile/records.h"

namespace tapio::api {
namespace {

// One definition: a hash of its contents, and how to name it in an error.
struct Item {
  uint64_t hash;
  std::string description;
};

class Items {
 public:
  void add(std::string description, const std::vector<uint8_t>& contents) {
    items_.push_back(Item{subfile::checksum(contents.data(), contents.size()), std::move(description)});
  }
  // A count of what follows, first, so a missing or extra definition is named as a count.
  void add_count(uint64_t n, const std::string& what) {
    std::vector<uint8_t> bytes;
    subfile::LeWriter(bytes).u64(n);
    add(fmt::format("{} {}", n, what), bytes);
  }
  void add_attributes(const std::vector<Attribute>& attrs, const std::string& owner) {
    add_count(attrs.size(), "attributes " + owner);
    for (const Attribute& a : attrs) {
      std::vector<uint8_t> bytes;
      subfile::LeWriter w(bytes);
      w.str(a.name);
      w.u32(a.type);
      w.bytes(a.data.data(), a.data.size());
      add(fmt::format("attribute '{}' {} ({} of {} bytes: {})", a.name, owner, type_name(a.type),
                      a.data.size(), preview(a)),
          bytes);
    }
  }
  const std::vector<Item>& list() const { return items_; }

 private:
  // An attribute's text, or its first bytes in hex: enough to see two values differ.
  static std::string preview(const Attribute& a) {
    const size_t n = std::min<size_t>(a.data.size(), 32);
    if (a.type == TAPIO_CHAR) return fmt::format("'{}'", std::string(a.data.begin(), a.data.begin() + n));
    return fmt::format("{:02x}", fmt::join(a.data.begin(), a.data.begin() + n, ""));
  }
  std::vector<Item> items_;
};

Items items_of(const IoDef& io, const std::string& path, const std::string& engine,
               const Params& params, OpenMode mode) {
  Items items;
  std::vector<uint8_t> opened(path.begin(), path.end());
  opened.push_back(static_cast<uint8_t>(mode));
  items.add(fmt::format("path '{}' opened in {} mode", path, mode_name(mode)), opened);
  if (mode != OpenMode::kRead) {
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
      items.add_attributes(v.attrs, fmt::format("of variable '{}'", v.name));
    }
    items.add_attributes(io.attrs, "of the file");
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

uint64_t combined_hash(const std::vector<Item>& items) {
  std::vector<uint8_t> bytes;
  subfile::LeWriter w(bytes);
  for (const Item& i : items) w.u64(i.hash);
  return subfile::checksum(bytes.data(), bytes.size());
}

// Error path only (a few collectives more): the first item where some rank differs from rank
// 0, the lowest such rank, and rank 0's description of it; that rank reports both sides.
Status name_the_difference(const comm::Comm& comm, const std::vector<Item>& mine) {
  std::vector<uint8_t> hashes(8 * mine.size());
  for (size_t i = 0; i < mine.size(); ++i) std::memcpy(&hashes[8 * i], &mine[i].hash, 8);
  TAPIO_RETURN_IF_ERROR(comm.bcast_bytes(hashes, 0));
  const size_t theirs = hashes.size() / 8;
  size_t first = 0;
  while (first < mine.size() && first < theirs &&
         std::memcmp(&hashes[8 * first], &mine[first].hash, 8) == 0)
    ++first;
  const bool differs = first < mine.size() || first < theirs;
  // The largest key is the smallest differing item and then the lowest rank (keys < 2^63).
  constexpr uint64_t kNone = 0x7fffffff;
  const uint64_t item = differs ? std::min<uint64_t>(first, kNone - 1) : kNone;
  uint64_t key = (kNone - item) << 32 | (0xffffffffu - static_cast<uint32_t>(comm.rank()));
  TAPIO_RETURN_IF_ERROR(comm.allreduce_max(&key));
  const uint64_t at = kNone - (key >> 32);
  const int rank = static_cast<int>(0xffffffffu - (key & 0xffffffffu));
  const auto describe = [&](uint64_t i) {
    return i < mine.size() ? mine[i].description : std::string("nothing more");
  };
  std::string at_root = describe(at);
  std::vector<uint8_t> text(at_root.begin(), at_root.end());
  TAPIO_RETURN_IF_ERROR(comm.bcast_bytes(text, 0));
  at_root.assign(text.begin(), text.end());
  Status local = ok_status();
  if (comm.rank() == rank)
    local = error(TAPIO_ERR_ARG,
                  "definitions differ across ranks (every rank must define the same): rank 0 "
                  "has {}, rank {} has {}",
                  at_root, rank, describe(at));
  return comm::agree(comm, local);
}

}  // namespace

Status check_same_definitions(const comm::Comm& comm, const IoDef& io, const std::string& path,
                              const std::string& engine, const Params& params, OpenMode mode) {
  const Items items = items_of(io, path, engine, params, mode);
  // The hash and its complement, reduced with a byte-wise maximum: every byte is the same on
  // every rank iff no rank sees a maximum other than its own value, and every rank sees the
  // same outcome (a position where ranks differ raises someone's byte and someone's complement).
  const uint64_t hash = combined_hash(items.list()), complement = ~hash;
  uint8_t both[16];
  std::memcpy(both, &hash, 8);
  std::memcpy(both + 8, &complement, 8);
  // Agreed at once: a rank whose reduction failed knows nothing of the others' definitions.
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, comm.allreduce_max(both, 16)));
  if (std::memcmp(both, &hash, 8) == 0 && std::memcmp(both + 8, &complement, 8) == 0)
    return ok_status();
  return name_the_difference(comm, items.list());
}

}  // namespace tapio::api
