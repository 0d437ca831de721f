// Checks shared by the tests that replay E3SM maps.
#pragma once
#include <string>
#include <vector>

#include "e3sm_map.h"

namespace tapio::test {

// Reads every decomposition's variable whole at the current step of `in` (inside a
// begin_step/end_step it opens itself) and checks it: elements some rank's runs cover hold
// value(k, step, g); the rest (the I case's land) hold the NetCDF default fill value.
void expect_whole_e3sm_step(IO& io, Engine& in, const std::vector<e3sm::Decomposition>& decomps,
                            uint64_t step, const std::string& label);

}  // namespace tapio::test
