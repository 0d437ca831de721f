#include "plan/intersect.h"

#include <algorithm>

namespace tapio::plan {
namespace {

struct MemRun {
  uint64_t offset, length, mem;
};

std::vector<MemRun> sorted_runs(const Selection& s, const std::vector<uint64_t>& shape) {
  std::vector<MemRun> out;
  for_each_run(s, shape, [&](const Run& r, uint64_t mem) {
    if (r.length > 0) out.push_back(MemRun{r.offset, r.length, mem});
  });
  if (s.kind == Selection::Kind::kRuns)
    std::sort(out.begin(), out.end(),
              [](const MemRun& x, const MemRun& y) { return x.offset < y.offset; });
  return out;
}

std::vector<Overlap> merge(const std::vector<MemRun>& a, const std::vector<MemRun>& b) {
  std::vector<Overlap> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t lo = std::max(a[i].offset, b[j].offset);
    const uint64_t hi = std::min(a[i].offset + a[i].length, b[j].offset + b[j].length);
    if (lo < hi) out.push_back(Overlap{a[i].mem + (lo - a[i].offset), b[j].mem + (lo - b[j].offset), hi - lo});
    if (a[i].offset + a[i].length < b[j].offset + b[j].length) ++i; else ++j;
  }
  return out;
}

// The C-order position of global element `g` within box (start, count) of `shape`.
uint64_t box_position(uint64_t g, const Selection& box, const std::vector<uint64_t>& shape) {
  uint64_t pos = 0;
  std::vector<uint64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = g % shape[d];
    g /= shape[d];
  }
  for (size_t d = 0; d < shape.size(); ++d) pos = pos * box.count[d] + (idx[d] - box.start[d]);
  return pos;
}

std::vector<Overlap> intersect_boxes(const Selection& a, const Selection& b,
                                     const std::vector<uint64_t>& shape) {
  std::vector<uint64_t> start(shape.size()), count(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    const uint64_t lo = std::max(a.start[d], b.start[d]);
    const uint64_t hi = std::min(a.start[d] + a.count[d], b.start[d] + b.count[d]);
    if (hi <= lo) return {};
    start[d] = lo;
    count[d] = hi - lo;
  }
  std::vector<Overlap> out;
  for_each_run(Selection::box(start, count), shape, [&](const Run& r, uint64_t) {
    out.push_back(Overlap{box_position(r.offset, a, shape), box_position(r.offset, b, shape),
                          r.length});
  });
  return out;
}

}  // namespace

std::vector<Overlap> intersect(const Selection& a, const Selection& b,
                               const std::vector<uint64_t>& shape) {
  if (a.kind == Selection::Kind::kBox && b.kind == Selection::Kind::kBox)
    return intersect_boxes(a, b, shape);
  return merge(sorted_runs(a, shape), sorted_runs(b, shape));
}

void first_dim_bounds(const Selection& s, const std::vector<uint64_t>& shape, uint64_t* lo,
                      uint64_t* hi) {
  if (shape.empty()) {
    *lo = 0;
    *hi = 1;
    return;
  }
  if (s.kind == Selection::Kind::kBox) {
    *lo = s.start[0];
    *hi = s.start[0] + s.count[0];
    return;
  }
  uint64_t inner = 1;
  for (size_t d = 1; d < shape.size(); ++d) inner *= shape[d];
  *lo = UINT64_MAX;
  *hi = 0;
  for (const Run& r : s.runs) {
    if (r.length == 0) continue;
    *lo = std::min(*lo, r.offset / inner);
    *hi = std::max(*hi, (r.offset + r.length - 1) / inner + 1);
  }
  if (*hi == 0) *lo = 0;
}

void IntervalIndex::add(uint64_t lo, uint64_t hi, uint32_t id) { items_.push_back(Item{lo, hi, id}); }

void IntervalIndex::build() {
  std::sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.lo < b.lo; });
  max_hi_.resize(items_.size());
  uint64_t m = 0;
  for (size_t i = 0; i < items_.size(); ++i) max_hi_[i] = m = std::max(m, items_[i].hi);
}

}  // namespace tapio::plan
