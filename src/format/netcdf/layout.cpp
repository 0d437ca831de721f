// Where each variable's data goes.
//   data     = non_recs recs
//   non_recs = [vardata ...]   // fixed variables, contiguous, in header order
//   recs     = [record ...]    // record = [varslab ...], one slab per record variable
#include "format/netcdf/layout.h"

#include <algorithm>

#include "format/netcdf/arith.h"
#include "format/netcdf/validate.h"

namespace tapio::netcdf {
namespace {

using detail::add_overflows;
using detail::round_up_overflows;

struct Placement {
  uint64_t vsize = 0;
  uint64_t begin = 0;
};

// The version's limits ("The 64-bit Offset Format": each fixed var and each record's worth
// of a record var stays under 4 GiB in CDF-2; begin is a 32-bit INT in CDF-1).
struct Limits {
  uint64_t max_vsize;
  uint64_t max_offset;
};

Limits limits_of(int version) {
  if (version == 1) return {uint64_t{INT32_MAX} - 3, INT32_MAX};
  if (version == 2) return {uint64_t{UINT32_MAX} - 3, INT64_MAX};
  return {INT64_MAX, INT64_MAX};
}

Status check_options(const LayoutOptions& o) {
  if (o.data_align < 4 || !detail::is_power_of_two(o.data_align)) {
    return error(TAPIO_ERR_ARG, "data_align {} must be a power of two >= 4", o.data_align);
  }
  return ok_status();
}

Status too_large(const Var& v, const char* what, uint64_t value, int version, uint64_t limit) {
  return error(TAPIO_ERR_UNSUPPORTED, "variable '{}': {} {} exceeds the CDF-{} limit {}{}",
               v.name, what, value, version, limit,
               version == 5 ? "" : " (use a later format version)");
}

Status check_vsize(const Var& v, uint64_t vsize, int version) {
  const Limits lim = limits_of(version);
  if (vsize <= lim.max_vsize) return ok_status();
  return too_large(v, "vsize", vsize, version, lim.max_vsize);
}

// Round `pos` up to the alignment, check it can be stored as the begin of v, and return in
// *next the offset just after v's slab.
Status place(const Var& v, int version, uint64_t align, uint64_t pos, Placement* p,
             uint64_t* next) {
  const Limits lim = limits_of(version);
  if (round_up_overflows(pos, align, &p->begin) || p->begin > lim.max_offset) {
    return too_large(v, "begin", pos, version, lim.max_offset);
  }
  if (add_overflows(p->begin, p->vsize, next)) {
    return too_large(v, "end", UINT64_MAX, version, lim.max_offset);
  }
  return ok_status();
}

Result<uint64_t> data_start(const Header& h, const LayoutOptions& o) {
  uint64_t start = 0;
  if (add_overflows(encoded_size(h), o.header_pad, &start) ||
      round_up_overflows(start, o.data_align, &start)) {
    return error(TAPIO_ERR_ARG, "header_pad {} is too large", o.header_pad);
  }
  return start;
}

// Fixed variables, in definition order, each aligned. Returns the end of the last one.
Result<uint64_t> place_fixed(const Header& h, const LayoutOptions& o, uint64_t pos,
                             std::vector<Placement>& out) {
  for (size_t i = 0; i < h.vars.size(); ++i) {
    if (h.is_record(h.vars[i])) continue;
    TAPIO_RETURN_IF_ERROR(place(h.vars[i], h.version, o.data_align, pos, &out[i], &pos));
  }
  return pos;
}

// Record variables, packed one after the other inside a record; the section is aligned.
Status place_records(const Header& h, const LayoutOptions& o, uint64_t pos,
                     std::vector<Placement>& out) {
  uint64_t align = o.data_align;  // only the first record var is aligned
  for (size_t i = 0; i < h.vars.size(); ++i) {
    if (!h.is_record(h.vars[i])) continue;
    TAPIO_RETURN_IF_ERROR(place(h.vars[i], h.version, align, pos, &out[i], &pos));
    align = 1;
  }
  return ok_status();
}

Result<std::vector<Placement>> plan(const Header& h, const LayoutOptions& o) {
  std::vector<Placement> out(h.vars.size());
  for (size_t i = 0; i < h.vars.size(); ++i) {
    TAPIO_ASSIGN_OR_RETURN(out[i].vsize, compute_vsize(h, h.vars[i]));
    TAPIO_RETURN_IF_ERROR(check_vsize(h.vars[i], out[i].vsize, h.version));
  }
  TAPIO_ASSIGN_OR_RETURN(uint64_t pos, data_start(h, o));
  TAPIO_ASSIGN_OR_RETURN(pos, place_fixed(h, o, pos, out));
  TAPIO_RETURN_IF_ERROR(place_records(h, o, pos, out));
  return out;
}

}  // namespace

Status compute_layout(Header& h, const LayoutOptions& options) {
  TAPIO_RETURN_IF_ERROR(check_options(options));
  Status valid = detail::validate_definitions(h);
  if (!valid.ok()) return Status(TAPIO_ERR_ARG, valid.message());
  // encoded_size() does not depend on vsize or begin (fixed-width fields), so the data start
  // can be computed before they are set.
  TAPIO_ASSIGN_OR_RETURN(std::vector<Placement> placed, plan(h, options));
  for (size_t i = 0; i < h.vars.size(); ++i) {
    h.vars[i].vsize = placed[i].vsize;
    h.vars[i].begin = placed[i].begin;
  }
  return ok_status();
}

uint64_t header_extent(const Header& h, const LayoutOptions& options) {
  if (!h.vars.empty()) {
    uint64_t first = UINT64_MAX;
    for (const Var& v : h.vars) first = std::min(first, v.begin);
    return first;
  }
  const uint64_t align = check_options(options).ok() ? options.data_align : 4;
  uint64_t extent = 0;
  if (add_overflows(encoded_size(h), options.header_pad, &extent) ||
      round_up_overflows(extent, align, &extent)) {
    return UINT64_MAX;
  }
  return extent;
}

uint64_t header_extent(const Header& h) { return header_extent(h, LayoutOptions{}); }

DataPlace locate(const Header& h, uint64_t offset, uint64_t length) {
  for (size_t i = 0; i < h.vars.size(); ++i) {
    const Var& v = h.vars[i];
    if (offset < v.begin) continue;
    const uint64_t esize = nc_type_size(v.type);
    const uint64_t bytes = h.elements(v) * esize;  // without vsize's padding
    uint64_t at = offset - v.begin, record = 0;
    if (h.is_record(v)) {
      record = at / h.record_size();
      at %= h.record_size();
    }
    if (at >= bytes) continue;
    const uint64_t stop = std::min(bytes, at + std::min(length, bytes - at));
    return DataPlace{static_cast<int>(i), record, at / esize, (stop + esize - 1) / esize};
  }
  return DataPlace{};
}

}  // namespace tapio::netcdf
