#include "plan/selection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tapio::plan {

Selection Selection::box(std::vector<uint64_t> start, std::vector<uint64_t> count) {
  Selection s;
  s.kind = Kind::kBox;
  s.start = std::move(start);
  s.count = std::move(count);
  return s;
}

namespace {

// A selection is kept (by its variable handle, and shared with the plan cache) while the program
// keeps its map: it holds its runs, not the room the elements or unmerged runs it was made from
// took (PIO's maps: 10^5 offsets in 10^3 runs).
void fit(std::vector<Run>* runs) {
  if (runs->capacity() > runs->size() + runs->size() / 4) runs->shrink_to_fit();
}

}  // namespace

Selection Selection::offsets(const uint64_t* offsets, size_t n) {
  std::vector<Run> runs;
  for (size_t i = 0; i < n; ++i) {
    if (!runs.empty() && runs.back().offset + runs.back().length == offsets[i]) {
      ++runs.back().length;
    } else {
      runs.push_back(Run{offsets[i], 1});
    }
  }
  fit(&runs);
  Selection s;
  s.kind = Kind::kRuns;
  s.runs = std::move(runs);
  return s;
}

// Merged in place: the caller's list becomes the selection's (reallocated only when merging
// left much of it empty).
Selection Selection::from_runs(std::vector<Run> runs) {
  size_t n = 0;  // runs kept so far, in runs[0, n)
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run r = runs[i];
    if (r.length == 0) continue;
    if (n > 0 && runs[n - 1].offset + runs[n - 1].length == r.offset)
      runs[n - 1].length += r.length;
    else
      runs[n++] = r;
  }
  runs.resize(n);
  fit(&runs);
  Selection s;
  s.kind = Kind::kRuns;
  s.runs = std::move(runs);
  return s;
}

bool Selection::same_runs(const uint64_t* offsets, const uint64_t* lengths, size_t n) const {
  if (kind != Kind::kRuns) return false;
  size_t k = 0;  // runs matched so far
  Run cur;       // the run being merged, as from_runs merges it
  const auto matches = [&] { return cur.length == 0 || (k < runs.size() && runs[k++] == cur); };
  for (size_t i = 0; i < n; ++i) {
    const uint64_t length = lengths ? lengths[i] : 1;
    if (length == 0) continue;
    if (cur.length > 0 && cur.offset + cur.length == offsets[i]) {
      cur.length += length;
      continue;
    }
    if (!matches()) return false;
    cur = Run{offsets[i], length};
  }
  return matches() && k == runs.size();
}

uint64_t Selection::elements() const {
  uint64_t n = 0;
  if (kind == Kind::kRuns) {
    for (const Run& r : runs) n += r.length;
    return n;
  }
  n = 1;
  for (uint64_t c : count) n *= c;
  return n;
}

namespace detail {
BoxRows box_rows(const std::vector<uint64_t>& count, const std::vector<uint64_t>& shape) {
  BoxRows g;
  const size_t nd = shape.size();
  g.stride.assign(nd, 1);
  for (size_t d = nd; d-- > 1;) g.stride[d - 1] = g.stride[d] * shape[d];
  // Merge trailing dimensions while they are selected whole: the row then spans them.
  size_t d = nd;
  g.row_len = 1;
  while (d > 0) {
    g.row_len *= count[d - 1];
    --d;
    if (count[d] != shape[d]) break;
  }
  g.outer_dims = d;
  return g;
}
}  // namespace detail

Status validate(const Selection& sel, const std::vector<uint64_t>& shape,
                const std::vector<std::string>& dim_names) {
  if (sel.kind == Selection::Kind::kBox) {
    if (sel.start.size() != shape.size() || sel.count.size() != shape.size())
      return error(TAPIO_ERR_SHAPE, "selection has {} start and {} count entries for {} dimensions",
                   sel.start.size(), sel.count.size(), shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      if (sel.start[d] > shape[d] || sel.count[d] > shape[d] - sel.start[d])
        return error(TAPIO_ERR_SHAPE,
                     "selection start {} + count {} exceeds the length {} of dimension '{}'",
                     sel.start[d], sel.count[d], shape[d], dim_names.at(d));
    }
    return ok_status();
  }
  uint64_t total = 1;
  for (uint64_t n : shape) total *= n;
  for (size_t i = 0; i < sel.runs.size(); ++i) {
    const Run& r = sel.runs[i];
    if (r.offset > total || r.length > total - r.offset)
      return error(TAPIO_ERR_SHAPE,
                   "run {} (offset {}, length {}) lies outside the variable's {} elements", i,
                   r.offset, r.length, total);
  }
  return ok_status();
}

std::vector<Run> to_runs(const Selection& sel, const std::vector<uint64_t>& shape) {
  std::vector<Run> out;
  out.reserve(run_count(sel, shape));
  for_each_run(sel, shape, [&](const Run& r, uint64_t) {
    if (!out.empty() && out.back().offset + out.back().length == r.offset) {
      out.back().length += r.length;
    } else {
      out.push_back(r);
    }
  });
  return out;
}

uint64_t run_count(const Selection& sel, const std::vector<uint64_t>& shape) {
  if (sel.kind == Selection::Kind::kRuns) return sel.runs.size();
  if (sel.elements() == 0) return 0;
  const detail::BoxRows g = detail::box_rows(sel.count, shape);
  uint64_t rows = 1;
  for (size_t d = 0; d < g.outer_dims; ++d) rows *= sel.count[d];
  return rows;
}

std::string describe(const Selection& sel) {
  if (sel.kind == Selection::Kind::kBox)
    return fmt::format("start [{}] count [{}]", fmt::join(sel.start, ","),
                       fmt::join(sel.count, ","));
  return fmt::format("{} runs, {} elements", sel.runs.size(), sel.elements());
}

}  // namespace tapio::plan
