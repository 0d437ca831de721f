// What a reader knows about a subfile dataset: its definitions and, per step, every block
// (which writer generation and subfile holds it, where, with which checksums), indexed so that
// the blocks a selection needs are found without scanning all of them. Pure: fed with the
// index and metadata bytes, which the engine fetches.
#pragma once
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/model.h"
#include "format/subfile/block_list.h"
#include "format/subfile/records.h"
#include "plan/intersect.h"

namespace tapio::subfile {

struct Entry {
  uint32_t generation = 0;
  uint32_t subfile = 0;
  uint32_t var = 0;
  const plan::Selection* sel = nullptr;  // in its writer's table, which outlives the catalog's use
  uint64_t offset = 0;  // in the subfile
  uint64_t length = 0;  // bytes
  BlockSums sums;
};

class Catalog {
 public:
  // Add the next committed step from its index record and its metadata region.
  Status add_step(const StepRecord& record, const uint8_t* region, size_t size);
  void mark_ended(bool ended) { ended_ = ended; }

  uint64_t steps() const { return steps_.size(); }
  bool ended() const { return ended_; }
  bool has_definitions() const { return has_definitions_; }
  const IoDef& definitions() const { return definitions_; }
  uint32_t max_generation() const { return max_generation_; }

  // Blocks of `var` at `step` whose first-dimension interval meets [lo, hi), as indices into
  // the step's entries (the same on every rank that loaded the same metadata).
  std::vector<uint32_t> query(uint64_t step, uint32_t var, uint64_t lo, uint64_t hi);
  const Entry& entry(uint64_t step, uint32_t index) const { return steps_[step].entries[index]; }
  size_t entries(uint64_t step) const { return steps_[step].entries.size(); }
  // Metadata bytes per block per step, averaged (reported by the metadata benchmark).
  double metadata_bytes_per_block() const;

 private:
  struct Step {
    std::vector<Entry> entries;
    std::map<uint32_t, plan::IntervalIndex> by_var;  // built on first query
    bool indexed = false;
  };
  void build_index(Step& s);
  Status add_blocks(const StepRecord& record, const uint8_t* payload, size_t size, Step* step);

  IoDef definitions_;
  bool has_definitions_ = false;
  bool ended_ = false;
  uint64_t max_runs_ = 0;  // the largest variable's element count: no selection has more runs
  uint32_t max_generation_ = 0;
  std::vector<Step> steps_;
  std::map<std::pair<uint32_t, uint32_t>, WriterTable> writers_;  // (generation, writer)
  uint64_t md_bytes_ = 0, block_count_ = 0;
};

}  // namespace tapio::subfile
