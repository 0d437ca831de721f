#include "api/selections.h"

#include <fmt/ranges.h>

#include <cstdint>
#include <vector>

namespace tapio::api {

std::string where(const VarState* var) {
  const IoState* io = var->io;
  std::vector<std::string> files;
  for (const auto& e : io->ctx->engines)
    if (e && e->io == io) files.push_back(fmt::format("'{}'", e->engine->path()));
  const std::string owner = files.empty() ? fmt::format("IO '{}'", io->def.name)
                            : fmt::format("file{} {}", files.size() > 1 ? "s" : "",
                                          fmt::join(files, ", "));
  return fmt::format("{}, variable '{}', rank {}", owner, var->name, io->ctx->comm.rank());
}

Status selection_refusal(const VarState* var) {
  if (var->rejected.ok()) return ok_status();
  return Status(var->rejected.code(),
                fmt::format("its selection was refused: {}", var->rejected.message()));
}

Result<plan::Selection> checked_selection(const VarState* var, const VariableDef& def,
                                          plan::Selection sel, bool for_reading) {
  std::vector<uint64_t> shape = def.shape;
  if (def.joined) {
    if (!for_reading)
      return error(TAPIO_ERR_ARG, "variable '{}' is a joined array: a writer gives its length "
                   "with tapio_var_set_joined_count; a selection is for reading a step of it",
                   def.name)
          .with_context(where(var));
    shape[0] = INT64_MAX;  // the get checks the box against the length of the step it reads
  }
  // where() formats the file names: only for a refusal, not for every selection set.
  const Status valid = plan::validate(sel, shape, def.dim_names);
  if (!valid.ok()) return valid.with_context(where(var));
  return sel;
}

Result<plan::Selection> checked_box(const VarState* var, const VariableDef& def,
                                    const uint64_t* start, const uint64_t* count,
                                    bool for_reading) {
  const size_t nd = def.shape.size();
  if (nd > 0 && (!start || !count))
    return error(TAPIO_ERR_ARG, "variable '{}': start and count are required", def.name)
        .with_context(where(var));
  std::vector<uint64_t> begin(nd), size(nd);
  if (nd > 0) {
    begin.assign(start, start + nd);
    size.assign(count, count + nd);
  }
  return checked_selection(var, def, plan::Selection::box(std::move(begin), std::move(size)),
                           for_reading);
}

}  // namespace tapio::api
