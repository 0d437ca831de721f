// What a block descriptor records about its data: min, max (in the element type) and one
// checksum per 1 MiB chunk.
#pragma once
#include <cstdint>

#include "format/subfile/records.h"

namespace tapio::subfile {

// Fill b.min, b.max and b.chunk_checksums from `n` elements of `type` at `data`.
void describe_data(DataType type, const void* data, uint64_t n, Block* b);

// Checksum of chunk `i` of a block of `length` bytes whose bytes are at `data`.
inline uint64_t chunk_checksum(const uint8_t* block_data, uint64_t length, uint64_t i) {
  const uint64_t start = i * kChecksumChunk;
  const uint64_t end = start + kChecksumChunk < length ? start + kChecksumChunk : length;
  return checksum(block_data + start, end - start);
}

}  // namespace tapio::subfile
