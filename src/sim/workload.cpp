#include "sim/workload.h"

#include <fmt/format.h>

#include "sim/toml_fields.h"

namespace tapio::sim {
namespace {

using K = FieldKind;


std::vector<Field> workload_fields(Workload* w) {
  PatternOptions* p = &w->pattern;
  return {
      {"", "ranks", K::kInteger, "MPI ranks", 1, {}, into(&w->ranks)},
      {"", "engine", K::kText, "engine", 0, {"collective", "subfile", "serial"}, nullptr,
       text_into(&w->engine)},
      {"", "messages", K::kText, "message packing", 0, {"packed", "per-piece"}, nullptr,
       text_into(&w->messages)},
      {"pattern", "name", K::kText, "pattern", 0, {"licom", "hpio", "matrix", "e3sm", "metadata"},
       nullptr, text_into(&p->name)},
      {"pattern", "steps", K::kInteger, "steps", 1, {}, into(&p->steps)},
      {"pattern", "grid", K::kText, "licom NXxNYxNZ", 0, {}, nullptr, text_into(&p->grid)},
      {"pattern", "vars3d", K::kInteger, "licom 3-D variables", 0, {}, into(&p->vars3d)},
      {"pattern", "vars2d", K::kInteger, "licom 2-D variables", 0, {}, into(&p->vars2d)},
      {"pattern", "count", K::kInteger, "hpio regions per rank", 1, {}, into(&p->count)},
      {"pattern", "size", K::kInteger, "hpio bytes per region", 8, {}, into(&p->size)},
      {"pattern", "spacing", K::kInteger, "hpio bytes between regions", 0, {}, into(&p->spacing)},
      {"pattern", "mem", K::kText, "hpio memory side", 0, {"contig", "noncontig"}, nullptr,
       text_into(&p->mem)},
      {"pattern", "file", K::kText, "hpio file side", 0, {"contig", "noncontig"}, nullptr,
       text_into(&p->file)},
      {"pattern", "rows", K::kInteger, "matrix rows", 1, {}, into(&p->rows)},
      {"pattern", "cols", K::kInteger, "matrix columns", 1, {}, into(&p->cols)},
      {"pattern", "dist", K::kText, "matrix distribution", 0, {"block", "cyclic"}, nullptr,
       text_into(&p->dist)},
      {"pattern", "nb", K::kInteger, "matrix cyclic block", 1, {}, into(&p->nb)},
      {"pattern", "case", K::kText, "e3sm case", 0, {"f", "g", "i"}, nullptr, text_into(&p->kase)},
      {"pattern", "map", K::kText, "e3sm map file", 0, {}, nullptr, text_into(&p->map)},
      {"pattern", "header", K::kText, "e3sm header text", 0, {}, nullptr, text_into(&p->header)},
      {"pattern", "data_dir", K::kText, "e3sm data directory", 0, {}, nullptr, text_into(&p->data_dir)},
      {"pattern", "vars_per_decomp", K::kInteger, "e3sm variables per decomposition", 0, {},
       into(&p->vars_per_decomp)},
      {"pattern", "vars", K::kInteger, "metadata variables", 1, {}, into(&p->vars)},
      {"pattern", "blocks", K::kInteger, "metadata blocks", 1, {}, into(&p->blocks)},
      {"pattern", "block_elements", K::kInteger, "metadata doubles per block", 1, {},
       into(&p->block_elements)},
  };
}

}  // namespace

Result<Workload> parse_workload(std::string_view text_in, const std::string& source,
                                const std::vector<std::string>& overrides,
                                const std::string& default_data_dir) {
  Workload w;
  w.pattern.data_dir = default_data_dir;
  const std::vector<Field> fields = workload_fields(&w);
  const Source src{"workload file", source};
  // [params] holds tapio parameters: the registry checks names and values.
  const Extra param = [&](std::string_view, std::string_view key, const std::string& value,
                          int line) -> Status {
    const Status st = w.params.set(key, value);
    return st.ok() ? st : at_line(src, line, st.message());
  };
  TAPIO_RETURN_IF_ERROR(read_fields(text_in, src, fields, {"params"}, param));
  for (const std::string& o : overrides)
    TAPIO_RETURN_IF_ERROR(read_override(o, "workload", fields, {"params"}, param));
  return w;
}

Result<Workload> load_workload(const std::string& path, const std::vector<std::string>& overrides,
                               const std::string& default_data_dir) {
  std::string text_in;
  TAPIO_RETURN_IF_ERROR(read_text_file(path, "workload file", &text_in));
  return parse_workload(text_in, path, overrides, default_data_dir);
}

}  // namespace tapio::sim
