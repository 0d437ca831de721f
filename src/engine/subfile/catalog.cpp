#include "engine/subfile/catalog.h"

#include "engine/joined_blocks.h"

namespace tapio::subfile {

Status Catalog::add_record(const StepRecord& record) {
  if (record.step != records_.size())
    return error(TAPIO_ERR_FORMAT, "index holds step {} where step {} was expected", record.step,
                 records_.size());
  records_.push_back(record);
  steps_.emplace_back();
  max_generation_ = std::max(max_generation_, record.generation);
  if (record.flags & kStepHasFixed) fixed_steps_.push_back(record.step);
  return ok_status();
}

Status Catalog::load_step(uint64_t index, const uint8_t* region, size_t size) {
  const StepRecord& record = records_[index];
  const std::string ctx = fmt::format("step {}", record.step);
  auto split = split_records(region, size, record.md_align);
  TAPIO_RETURN_IF_ERROR(split.status().with_context(ctx));
  uint64_t sum = 0;
  for (const Record& r : *split) sum += checksum(r.payload, r.length);
  if (sum != record.md_checksum)
    return error(TAPIO_ERR_CHECKSUM, "{}: metadata does not match the index checksum", ctx);
  auto step = std::make_unique<Step>();
  for (const Record& r : *split) {
    if (r.kind == RecordKind::kDefinitions) {
      if (!(record.flags & kStepHasDefinitions))
        return error(TAPIO_ERR_FORMAT, "{}: definitions its index record does not announce", ctx);
      auto defs = decode_definitions(r.payload, r.length);
      TAPIO_RETURN_IF_ERROR(defs.status().with_context(ctx));
      definitions_ = std::move(defs).value();
      has_definitions_ = true;
      uint64_t& elements = bound_.elements;
      elements = 0;
      for (const VariableDef& v : definitions_.vars)
        elements = v.elements() > UINT64_MAX - elements ? UINT64_MAX : elements + v.elements();
    } else if (r.kind == RecordKind::kBlocks) {
      TAPIO_RETURN_IF_ERROR(add_blocks(record, r.payload, r.length, step.get()).with_context(ctx));
    } else {
      return error(TAPIO_ERR_FORMAT, "{}: unknown metadata record kind {}", ctx,
                   static_cast<uint32_t>(r.kind));
    }
  }
  if (!has_definitions_) return error(TAPIO_ERR_FORMAT, "{}: no definitions before it", ctx);
  steps_[index] = std::move(step);
  return ok_status();
}

// One writer's list: its blocks follow one another in its subfile from the list's offset.
Status Catalog::add_blocks(const StepRecord& record, const uint8_t* payload, size_t size,
                           Step* step) {
  TAPIO_ASSIGN_OR_RETURN(const uint32_t writer, peek_writer(payload, size));
  WriterTable& table = writers_[{record.generation, writer}];
  const uint64_t budget = bound_.data_bytes > bound_.runs ? bound_.data_bytes - bound_.runs : 0;
  auto decoded = decode_block_list(payload, size, table, std::min(bound_.elements, budget));
  if (!decoded.ok() && budget < bound_.elements)
    return error(TAPIO_ERR_FORMAT,
                 "{} (the data files hold {} bytes, and every run needs one: is a data file "
                 "missing or truncated?)",
                 decoded.status().message(), bound_.data_bytes);
  TAPIO_RETURN_IF_ERROR(decoded.status());
  BlockList list = std::move(decoded).value();
  for (const plan::Selection& s : list.new_selections) bound_.runs += s.runs.size();
  // Selections a list adds come first: later steps, loaded in any order, refer to them.
  if (!list.new_selections.empty() && !(record.flags & kStepAddsSelections))
    return error(TAPIO_ERR_FORMAT, "writer {} adds selections its index record does not announce",
                 writer);
  table.apply(list);
  uint64_t at = list.offset;
  for (size_t i = 0; i < list.shapes.size(); ++i) {
    const BlockShape& b = list.shapes[i];
    if (b.var >= definitions_.vars.size())
      return error(TAPIO_ERR_FORMAT, "block of unknown variable {} (writer {})", b.var, writer);
    const VariableDef& v = definitions_.vars[b.var];
    const plan::Selection& sel = table.selections[b.selection];
    // A selection is checked against a shape once (a map's runs are many, and the variables
    // of a decomposition share it), then its element count is remembered.
    const Fit fit{record.generation, writer, b.selection, v.joined, v.shape};
    auto checked = fits_.find(fit);
    if (checked == fits_.end()) {
      const Status fits = v.joined ? check_joined_block(v, sel, true)
                                   : plan::validate(sel, v.shape, v.dim_names);
      if (fits.ok()) checked = fits_.emplace(fit, sel.elements()).first;
    }
    if (checked == fits_.end() || checked->second * type_size(v.type) != b.length)
      return error(TAPIO_ERR_FORMAT, "block {} of writer {} does not fit variable '{}'", i,
                   writer, v.name);
    if (!v.record && !(record.flags & kStepHasFixed))
      return error(TAPIO_ERR_FORMAT, "a block of fixed variable '{}' its index record does not "
                   "announce (writer {})", v.name, writer);
    step->entries.push_back(Entry{record.generation, list.subfile, b.var, &sel, at,
                                  b.stored_bytes(), std::move(list.sums[i]), b.codec, b.length});
    at += b.stored_bytes();
  }
  return ok_status();
}

void Catalog::build_index(Step& s) {
  for (uint32_t i = 0; i < s.entries.size(); ++i) {
    const Entry& e = s.entries[i];
    const std::vector<uint64_t>& shape = definitions_.vars[e.var].shape;
    uint64_t row = shape.empty() ? 0 : 1;
    for (size_t d = 1; d < shape.size(); ++d) row *= shape[d];
    const auto [at, made] = bounds_.try_emplace({e.sel, row});
    auto& [lo, hi] = at->second;
    if (made) plan::first_dim_bounds(*e.sel, shape, &lo, &hi);
    s.by_var[e.var].add(lo, hi, i);
  }
  for (auto& [var, index] : s.by_var) index.build();
  s.indexed = true;
}

std::vector<uint32_t> Catalog::query(uint64_t step, uint32_t var, uint64_t lo, uint64_t hi) {
  std::vector<uint32_t> out;
  Step& s = *steps_[step];
  if (!s.indexed) build_index(s);
  const auto it = s.by_var.find(var);
  if (it == s.by_var.end()) return out;
  it->second.query(lo, hi, [&](uint32_t i) { out.push_back(i); });
  return out;
}

}  // namespace tapio::subfile
