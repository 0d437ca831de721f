// Variables' data extents: no overlaps, and inside the file.
//   data     = non_recs recs
//   non_recs = [vardata ...]   // fixed variables, after the header
//   recs     = [record ...]    // record = [varslab ...], numrecs of record_size() bytes
#include "format/netcdf/extents.h"

#include <algorithm>
#include <vector>

#include "core/names.h"
#include "format/netcdf/arith.h"

namespace tapio::netcdf {
namespace {

using detail::add_overflows;
using detail::mul_overflows;

constexpr uint64_t kMaxOffset = INT64_MAX;  // a file offset is a signed 64-bit off_t

struct Extent {
  uint64_t begin = 0, end = 0;  // [begin, end): the first record's slab for a record variable
  const Var* var = nullptr;
};

std::string name_of(const Extent& x) { return printable_name(x.var->name); }

// The elements' bytes: validate() checked that their padded size (vsize) fits 64 bits.
uint64_t data_bytes(const Header& h, const Var& v) { return h.elements(v) * nc_type_size(v.type); }

Result<std::vector<Extent>> extents(const Header& h, bool record) {
  std::vector<Extent> out;
  for (const Var& v : h.vars) {
    if (h.is_record(v) != record) continue;
    Extent x{v.begin, 0, &v};
    if (add_overflows(v.begin, data_bytes(h, v), &x.end) || x.end > kMaxOffset)
      return error(TAPIO_ERR_FORMAT, "variable '{}' begins at byte {} and ends past byte {}",
                   printable_name(v.name), v.begin, kMaxOffset);
    out.push_back(x);
  }
  std::sort(out.begin(), out.end(), [](const Extent& a, const Extent& b) {
    return a.begin < b.begin;
  });
  return out;
}

// Sorted extents, none before `from` (the end of the header) and none inside another.
Status check_disjoint(const std::vector<Extent>& xs, uint64_t from) {
  for (size_t i = 0; i < xs.size(); ++i) {
    if (i == 0 && xs[0].begin < from)
      return error(TAPIO_ERR_FORMAT, "variable '{}' begins at byte {}, inside the header (which "
                   "ends at byte {})", name_of(xs[0]), xs[0].begin, from);
    if (i > 0 && xs[i].begin < xs[i - 1].end)
      return error(TAPIO_ERR_FORMAT, "variable '{}' begins at byte {}, inside the data of "
                   "variable '{}' (bytes {} to {})", name_of(xs[i]), xs[i].begin,
                   name_of(xs[i - 1]), xs[i - 1].begin, xs[i - 1].end);
  }
  return ok_status();
}

// Record slabs (sorted, the first at the section's start) inside one record.
Status check_record(const Header& h, const std::vector<Extent>& recs) {
  const uint64_t size = h.record_size(), start = recs.front().begin;
  for (const Extent& x : recs) {
    if (x.end - start > size)
      return error(TAPIO_ERR_FORMAT, "record variable '{}' (bytes {} to {} of the record section "
                   "starting at byte {}) does not fit in a record of {} bytes", name_of(x),
                   x.begin - start, x.end - start, start, size);
  }
  const bool streaming = h.numrecs == (h.version == 5 ? UINT64_MAX : UINT32_MAX);
  uint64_t end = 0;
  if (!streaming && (mul_overflows(h.numrecs, size, &end) || add_overflows(end, start, &end) ||
                     end > kMaxOffset))
    return error(TAPIO_ERR_FORMAT, "{} records of {} bytes from byte {} end past byte {}",
                 h.numrecs, size, start, kMaxOffset);
  return ok_status();
}

}  // namespace

Status check_extents(const Header& h, uint64_t header_end) {
  TAPIO_ASSIGN_OR_RETURN(const std::vector<Extent> fixed, extents(h, false));
  TAPIO_ASSIGN_OR_RETURN(const std::vector<Extent> recs, extents(h, true));
  TAPIO_RETURN_IF_ERROR(check_disjoint(fixed, header_end));
  if (recs.empty()) return ok_status();
  const uint64_t fixed_end = fixed.empty() ? header_end : fixed.back().end;
  if (!fixed.empty() && recs.front().begin < fixed_end)
    return error(TAPIO_ERR_FORMAT, "the record section begins at byte {} (variable '{}'), "
                 "inside or before the data of fixed variable '{}' (bytes {} to {})",
                 recs.front().begin, name_of(recs.front()), name_of(fixed.back()),
                 fixed.back().begin, fixed.back().end);
  TAPIO_RETURN_IF_ERROR(check_disjoint(recs, header_end));
  return check_record(h, recs);
}

Status check_fits(const Header& h, uint64_t records, uint64_t file_size) {
  for (const Var& v : h.vars) {
    const bool record = h.is_record(v);
    if (record && records == 0) continue;  // no bytes: its begin may lie past the end
    const uint64_t end = h.data_offset(v, record ? records - 1 : 0) + data_bytes(h, v);
    if (end > file_size)
      return error(TAPIO_ERR_FORMAT, "the file is truncated: variable '{}' ends at byte {}{}, "
                   "the file has {} bytes", printable_name(v.name), end,
                   record ? fmt::format(" (record {})", records - 1) : "", file_size);
  }
  return ok_status();
}

}  // namespace tapio::netcdf
