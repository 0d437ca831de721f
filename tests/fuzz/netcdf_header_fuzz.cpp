// The NetCDF classic header reader (CDF-1, CDF-2, CDF-5) on hostile bytes: the input is a
// whole file. Checks, besides the sanitizers: decoding never allocates more than a constant
// times the input; a prefix too short asks for more bytes, never for more than the file has;
// a decoded header re-encodes to bytes that decode again to the same encoding (readers other
// than rank 0 decode rank 0's re-encoding and rely on that); the definitions it maps to are
// usable (io_from_header) and every variable's offsets computable; and no variable's data
// overlaps another's or the record section (check_extents' promise, checked pairwise here).
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "alloc_bound.h"
#include "format/netcdf/header.h"
#include "format/netcdf/schema.h"

using namespace tapio;

namespace {

struct Span {
  uint64_t begin, end;
  bool record;
};

// Pairwise, independently of check_extents' sorting: fixed data disjoint and before every
// record variable; record slabs disjoint and inside one record (the first 512 variables); the
// records numrecs counts end below 2^63.
void check_no_overlap(const netcdf::Header& h) {
  std::vector<Span> spans;
  uint64_t records_begin = UINT64_MAX;
  for (size_t i = 0; i < h.vars.size() && i < 512; ++i) {
    const netcdf::Var& v = h.vars[i];
    const uint64_t bytes = h.elements(v) * netcdf::nc_type_size(v.type);
    spans.push_back(Span{v.begin, v.begin + bytes, h.is_record(v)});
    if (h.is_record(v)) records_begin = std::min(records_begin, v.begin);
  }
  const bool streaming = h.numrecs == (h.version == 5 ? UINT64_MAX : UINT32_MAX);
  uint64_t end = 0;
  if (!streaming && records_begin != UINT64_MAX &&
      (__builtin_mul_overflow(h.numrecs, h.record_size(), &end) ||
       __builtin_add_overflow(end, records_begin, &end) || end > INT64_MAX))
    std::abort();
  for (size_t i = 0; i < spans.size(); ++i) {
    const Span& a = spans[i];
    if (!a.record && a.end > records_begin) std::abort();
    if (a.record && a.end - records_begin > h.record_size()) std::abort();
    for (size_t j = i + 1; j < spans.size(); ++j) {
      const Span& b = spans[j];
      if (a.record == b.record && a.begin < b.end && b.begin < a.end) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::AllocationBound bound;
  size_t need_more = 0;
  if (size > 8) {
    // The engine reads a prefix first and retries with need_more bytes.
    const size_t prefix = size / 2;
    auto partial = netcdf::decode(data, prefix, size, &need_more);
    if (!partial.ok() && need_more != 0 && (need_more <= prefix || need_more > size)) std::abort();
  }
  auto header = netcdf::decode(data, size, size, &need_more);
  // Each dimension, attribute or variable the header holds takes at least 8 bytes of it, and
  // becomes a struct of at most ~100 bytes plus its name and values.
  bound.check(size, 64, 1 << 20, "netcdf::decode");
  if (!header.ok()) return 0;
  if (need_more != 0) std::abort();
  const std::vector<uint8_t> encoded = netcdf::encode(*header);
  auto again = netcdf::decode(encoded.data(), encoded.size(), UINT64_MAX, nullptr);
  if (!again.ok() || netcdf::encode(*again) != encoded) std::abort();
  for (const netcdf::Var& v : header->vars) {
    (void)header->data_offset(v, header->numrecs);
    (void)header->elements(v);
  }
  check_no_overlap(*header);
  (void)netcdf::io_from_header(*header, "fuzz");
  return 0;
}
