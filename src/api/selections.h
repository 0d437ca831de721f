// Selections as the C API takes them: checked against the variable once, where they are given,
// so that no put or get ever falls back to an older selection (docs/api.md §2.4).
#pragma once
#include <string>

#include "api/handles.h"
#include "core/status.h"
#include "plan/selection.h"

namespace tapio::api {

// What a selection error names: the file a put of the variable would go to (those open from
// its IO; its IO when none is), the variable and the rank, as a put's errors do.
std::string where(const VarState* var);

// OK, or why the variable's last selection was refused (its puts and gets fail with this).
Status selection_refusal(const VarState* var);

// `sel` if it lies in `def`'s shape; a joined variable's box is checked against its length
// when it is read (`for_reading`), and a joined variable takes no write selection.
Result<plan::Selection> checked_selection(const VarState* var, const VariableDef& def,
                                          plan::Selection sel, bool for_reading);

// The box start/count (def's ndims each; null allowed for a 0-d variable), checked.
Result<plan::Selection> checked_box(const VarState* var, const VariableDef& def,
                                    const uint64_t* start, const uint64_t* count,
                                    bool for_reading);

}  // namespace tapio::api
