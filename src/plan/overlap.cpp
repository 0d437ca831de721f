#include "plan/overlap.h"

#include <algorithm>

namespace tapio::plan {

// 128-bit products: elements x owners overflows 64 bits for large variables at 10^5 ranks.
uint64_t domain_start(uint64_t elements, int owners, int d) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(elements) * d / owners);
}

int domain_of(uint64_t elements, int owners, uint64_t e) {
  // The largest d with domain_start(d) <= e: d * elements < (e + 1) * owners.
  const unsigned __int128 limit = static_cast<unsigned __int128>(e + 1) * owners;
  return static_cast<int>((limit + elements - 1) / elements - 1);
}

Layout element_domains(uint64_t elements, int owners) {
  Layout l;
  for (int d = 0; d < owners; ++d) {
    const uint64_t lo = domain_start(elements, owners, d);
    l.domains.push_back(Extent{lo, domain_start(elements, owners, d + 1) - lo});
    l.round_bytes = std::max(l.round_bytes, l.domains.back().length);
  }
  l.round_bytes = std::max<uint64_t>(l.round_bytes, 1);
  l.rounds = 1;
  return l;
}

}  // namespace tapio::plan
