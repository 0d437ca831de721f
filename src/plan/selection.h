// A rank's selection of a variable: a box (start/count) or an irregular list of element runs
// in the flattened (C-order) global array, PIO-style. Pure: no MPI, no I/O.
//
// Memory order: a rank's local buffer holds the selected elements in C order of the box, or
// in the order of the runs as given (runs need not be sorted: PIO maps are not).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace tapio::plan {

struct Run {
  uint64_t offset = 0;  // first element, flattened global index within one record
  uint64_t length = 0;  // elements
  bool operator==(const Run& o) const { return offset == o.offset && length == o.length; }
};

struct Selection {
  enum class Kind { kBox, kRuns };
  Kind kind = Kind::kBox;
  std::vector<uint64_t> start, count;  // kBox; empty for a 0-d variable
  std::vector<Run> runs;               // kRuns

  static Selection box(std::vector<uint64_t> start, std::vector<uint64_t> count);
  // Element offsets (like PIO's compdof map, 0-based); consecutive offsets merge into runs.
  static Selection offsets(const uint64_t* offsets, size_t n);
  static Selection from_runs(std::vector<Run> runs);  // merges touching neighbours
  // Whether from_runs(offsets, lengths) — or offsets(offsets, n) when lengths is null — would
  // give this selection: one pass and no allocation, for a program that sets the same map
  // again every step, as PIO's callers do (E3SM's maps: 10^4 runs per variable).
  bool same_runs(const uint64_t* offsets, const uint64_t* lengths, size_t n) const;

  uint64_t elements() const;
  bool operator==(const Selection& o) const {
    return kind == o.kind && start == o.start && count == o.count && runs == o.runs;
  }
};

// A selection as a variable handle holds it and its puts and gets carry it: immutable and
// shared, so that a program giving the same map step after step hands the engines the same
// object, which they know again by its address (a put costs no copy of 10^4 runs, and the plan
// cache no hash or comparison of them).
using SharedSelection = std::shared_ptr<const Selection>;
inline SharedSelection shared(Selection sel) {
  return std::make_shared<const Selection>(std::move(sel));
}

// Check a selection against a global shape (one name per dimension): box rank, start + count
// within shape, runs within the number of elements. Errors are TAPIO_ERR_SHAPE and name the
// offending dimension.
Status validate(const Selection& sel, const std::vector<uint64_t>& shape,
                const std::vector<std::string>& dim_names);

// The runs a selection covers, in memory order, with touching runs merged. A box becomes one
// run per contiguous row (trailing dimensions that are fully selected merge into longer runs).
std::vector<Run> to_runs(const Selection& sel, const std::vector<uint64_t>& shape);

// Number of runs to_runs would produce, without producing them.
uint64_t run_count(const Selection& sel, const std::vector<uint64_t>& shape);

// Visit the runs of `sel` in memory order with their position in the local buffer (elements),
// without materialising a vector: f(Run, uint64_t memory_offset).
template <typename F>
void for_each_run(const Selection& sel, const std::vector<uint64_t>& shape, F&& f);

std::string describe(const Selection& sel);  // "start [0,4] count [2,4]" or "3 runs, 12 elements"

}  // namespace tapio::plan

#include "plan/selection_inl.h"
