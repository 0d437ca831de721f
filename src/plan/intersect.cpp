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

// Appends o, or lengthens the last overlap when o continues it in both buffers: a box read
// as it was written is one overlap, not one per row.
void append(std::vector<Overlap>* out, const Overlap& o) {
  if (!out->empty()) {
    Overlap& last = out->back();
    if (last.a_mem + last.length == o.a_mem && last.b_mem + last.length == o.b_mem) {
      last.length += o.length;
      return;
    }
  }
  out->push_back(o);
}

std::vector<Overlap> merge(const std::vector<MemRun>& a, const std::vector<MemRun>& b) {
  std::vector<Overlap> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t lo = std::max(a[i].offset, b[j].offset);
    const uint64_t hi = std::min(a[i].offset + a[i].length, b[j].offset + b[j].length);
    if (lo < hi)
      append(&out, Overlap{a[i].mem + (lo - a[i].offset), b[j].mem + (lo - b[j].offset), hi - lo});
    if (a[i].offset + a[i].length < b[j].offset + b[j].length) ++i; else ++j;
  }
  return out;
}

// Elements of a box's C-order buffer between consecutive indices of each dimension.
std::vector<uint64_t> box_strides(const Selection& box) {
  std::vector<uint64_t> stride(box.count.size());
  uint64_t m = 1;
  for (size_t d = stride.size(); d-- > 0;) {
    stride[d] = m;
    m *= box.count[d];
  }
  return stride;
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
  const std::vector<uint64_t> sa = box_strides(a), sb = box_strides(b);
  std::vector<Overlap> out;
  for_each_run(Selection::box(start, count), shape, [&](const Run& r, uint64_t) {
    uint64_t g = r.offset, pa = 0, pb = 0;  // r's first element in a's and b's buffers
    for (size_t d = shape.size(); d-- > 0;) {
      const uint64_t i = g % shape[d];
      g /= shape[d];
      pa += (i - a.start[d]) * sa[d];
      pb += (i - b.start[d]) * sb[d];
    }
    append(&out, Overlap{pa, pb, r.length});
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
