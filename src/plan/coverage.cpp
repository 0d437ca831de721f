#include "plan/coverage.h"

#include <algorithm>

namespace tapio::plan {

Status overlap_error(const OwnedRun& first, const OwnedRun& second) {
  return error(TAPIO_ERR_SHAPE,
               "blocks overlap: rank {} writes elements [{}, {}) and rank {} writes [{}, {})",
               first.rank, first.run.offset, first.run.offset + first.run.length, second.rank,
               second.run.offset, second.run.offset + second.run.length);
}

Result<uint64_t> covered_elements(std::vector<OwnedRun>& runs) {
  std::sort(runs.begin(), runs.end(), [](const OwnedRun& a, const OwnedRun& b) {
    return a.run.offset < b.run.offset;
  });
  uint64_t covered = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& r = runs[i].run;
    if (i > 0) {
      const OwnedRun& prev = runs[i - 1];
      if (prev.run.offset + prev.run.length > r.offset) return overlap_error(prev, runs[i]);
    }
    covered += r.length;
  }
  return covered;
}

}  // namespace tapio::plan
