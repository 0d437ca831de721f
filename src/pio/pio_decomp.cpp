// Decompositions: a task's map of global offsets, defined once and used by every variable and
// file written or read with it (tapio takes it as an offset selection, docs/pio.md).
#include <algorithm>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// "4 x 4" for messages.
std::string shape_text(int ndims, const int* gdimlen) {
  std::string text;
  for (int i = 0; i < ndims; ++i) text += (i ? " x " : "") + std::to_string(gdimlen[i]);
  return text;
}

// Collective. `landing`: where this task's entries beyond the global size wrap to. PIO 2.7
// places such an entry at its offset modulo the size (its own test_darray maps offset 16 of a
// 16-element array, read back from offset 0), and so does tapio; but where that element is
// mapped by another entry too, PIO lets the tasks race for it (or drops the entry), and tapio
// refuses the decomposition. The same answer on every task: "" or why.
std::string wrapped_onto_mapped(const IoSystem& ios, const std::vector<uint64_t>& offsets,
                                std::vector<int64_t> landing) {
  if (comm::max_all(ios.comm, static_cast<int64_t>(landing.size())) <= 0) return "";
  std::vector<int64_t> all;
  if (!comm::all_gather(ios.comm, landing, &all)) return "MPI failed gathering wrapped entries";
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<int64_t> mapped(all.size(), 0);  // entries of every task on each landing element
  for (uint64_t o : offsets) {
    const auto at = std::lower_bound(all.begin(), all.end(), static_cast<int64_t>(o));
    if (at != all.end() && *at == static_cast<int64_t>(o)) ++mapped[at - all.begin()];
  }
  if (!comm::sum_all(ios.comm, &mapped)) return "MPI failed counting wrapped entries";
  for (size_t i = 0; i < all.size(); ++i)
    if (mapped[i] > 1)
      return "a map entry beyond the global size wraps around it onto element " +
             std::to_string(all[i]) + " (0-based), which " + std::to_string(mapped[i]) +
             " entries then map (PIO lets the tasks race for it)";
  return "";
}

// Collective. The elements no task maps, when the maps leave any (PIO's test: fewer entries
// in all than elements), in this task's share: the slice [rank * s, (rank + 1) * s) of the
// global array, s = ceil(global / tasks). "" or why it failed.
std::string find_holes(const IoSystem& ios, const std::vector<uint64_t>& offsets,
                       uint64_t global, std::vector<uint64_t>* holes) {
  std::vector<int64_t> entries{static_cast<int64_t>(offsets.size())};
  if (!comm::sum_all(ios.comm, &entries)) return "MPI failed counting the map entries";
  if (static_cast<uint64_t>(entries[0]) >= global) return "";
  const uint64_t share = (global + ios.size - 1) / ios.size;
  std::vector<std::vector<int64_t>> to(ios.size);
  for (uint64_t o : offsets) to[o / share].push_back(static_cast<int64_t>(o));
  std::vector<int64_t> mine;
  if (!comm::exchange(ios.comm, to, &mine)) return "MPI failed sending the map entries";
  const uint64_t first = std::min(global, static_cast<uint64_t>(ios.rank) * share);
  const uint64_t last = std::min(global, first + share);
  std::vector<bool> mapped(last - first, false);
  for (int64_t o : mine) mapped[static_cast<uint64_t>(o) - first] = true;
  for (uint64_t i = 0; i < mapped.size(); ++i)
    if (!mapped[i]) holes->push_back(first + i);
  return "";
}

