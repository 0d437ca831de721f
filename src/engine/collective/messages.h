// The packed messages of the collective engine: one per (rank, aggregator, round).
//   message = count (u64), count × (file_offset u64, length u64), then the data (writes, replies)
// Little-endian host order: both ends run the same binary on the same machine family.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "plan/exchange.h"

namespace tapio::collective {

// The pieces' headers, then (if `data` is non-null) their bytes from data + piece.mem.
inline std::vector<uint8_t> pack(const std::vector<plan::Routed>& routed, size_t begin,
                                 size_t end, const uint8_t* data) {
  uint64_t bytes = 0;
  for (size_t i = begin; i < end; ++i) bytes += routed[i].piece.length;
  const uint64_t n = end - begin;
  std::vector<uint8_t> out(8 + 16 * n + (data ? bytes : 0));
  std::memcpy(out.data(), &n, 8);
  uint8_t* head = out.data() + 8;
  uint8_t* body = head + 16 * n;
  for (size_t i = begin; i < end; ++i) {
    const plan::Piece& p = routed[i].piece;
    std::memcpy(head, &p.file_offset, 8);
    std::memcpy(head + 8, &p.length, 8);
    head += 16;
    if (data) {
      std::memcpy(body, data + p.mem, p.length);
      body += p.length;
    }
  }
  return out;
}

struct Unpacked {
  std::vector<plan::Extent> extents;
  const uint8_t* data = nullptr;  // the bytes after the headers
  bool ok = false;
};

inline Unpacked unpack(const std::vector<uint8_t>& msg, bool with_data) {
  Unpacked u;
  uint64_t n = 0;
  if (msg.size() < 8) return u;
  std::memcpy(&n, msg.data(), 8);
  if (n > (msg.size() - 8) / 16) return u;
  u.extents.resize(n);
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < n; ++i) {
    std::memcpy(&u.extents[i].offset, msg.data() + 8 + 16 * i, 8);
    std::memcpy(&u.extents[i].length, msg.data() + 16 + 16 * i, 8);
    bytes += u.extents[i].length;
  }
  u.data = msg.data() + 8 + 16 * n;
  u.ok = !with_data || msg.size() == 8 + 16 * n + bytes;
  return u;
}

}  // namespace tapio::collective
