// What a file holds, as the engine state machine answers it for any engine: a variable's
// stored blocks, its stored size, and the rows of each step of a joined variable (engine.h).
#include <algorithm>

#include "engine/engine.h"

namespace tapio {

Result<std::vector<plan::Selection>> Engine::blocks(int var, uint64_t step) {
  TAPIO_RETURN_IF_ERROR(check_index(var));
  const std::string ctx = on_rank(var);
  TAPIO_RETURN_IF_ERROR(
      require(open_.mode == OpenMode::kRead, "blocks", "the file is not open for reading", ctx));
  if (io().vars[var].record && step >= available_steps())
    return error(TAPIO_ERR_NOT_FOUND, "step {} requested but the file has {} steps", step,
                 available_steps())
        .with_context(ctx);
  Result<std::vector<plan::Selection>> stored = stored_blocks(var, step);
  if (!stored.ok()) return stored.status().with_context(ctx);
  if (io().vars[var].joined)  // in placement order: a batch's blocks by writer rank
    std::sort(stored->begin(), stored->end(),
              [](const plan::Selection& a, const plan::Selection& b) {
                return a.start[0] < b.start[0];
              });
  return stored;
}

Result<Engine::StoredSize> Engine::stored_size(int var) {
  TAPIO_RETURN_IF_ERROR(check_index(var));
  const std::string ctx = on_rank(var);
  TAPIO_RETURN_IF_ERROR(require(open_.mode == OpenMode::kRead, "stored_size",
                                "the file is not open for reading", ctx));
  Result<StoredSize> sums = sum_stored(var);
  if (!sums.ok()) return sums.status().with_context(ctx);
  return sums;
}

Result<Engine::StoredSize> Engine::sum_stored(int var) {
  const VariableDef& v = io().vars[var];
  uint64_t bytes = type_size(v.type);
  for (size_t d = v.joined ? 1 : 0; d < v.shape.size(); ++d) bytes *= v.shape[d];
  if (v.joined) {  // a row times the rows of every step
    uint64_t rows = 0;
    for (uint64_t s = 0; s < available_steps(); ++s) {
      TAPIO_ASSIGN_OR_RETURN(const uint64_t length, joined_length_at(var, s));
      rows += length;
    }
    bytes *= rows;
  } else if (v.record) {
    bytes *= available_steps();
  }
  return StoredSize{bytes, bytes};
}

Result<std::vector<plan::Selection>> Engine::stored_blocks(int var, uint64_t) {
  const std::vector<uint64_t>& shape = io().vars[var].shape;
  return std::vector<plan::Selection>{
      plan::Selection::box(std::vector<uint64_t>(shape.size(), 0), shape)};
}

Result<uint64_t> Engine::joined_length_at(int var, uint64_t step) {
  if (step >= available_steps())
    return error(TAPIO_ERR_NOT_FOUND, "step {} requested but the file has {} steps", step,
                 available_steps());
  TAPIO_ASSIGN_OR_RETURN(std::vector<plan::Selection> blocks, stored_blocks(var, step));
  for (const plan::Selection& b : blocks)
    TAPIO_RETURN_IF_ERROR(check_joined_block(io().vars[var], b, true));
  Result<uint64_t> length = joined_length(std::move(blocks));
  if (!length.ok()) return length.status().with_context(fmt::format("step {}", step));
  return length;
}

Status Engine::size_joined_vars(uint64_t step) {
  for (size_t v = 0; v < io().vars.size(); ++v) {
    if (!io().vars[v].joined) continue;
    auto length = joined_length_at(static_cast<int>(v), step);
    if (!length.ok()) return length.status().with_context(on_rank(static_cast<int>(v)));
    mutable_io()->vars[v].shape[0] = *length;
  }
  return ok_status();
}

}  // namespace tapio
