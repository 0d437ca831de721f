// Joined (local) arrays' blocks, pure: what a block of a joined variable may be, and a step's
// length from its stored blocks. Used by the engines and by the subfile catalog (which the
// fuzzer builds alone).
#pragma once
#include <cstdint>
#include <vector>

#include "core/model.h"
#include "core/status.h"
#include "plan/selection.h"

namespace tapio {

// A block of joined variable `v`: a box with the other dimensions whole. As a writer gives it
// (`placed` false) it starts at 0; as stored, anywhere along dimension 0. TAPIO_ERR_SHAPE
// otherwise, naming the dimension.
Status check_joined_block(const VariableDef& v, const plan::Selection& sel, bool placed);

// The length of a joined variable at one step: the end of its last stored block. The blocks
// must tile [0, length) without gaps or overlaps (TAPIO_ERR_FORMAT otherwise).
Result<uint64_t> joined_length(std::vector<plan::Selection> blocks);

}  // namespace tapio
