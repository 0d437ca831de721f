#include "api/same_everywhere.h"

#include <fmt/format.h>

#include <cstring>

#include "format/subfile/le_bytes.h"
#include "format/subfile/records.h"

namespace tapio::api {
namespace {

// Chained through a buffer on the stack: thousands of items allocate nothing here.
uint64_t combined_hash(const std::vector<Item>& items) {
  uint64_t chain[2] = {items.size(), 0};
  for (const Item& i : items) {
    chain[1] = i.hash;
    chain[0] = subfile::checksum(chain, sizeof chain);
  }
  return chain[0];
}

// Error path only (a few collectives more): the first item where some rank differs from rank
// 0, the lowest such rank, and rank 0's description of it; that rank reports both sides.
Status name_the_difference(const comm::Comm& comm, const std::vector<Item>& mine, Code code,
                           const std::string& what) {
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
  uint64_t differing = differs ? 1 : 0;
  TAPIO_RETURN_IF_ERROR(comm.allreduce_sum(&differing));
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
    local = error(code, "{}: rank 0 has {}, rank {} has {} ({} of {} ranks differ from rank 0)",
                  what, at_root, rank, describe(at), differing, comm.size());
  return comm::agree(comm, local);
}

}  // namespace

void Items::add(std::string description, const void* contents, size_t bytes) {
  items_.push_back(Item{subfile::checksum(contents, bytes), std::move(description)});
}

void Items::add_count(uint64_t n, const std::string& what) {
  std::vector<uint8_t> bytes;
  subfile::LeWriter(bytes).u64(n);
  add(fmt::format("{} {}", n, what), bytes);
}

Status check_same_everywhere(const comm::Comm& comm, const Status& built, const Items& items,
                             Code code, const std::string& what) {
  // The hash and its complement, reduced with a byte-wise maximum: every byte is the same on
  // every rank iff no rank sees a maximum other than its own value, and every rank sees the
  // same outcome (a position where ranks differ raises someone's byte and someone's complement).
  const uint64_t hash = combined_hash(items.list()), complement = ~hash;
  uint8_t both[16];
  std::memcpy(both, &hash, 8);
  std::memcpy(both + 8, &complement, 8);
  // Agreed at once: a rank whose reduction failed knows nothing of the others' items.
  TAPIO_RETURN_IF_ERROR(comm::agree(comm, built, comm.allreduce_max(both, 16)));
  if (std::memcmp(both, &hash, 8) == 0 && std::memcmp(both + 8, &complement, 8) == 0)
    return ok_status();
  return name_the_difference(comm, items.list(), code, what);
}

}  // namespace tapio::api
