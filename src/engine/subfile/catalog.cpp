#include "engine/subfile/catalog.h"

namespace tapio::subfile {

Status Catalog::add_step(const StepRecord& record, const uint8_t* region, size_t size) {
  const std::string ctx = fmt::format("step {}", record.step);
  if (record.step != steps_.size())
    return error(TAPIO_ERR_FORMAT, "index holds step {} where step {} was expected", record.step,
                 steps_.size());
  auto split = split_records(region, size, record.md_align);
  TAPIO_RETURN_IF_ERROR(split.status().with_context(ctx));
  const std::vector<Record>& records = *split;
  uint64_t sum = 0;
  Step step;
  for (const Record& r : records) {
    sum += checksum(r.payload, r.length);
    if (r.kind == RecordKind::kDefinitions) {
      auto defs = decode_definitions(r.payload, r.length);
      TAPIO_RETURN_IF_ERROR(defs.status().with_context(ctx));
      definitions_ = std::move(defs).value();
      has_definitions_ = true;
    } else if (r.kind == RecordKind::kBlocks) {
      TAPIO_ASSIGN_OR_RETURN(uint32_t writer, peek_writer(r.payload, r.length));
      const auto key = std::make_pair(record.generation, writer);
      const auto prev = last_list_.find(key);
      auto list = decode_blocks(r.payload, r.length,
                                prev == last_list_.end() ? nullptr : &prev->second);
      TAPIO_RETURN_IF_ERROR(list.status().with_context(ctx));
      for (const Block& b : list->blocks) {
        if (b.var >= definitions_.vars.size())
          return error(TAPIO_ERR_FORMAT, "{}: block of unknown variable {}", ctx, b.var);
        step.entries.push_back(Entry{record.generation, b});
      }
      block_count_ += list->blocks.size();
      last_list_[key] = std::move(list).value();
    } else {
      return error(TAPIO_ERR_FORMAT, "{}: unknown metadata record kind {}", ctx,
                   static_cast<uint32_t>(r.kind));
    }
  }
  if (sum != record.md_checksum)
    return error(TAPIO_ERR_CHECKSUM, "{}: metadata does not match the index checksum", ctx);
  if (!has_definitions_) return error(TAPIO_ERR_FORMAT, "{}: no definitions before it", ctx);
  md_bytes_ += size;
  max_generation_ = std::max(max_generation_, record.generation);
  steps_.push_back(std::move(step));
  return ok_status();
}

void Catalog::build_index(Step& s) {
  for (uint32_t i = 0; i < s.entries.size(); ++i) {
    const Block& b = s.entries[i].block;
    uint64_t lo, hi;
    plan::first_dim_bounds(b.sel, definitions_.vars[b.var].shape, &lo, &hi);
    s.by_var[b.var].add(lo, hi, i);
  }
  for (auto& [var, index] : s.by_var) index.build();
  s.indexed = true;
}

std::vector<uint32_t> Catalog::query(uint64_t step, uint32_t var, uint64_t lo, uint64_t hi) {
  std::vector<uint32_t> out;
  Step& s = steps_[step];
  if (!s.indexed) build_index(s);
  const auto it = s.by_var.find(var);
  if (it == s.by_var.end()) return out;
  it->second.query(lo, hi, [&](uint32_t i) { out.push_back(i); });
  return out;
}

double Catalog::metadata_bytes_per_block() const {
  return block_count_ ? static_cast<double>(md_bytes_) / block_count_ : 0;
}

}  // namespace tapio::subfile
