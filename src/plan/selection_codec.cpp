#include "plan/selection_codec.h"

#include <cstring>

namespace tapio::plan {
namespace {

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  out.insert(out.end(), b, b + 8);
}

struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool get(uint64_t* v) {
    if (end - p < 8) return false;
    *v = 0;
    for (int i = 0; i < 8; ++i) *v |= static_cast<uint64_t>(p[i]) << (8 * i);
    p += 8;
    return true;
  }
  bool get_vector(std::vector<uint64_t>& v, uint64_t n) {
    if (n > static_cast<uint64_t>(end - p) / 8) return false;
    v.resize(n);
    for (auto& x : v) get(&x);
    return true;
  }
};

}  // namespace

void encode_requests(const std::vector<Request>& requests, std::vector<uint8_t>& out) {
  put_u64(out, requests.size());
  for (const Request& r : requests) {
    put_u64(out, r.var);
    put_u64(out, r.step_start);
    put_u64(out, r.step_count);
    const bool box = r.sel.kind == Selection::Kind::kBox;
    put_u64(out, box ? 0 : 1);
    if (box) {
      put_u64(out, r.sel.start.size());
      for (uint64_t v : r.sel.start) put_u64(out, v);
      for (uint64_t v : r.sel.count) put_u64(out, v);
    } else {
      put_u64(out, r.sel.runs.size());
      for (const Run& run : r.sel.runs) {
        put_u64(out, run.offset);
        put_u64(out, run.length);
      }
    }
  }
}

Result<std::vector<Request>> decode_requests(const uint8_t* data, size_t size) {
  Reader in{data, data + size};
  const Status bad = error(TAPIO_ERR_FORMAT, "malformed request list ({} bytes)", size);
  uint64_t n;
  if (!in.get(&n) || n > size / 32) return bad;
  std::vector<Request> out(n);
  for (Request& r : out) {
    uint64_t var, kind, len;
    if (!in.get(&var) || !in.get(&r.step_start) || !in.get(&r.step_count) || !in.get(&kind) ||
        !in.get(&len) || var > UINT32_MAX || kind > 1)
      return bad;
    r.var = static_cast<uint32_t>(var);
    if (kind == 0) {
      r.sel.kind = Selection::Kind::kBox;
      if (!in.get_vector(r.sel.start, len) || !in.get_vector(r.sel.count, len)) return bad;
    } else {
      r.sel.kind = Selection::Kind::kRuns;
      std::vector<uint64_t> flat;
      if (len > SIZE_MAX / 2 || !in.get_vector(flat, 2 * len)) return bad;
      r.sel.runs.resize(len);
      for (uint64_t i = 0; i < len; ++i) r.sel.runs[i] = Run{flat[2 * i], flat[2 * i + 1]};
    }
  }
  if (in.p != in.end) return bad;
  return out;
}

}  // namespace tapio::plan
