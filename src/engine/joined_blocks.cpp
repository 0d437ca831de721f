#include "engine/joined_blocks.h"

#include <algorithm>

namespace tapio {

Status check_joined_block(const VariableDef& v, const plan::Selection& sel, bool placed) {
  if (sel.kind != plan::Selection::Kind::kBox || sel.count.size() != v.shape.size())
    return error(TAPIO_ERR_SHAPE,
                 "joined variable '{}' takes a count along '{}' (tapio_var_set_joined_count), "
                 "not {}",
                 v.name, v.dim_names[0], plan::describe(sel));
  if (!placed && sel.start[0] != 0)
    return error(TAPIO_ERR_SHAPE, "joined variable '{}': tapio places the blocks along '{}'; "
                 "a writer gives none", v.name, v.dim_names[0]);
  if (sel.count[0] > INT64_MAX || sel.start[0] > INT64_MAX - sel.count[0])
    return error(TAPIO_ERR_SHAPE, "joined variable '{}': {} along '{}' is out of range", v.name,
                 plan::describe(sel), v.dim_names[0]);
  for (size_t d = 1; d < v.shape.size(); ++d)
    if (sel.start[d] != 0 || sel.count[d] != v.shape[d])
      return error(TAPIO_ERR_SHAPE,
                   "joined variable '{}': dimension {} ('{}') has length {}, and a block spans "
                   "all of it (start 0, count {}), not start {} count {}",
                   v.name, d, v.dim_names[d], v.shape[d], v.shape[d], sel.start[d],
                   sel.count[d]);
  return ok_status();
}

Result<uint64_t> joined_length(std::vector<plan::Selection> blocks) {
  std::sort(blocks.begin(), blocks.end(), [](const plan::Selection& a, const plan::Selection& b) {
    return a.start[0] < b.start[0];
  });
  uint64_t end = 0;
  for (const plan::Selection& b : blocks) {
    if (b.count[0] == 0) continue;
    if (b.start[0] != end)
      return error(TAPIO_ERR_FORMAT, "joined blocks leave a {} at element {} (next block at {})",
                   b.start[0] > end ? "gap" : "overlap", end, b.start[0]);
    end += b.count[0];
  }
  return end;
}

}  // namespace tapio
