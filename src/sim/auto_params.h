// The engines' "auto" values, chosen by the model when a file is opened for writing:
// buffer_size = auto and stripe_size = auto always; aggregators = auto and two_level = auto
// only when a cluster file is named (`cluster` parameter), since without one "auto" keeps its
// meaning of one aggregator per node, and two-level stays off. The machine is the cluster file's, or else the detected node layout
// with the model's default constants; the workload is what is known at open: the variables,
// each assumed decomposed in bands of columns (the decomposition comes later, with the puts).
// Pure but for reading the cluster file; the same inputs give every rank the same choice, so
// no agreement is needed.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/params.h"
#include "core/status.h"

namespace tapio::sim {

// Replaces "auto" values in *params by the model's choice for `engine` writing `io` from
// node_of_rank.size() ranks on `nodes` nodes. With no variables (a file opened for reading),
// "auto" sizes take the registry's defaults. Errors: an unreadable or bad cluster file
// (TAPIO_ERR_CONFIG, naming the file, line and key).
Status resolve_auto(Params* params, const std::string& engine, const IoDef& io,
                    const std::vector<int>& node_of_rank, int nodes);

// resolve_auto, remembered: the same variables, layout and parameters get the same choice
// without predicting again (a context keeps one, so a program writing a file per step, or
// probing before writing, pays for the choice once).
class AutoChoices {
 public:
  Status resolve(Params* params, const std::string& engine, const IoDef& io,
                 const std::vector<int>& node_of_rank, int nodes);

 private:
  std::map<std::string, Params> made_;  // by the inputs' description
};

}  // namespace tapio::sim
