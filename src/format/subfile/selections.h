// The compact encoding of a block's selection in the subfile format (docs/format.md,
// "Selections"): a box as varints, a run list as segments — runs of equal length at a constant
// stride collapse into one, and each segment's start is a signed distance from where the
// previous one ended — so a regular map costs a few bytes however many runs it has, and an
// irregular PIO map about three bytes per run instead of sixteen.
#pragma once
#include <cstdint>

#include "format/subfile/le_bytes.h"
#include "plan/selection.h"

namespace tapio::subfile {

void encode_selection(LeWriter& w, const plan::Selection& sel);
// False when the bytes are malformed or the runs would exceed `max_runs` (the variable's
// element count: a selection of disjoint runs cannot have more), so a hostile record cannot
// make the reader allocate without bound.
bool decode_selection(LeReader& r, uint64_t max_runs, plan::Selection* sel);

// A hash of a selection's contents: how a writer finds a selection it stored.
uint64_t selection_hash(const plan::Selection& sel);

}  // namespace tapio::subfile