// Collective (every task takes part, whatever its arguments: the worst error is every
// task's). base: 1 for InitDecomp's 1-based map (0 = hole), 0 for init_decomp's (-1 = hole).
// refused: why the caller's own checks failed, or "".
int make_decomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                const PIO_Offset* compmap, int base, std::string refused, int* ioidp,
                const char* call) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, std::string(call) + ": no iosystem " +
                                                 std::to_string(iosysid));
  int code = refused.empty() ? PIO_NOERR : PIO_EINVAL;
  if (!code && (!ioidp || !gdimlen || ndims < 1 || maplen < 0 || (maplen > 0 && !compmap))) {
    code = PIO_EINVAL;
    refused = "bad argument (ndims >= 1, maplen >= 0, gdimlen, compmap and ioidp not NULL)";
  }
  if (!code && !valid_type(pio_type)) {
    code = PIO_EBADTYPE;
    refused = "type " + std::to_string(pio_type) + " is not a classic netCDF type";
  }
  for (int i = 0; !code && i < ndims; ++i)
    if (gdimlen[i] < 1) {
      code = PIO_EINVAL;
      refused = "dimension " + std::to_string(i) + " has length " + std::to_string(gdimlen[i]);
    }
  const std::string what = std::string(call) + ": ";
  if (int st = agree(*ios, code, what + refused)) return st;
  auto d = std::make_unique<Decomp>();
  d->iosysid = iosysid;
  d->type = pio_type;
  d->maplen = maplen;
  d->gdims.assign(gdimlen, gdimlen + ndims);
  uint64_t global = 1;
  for (int i = 0; i < ndims; ++i) global *= static_cast<uint64_t>(gdimlen[i]);
  auto offsets = std::make_shared<std::vector<uint64_t>>();
  std::vector<int64_t> landing;  // of the entries beyond the global size
  offsets->reserve(maplen);
  for (int i = 0; i < maplen; ++i) {
    const int64_t offset = compmap[i] - base;
    if (offset < 0) continue;
    offsets->push_back(static_cast<uint64_t>(offset) % global);
    d->held_at.push_back(i);
    if (static_cast<uint64_t>(offset) >= global) landing.push_back(offsets->back());
  }
  const std::string why = wrapped_onto_mapped(*ios, *offsets, std::move(landing));
  if (!why.empty())
    return fail(ios, PIO_EINVAL, what + "decomposition of " + shape_text(ndims, gdimlen) +
                ": " + why);
  auto holes = std::make_shared<std::vector<uint64_t>>();
  const std::string failed = find_holes(*ios, *offsets, global, holes.get());
  if (!failed.empty()) return fail(ios, PIO_EIO, what + failed);
  d->holes = std::move(holes);
  if (offsets->size() == static_cast<size_t>(maplen)) d->held_at.clear();  // no holes
  std::vector<uint64_t> sorted(*offsets);
  std::sort(sorted.begin(), sorted.end());
  d->duplicates = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  d->offsets = std::move(offsets);
  remember_map(*ios, d->offsets);
  remember_map(*ios, d->holes);
  *ioidp = add_decomp(std::move(d)).id;
  return PIO_NOERR;
}

}  // namespace
}  // namespace tapio_pio

using namespace tapio_pio;

extern "C" {

int PIOc_InitDecomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                    const PIO_Offset* compmap, int* ioidp, const int* rearr,
                    const PIO_Offset* /*iostart*/, const PIO_Offset* /*iocount*/) {
  const bool known = !rearr || *rearr == PIO_REARR_BOX || *rearr == PIO_REARR_SUBSET;
  return make_decomp(iosysid, pio_type, ndims, gdimlen, maplen, compmap, 1,
                     known ? "" : "unknown rearranger " + std::to_string(*rearr), ioidp,
                     "PIOc_InitDecomp");
}

int PIOc_init_decomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                     const PIO_Offset* compmap, int* ioidp, int rearranger,
                     const PIO_Offset* /*iostart*/, const PIO_Offset* /*iocount*/) {
  const bool known = !rearranger || rearranger == PIO_REARR_BOX || rearranger == PIO_REARR_SUBSET;
  return make_decomp(iosysid, pio_type, ndims, gdimlen, maplen, compmap, 0,
                     known ? "" : "unknown rearranger " + std::to_string(rearranger), ioidp,
                     "PIOc_init_decomp");
}

// A block decomposition: this task holds the box start/count (0-based, C order).
int PIOc_InitDecomp_bc(int iosysid, int basetype, int ndims, const int* gdimlen,
                       const long int* start, const long int* count, int* ioidp) {
  std::string refused = ndims < 1 || !gdimlen || !start || !count ? "bad argument" : "";
  std::vector<uint64_t> shape, first, counts;
  for (int d = 0; refused.empty() && d < ndims; ++d) {
    if (start[d] < 0 || count[d] < 0 || start[d] + count[d] > gdimlen[d])
      refused = "the box leaves dimension " + std::to_string(d);
    shape.push_back(static_cast<uint64_t>(gdimlen[d]));
    first.push_back(static_cast<uint64_t>(start[d]));
    counts.push_back(static_cast<uint64_t>(count[d]));
  }
  std::vector<PIO_Offset> map;
  if (refused.empty())
    for (uint64_t o : box_offsets(shape, first.data(), counts.data(), nullptr)) map.push_back(o);
  return make_decomp(iosysid, basetype, ndims, gdimlen, static_cast<int>(map.size()),
                     map.data(), 0, refused, ioidp, "PIOc_InitDecomp_bc");
}

int PIOc_freedecomp(int iosysid, int ioid) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_freedecomp: no iosystem " +
                                                 std::to_string(iosysid));
  Decomp* d = find_decomp(ioid);
  if (!d || d->iosysid != iosysid)
    return fail(ios, PIO_EBADID, "PIOc_freedecomp: no decomposition " + std::to_string(ioid));
  forget_map(*ios, d->offsets.get());
  forget_map(*ios, d->holes.get());
  remove_decomp(ioid);
  return PIO_NOERR;
}

int PIOc_get_local_array_size(int ioid) {
  Decomp* d = find_decomp(ioid);
  return d ? static_cast<int>(d->maplen) : 0;
}

}  // extern "C"
