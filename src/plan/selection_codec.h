// Compact byte encoding of selections, for sending a rank's requests to another rank.
// Little-endian fixed-width fields; a box costs 16 bytes per dimension whatever its size.
#pragma once
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "plan/selection.h"

namespace tapio::plan {

// A selection of one variable, tagged with the variable's index in its IO and its step range.
struct Request {
  uint32_t var = 0;
  uint64_t step_start = 0;  // first step (record) the request covers
  uint64_t step_count = 1;
  Selection sel;
};

void encode_requests(const std::vector<Request>& requests, std::vector<uint8_t>& out);
// Decodes what encode_requests wrote; TAPIO_ERR_FORMAT on malformed input.
Result<std::vector<Request>> decode_requests(const uint8_t* data, size_t size);

}  // namespace tapio::plan
