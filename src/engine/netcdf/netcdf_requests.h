// Every rank's requests at rank 0: the serial engine's data path, and how the NetCDF engines
// name overlapping blocks (the runs of all ranks sorted in one place).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "core/model.h"
#include "engine/profile.h"
#include "plan/coverage.h"
#include "plan/selection_codec.h"

namespace tapio {

using RankRequests = std::vector<std::vector<plan::Request>>;  // per rank (rank 0 only)

// Collective: every rank's requests reach rank 0, in rank order (one gather). This rank's
// status: only rank 0 decodes, so the caller agrees.
Status gather_requests(const comm::Comm& comm, const std::vector<plan::Request>& mine,
                       RankRequests* all, Profile* profile);

// The runs of `var` in all ranks' requests, sorted by offset into *owned, and the elements
// they cover; or TAPIO_ERR_SHAPE naming two ranks whose runs overlap with their elements
// (prefixed with `context`).
Result<uint64_t> covered(const VariableDef& def, int var, const RankRequests& all,
                         const std::string& context, std::vector<plan::OwnedRun>* owned);

}  // namespace tapio
