// Do the ranks' pieces of a batch overlap? Checked without gathering them in one place: each
// variable's elements are split into one domain per node (plan/overlap.h), every rank sends
// the first rank of each node the parts of its runs in that node's domain — one message per
// owner it has runs for, counted with one reduce-scatter — and each owner checks its domain as
// the serial engine checks a whole variable (plan/coverage.h). A variable whose puts repeat an
// earlier variable's shape and selections travels as a reference to it, so a decomposition that
// many variables share is sent and checked once. Engines run it when some rank's pieces changed
// since a committed batch, so a steady step pays nothing.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "comm/comm.h"
#include "comm/topology.h"
#include "core/model.h"
#include "engine/engine.h"
#include "engine/profile.h"

namespace tapio {

struct PutShape {
  int var;
  const plan::Selection* sel;
};

// Collective. This rank's finding: an owner of a domain where two pieces overlap returns the
// error (prefixed with context(var): the file, the variable, the step); the caller agrees.
Status check_overlaps(const comm::Comm& comm, const comm::Topology& topology, const IoDef& io,
                      const std::vector<PutShape>& mine,
                      const std::function<std::string(int var)>& context, Profile* profile);

// Whether a batch of puts repeats the previous batch, and that batch's step was committed:
// then whatever the previous batch was checked for holds again.
class RepeatedPuts {
 public:
  // Remembers this batch (of `step`) for the next call.
  bool same_as_last(const std::vector<PutOp>& puts, uint64_t step);
  // The next batch is another file's, of any step: it repeats this one if its puts are the
  // same (whether this batch's plan holds there is the caller's to check).
  void continue_in_another_file() { any_step_ = true; }

 private:
  std::vector<std::pair<int, plan::SharedSelection>> last_;
  uint64_t last_step_ = UINT64_MAX;
  bool any_step_ = false;
};

}  // namespace tapio
