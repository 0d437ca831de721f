// What closed files planned, kept by their context for the next files it opens: a model writes
// each month's history file with the maps of the month before, and often several streams in
// turn (E3SM's h0, h1 and restarts), each of its own layout.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tapio {

// One engine kind's plan of one closed file (the engine knows its own kind by its type).
struct PlanMemory {
  virtual ~PlanMemory() = default;
};

// One engine kind's kept plans: the last few closed files', at most one per key, the key of
// the layout each was made for (the same on every rank: made from the header and the
// parameters). Every close of a file written adds an entry under its key, with a plan or
// without (a rank whose close failed, or whose file planned nothing worth keeping, keeps
// none), replacing the key's entry before; a file's first batch takes its key's entry out.
// So after a file of key K closes, no rank holds an older file's plan of K: a rank holds that
// file's plan or nothing (taken, dropped past kMaxFiles, forgotten), and one that finds
// nothing votes its batch changed, so every rank plans afresh. No rank can repeat one file's
// plan while another repeats an older one.
class KeptPlans {
 public:
  static constexpr size_t kMaxFiles = 8;  // each O(local pieces)

  using Entry = std::pair<std::vector<uint64_t>, std::unique_ptr<PlanMemory>>;

  // `key`'s entry becomes `plan` (null: none), the latest of all; past kMaxFiles the oldest
  // entry goes.
  void add(std::vector<uint64_t> key, std::unique_ptr<PlanMemory> plan);
  // `key`'s entry, taken out (its key too: no copy), or an empty one.
  Entry take(const std::vector<uint64_t>& key);
  // Forgets every entry: what a rank does when it could not add one (its entries would no
  // longer be the others'), so that it finds nothing and its batches vote "changed".
  void clear() { entries_.clear(); }
  // add(), or clear() if that fails for want of memory.
  void add_or_forget(std::vector<uint64_t> key, std::unique_ptr<PlanMemory> plan);
  size_t size() const { return entries_.size(); }

 private:
  std::deque<Entry> entries_;
};

// A context's kept plans, by engine kind ("collective", "subfile").
using PlanMemories = std::map<std::string, KeptPlans>;

}  // namespace tapio
