#pragma once

namespace tapio::plan {

namespace detail {
// The box iteration geometry: `rows` rows of `row_len` contiguous elements.
struct BoxRows {
  size_t outer_dims = 0;       // dimensions iterated row by row
  uint64_t row_len = 1;        // elements per contiguous row
  std::vector<uint64_t> stride;  // element stride of each dimension in the global array
};
BoxRows box_rows(const std::vector<uint64_t>& count, const std::vector<uint64_t>& shape);
}  // namespace detail

template <typename F>
void for_each_run(const Selection& sel, const std::vector<uint64_t>& shape, F&& f) {
  if (sel.kind == Selection::Kind::kRuns) {
    uint64_t mem = 0;
    for (const Run& r : sel.runs) {
      f(r, mem);
      mem += r.length;
    }
    return;
  }
  if (sel.elements() == 0) return;
  const detail::BoxRows g = detail::box_rows(sel.count, shape);
  const size_t k = g.outer_dims;
  std::vector<uint64_t> idx(k, 0);  // odometer over the outer dimensions
  uint64_t base = 0;
  for (size_t d = 0; d < sel.start.size(); ++d) base += sel.start[d] * g.stride[d];
  uint64_t mem = 0;
  while (true) {
    uint64_t off = base;
    for (size_t d = 0; d < k; ++d) off += idx[d] * g.stride[d];
    f(Run{off, g.row_len}, mem);
    mem += g.row_len;
    size_t d = k;
    while (d > 0) {
      --d;
      if (++idx[d] < sel.count[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (k == 0) return;
  }
}

}  // namespace tapio::plan
