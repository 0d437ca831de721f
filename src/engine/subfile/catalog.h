// What a reader knows about a subfile dataset: its definitions, every committed step's index
// record, and the blocks of the steps it has loaded (which writer generation and subfile
// holds each, where, with which checksums), indexed so that the blocks a selection needs are
// found without scanning all of them. Pure: fed with the index and metadata bytes, which the
// engine fetches. A step's region is loaded when it is first needed, except the regions that
// later steps refer to (definitions, new selections, fixed variables: the step flags), which
// are loaded in order as their index records arrive.
#pragma once
#include <map>
#include <memory>
#include <tuple>
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
  const plan::Selection* sel = nullptr;  // in its writer's table, which the catalog keeps
  uint64_t offset = 0;  // in the subfile
  uint64_t length = 0;  // bytes in the subfile
  BlockSums sums;       // checksums of the bytes in the subfile
  Codec codec = Codec::kNone;
  uint64_t decoded = 0;  // bytes as put (length unless coded): what needs' positions count

};

// An element range a get needs from a stored block, and where it goes.
struct Need {
  uint64_t step;
  uint32_t entry;  // index among the step's blocks
  uint64_t pos;    // byte position in the block
  uint64_t bytes;
  uint8_t* dst;
};

class Catalog {
 public:
  // The next committed step's index record.
  Status add_record(const StepRecord& record);
  void mark_ended(bool ended) { ended_ = ended; }
  // The bytes the dataset's data files hold: every run of a selection has a byte of data at
  // least, so the selections decoded from then on hold at most that many runs in all (more
  // is an error: a damaged dataset or a hostile one). Unlimited until set.
  void set_data_bytes(uint64_t bytes) { bound_.data_bytes = bytes; }
  // Decode `step`'s metadata region (record(step).md_length bytes). Flagged steps must be
  // loaded in step order, before any step after them.
  Status load_step(uint64_t step, const uint8_t* region, size_t size);

  uint64_t steps() const { return records_.size(); }
  const StepRecord& record(uint64_t step) const { return records_[step]; }
  bool loaded(uint64_t step) const { return steps_[step] != nullptr; }
  bool ended() const { return ended_; }
  bool has_definitions() const { return has_definitions_; }
  const IoDef& definitions() const { return definitions_; }
  uint32_t max_generation() const { return max_generation_; }
  // The steps holding blocks of fixed variables, ascending (always loaded).
  const std::vector<uint64_t>& fixed_steps() const { return fixed_steps_; }

  // Blocks of `var` at a loaded `step` whose first-dimension interval meets [lo, hi), as
  // indices into the step's entries (the same on every rank that loaded the same metadata).
  std::vector<uint32_t> query(uint64_t step, uint32_t var, uint64_t lo, uint64_t hi);
  const Entry& entry(uint64_t step, uint32_t index) const { return steps_[step]->entries[index]; }
  size_t entries(uint64_t step) const { return steps_[step]->entries.size(); }

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
  // What the selections decoded may hold in all: no list's selections have more runs than
  // the variables have elements, nor all of them more than the data files have bytes.
  struct {
    uint64_t elements = 0;  // of all variables (saturating)
    uint64_t data_bytes = UINT64_MAX;
    uint64_t runs = 0;  // in all the selections decoded
  } bound_;
  uint32_t max_generation_ = 0;
  std::vector<StepRecord> records_;
  std::vector<std::unique_ptr<Step>> steps_;  // null until loaded
  std::vector<uint64_t> fixed_steps_;
  std::map<std::pair<uint32_t, uint32_t>, WriterTable> writers_;  // (generation, writer)
  // (generation, writer, selection, joined, shape): a selection checked against a variable's
  // shape, which a decomposition's variables share, and its element count.
  using Fit = std::tuple<uint32_t, uint32_t, uint32_t, bool, std::vector<uint64_t>>;
  std::map<Fit, uint64_t> fits_;
  // The first-dimension interval of each stored selection, per row size (elements below the
  // first dimension; 0 for a scalar), found once: every step's blocks of the same
  // decomposition, and every variable of its shape, are indexed without visiting its runs
  // again (E3SM F: 16 variables a decomposition).
  std::map<std::pair<const plan::Selection*, uint64_t>, std::pair<uint64_t, uint64_t>> bounds_;
};

}  // namespace tapio::subfile
