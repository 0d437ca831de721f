// The parts of `tapio sim` beside the prediction (sim.cpp): --explain and --calibrate.
#pragma once
#include "commands.h"
#include "sim/cluster.h"
#include "sim/patterns.h"
#include "sim/workload.h"

namespace tapio::cli {

// Why the model would choose what it chooses for `w` on `c`: every candidate's prediction,
// the winner's bottleneck, and what two-level aggregation would change.
int explain(const SimOptions& o, const sim::Cluster& c, const sim::Workload& w,
            const sim::Pattern& p);
// Measures this machine (memcpy, messages between ranks with MPI, storage on a directory)
// and prints a cluster file for it. Run under mpiexec with 2 ranks for the message figures.
int run_calibrate(const SimOptions& o);

}  // namespace tapio::cli
