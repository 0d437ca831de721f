// Checking that ranks' selections of a variable do not overlap, without gathering them in one
// place: the variable's elements are split into `owners` equal domains, each rank sends each
// owner the parts of its runs in that owner's domain, and every owner checks its domain
// (plan/coverage.h). Pure: this is the routing.
#pragma once
#include <algorithm>
#include <cstdint>

#include "plan/exchange.h"
#include "plan/selection.h"

namespace tapio::plan {

// The first element of domain d (d = owners gives `elements`).
uint64_t domain_start(uint64_t elements, int owners, int d);
// The domains of a variable of `elements` elements as a layout of one round each, for
// route_segments (plan/segments.h), in elements rather than bytes.
Layout element_domains(uint64_t elements, int owners);
// The domain holding element e (< elements).
int domain_of(uint64_t elements, int owners, uint64_t e);

// Calls f(domain, part) for the parts of run r in each domain it crosses, in order.
template <typename F>
void route_run(const Run& r, uint64_t elements, int owners, F&& f) {
  uint64_t at = r.offset;
  const uint64_t end = r.offset + r.length;
  while (at < end) {
    const int d = domain_of(elements, owners, at);
    const uint64_t stop = std::min(end, domain_start(elements, owners, d + 1));
    f(d, Run{at, stop - at});
    at = stop;
  }
}

}  // namespace tapio::plan
