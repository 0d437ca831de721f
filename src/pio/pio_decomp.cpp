// Decompositions: a task's map of global offsets, defined once and used by every variable and
// file written or read with it (tapio takes it as an offset selection, docs/pio.md).
#include <algorithm>

#include "pio/pio_comm.h"
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

// base: 1 for InitDecomp's 1-based map (0 = hole), 0 for init_decomp's (-1 = hole).
int make_decomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                const PIO_Offset* compmap, int base, int* ioidp, const char* call) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, std::string(call) + ": no iosystem " +
                                                 std::to_string(iosysid));
  const std::string what = std::string(call) + ": ";
  if (!ioidp || !gdimlen || ndims < 1 || maplen < 0 || (maplen > 0 && !compmap))
    return fail(ios, PIO_EINVAL, what + "bad argument (ndims >= 1, maplen >= 0, gdimlen, "
                "compmap and ioidp not NULL)");
  if (!valid_type(pio_type))
    return fail(ios, PIO_EBADTYPE, what + "type " + std::to_string(pio_type) +
                " is not a classic netCDF type");
  auto d = std::make_unique<Decomp>();
  d->iosysid = iosysid;
  d->type = pio_type;
  d->maplen = maplen;
  uint64_t global = 1;
  for (int i = 0; i < ndims; ++i) {
    if (gdimlen[i] < 1)
      return fail(ios, PIO_EINVAL, what + "dimension " + std::to_string(i) + " has length " +
                  std::to_string(gdimlen[i]));
    d->gdims.push_back(gdimlen[i]);
    global *= static_cast<uint64_t>(gdimlen[i]);
  }
  // An entry beyond the global size wraps around it, as PIO 2.7 places it (its own
  // test_darray maps offset 16 of a 16-element array, and reads it back from offset 0).
  auto offsets = std::make_shared<std::vector<uint64_t>>();
  offsets->reserve(maplen);
  for (int i = 0; i < maplen; ++i) {
    const int64_t offset = compmap[i] - base;
    if (offset >= 0) {
      offsets->push_back(static_cast<uint64_t>(offset) % global);
      d->held_at.push_back(i);
    }
  }
  if (offsets->size() == static_cast<size_t>(maplen)) d->held_at.clear();  // no holes
  std::vector<uint64_t> sorted(*offsets);
  std::sort(sorted.begin(), sorted.end());
  d->duplicates = std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
  d->offsets = std::move(offsets);
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
  if (rearr && *rearr != PIO_REARR_BOX && *rearr != PIO_REARR_SUBSET)
    return fail(find_iosystem(iosysid), PIO_EINVAL,
                "PIOc_InitDecomp: unknown rearranger " + std::to_string(*rearr));
  return make_decomp(iosysid, pio_type, ndims, gdimlen, maplen, compmap, 1, ioidp,
                     "PIOc_InitDecomp");
}

int PIOc_init_decomp(int iosysid, int pio_type, int ndims, const int* gdimlen, int maplen,
                     const PIO_Offset* compmap, int* ioidp, int rearranger,
                     const PIO_Offset* /*iostart*/, const PIO_Offset* /*iocount*/) {
  if (rearranger && rearranger != PIO_REARR_BOX && rearranger != PIO_REARR_SUBSET)
    return fail(find_iosystem(iosysid), PIO_EINVAL,
                "PIOc_init_decomp: unknown rearranger " + std::to_string(rearranger));
  return make_decomp(iosysid, pio_type, ndims, gdimlen, maplen, compmap, 0, ioidp,
                     "PIOc_init_decomp");
}

// A block decomposition: this task holds the box start/count (0-based, C order).
int PIOc_InitDecomp_bc(int iosysid, int basetype, int ndims, const int* gdimlen,
                       const long int* start, const long int* count, int* ioidp) {
  if (ndims < 1 || !gdimlen || !start || !count)
    return fail(find_iosystem(iosysid), PIO_EINVAL, "PIOc_InitDecomp_bc: bad argument");
  int64_t n = 1;
  for (int d = 0; d < ndims; ++d) {
    if (start[d] < 0 || count[d] < 0 || start[d] + count[d] > gdimlen[d])
      return fail(find_iosystem(iosysid), PIO_EINVAL, "PIOc_InitDecomp_bc: the box leaves "
                  "dimension " + std::to_string(d));
    n *= count[d];
  }
  std::vector<PIO_Offset> map(n);
  for (int64_t i = 0; i < n; ++i) {  // element i of the box, C order, as a global offset
    int64_t rest = i, offset = 0, stride = 1;
    for (int d = ndims - 1; d >= 0; --d) {
      offset += (start[d] + rest % count[d]) * stride;
      rest /= count[d];
      stride *= gdimlen[d];
    }
    map[i] = offset;
  }
  return make_decomp(iosysid, basetype, ndims, gdimlen, static_cast<int>(n), map.data(), 0,
                     ioidp, "PIOc_InitDecomp_bc");
}

int PIOc_freedecomp(int iosysid, int ioid) {
  IoSystem* ios = find_iosystem(iosysid);
  if (!ios) return fail(nullptr, PIO_EBADID, "PIOc_freedecomp: no iosystem " +
                                                 std::to_string(iosysid));
  Decomp* d = find_decomp(ioid);
  if (!d || d->iosysid != iosysid)
    return fail(ios, PIO_EBADID, "PIOc_freedecomp: no decomposition " + std::to_string(ioid));
  remove_decomp(ioid);
  return PIO_NOERR;
}

int PIOc_get_local_array_size(int ioid) {
  Decomp* d = find_decomp(ioid);
  return d ? static_cast<int>(d->maplen) : 0;
}

}  // extern "C"
