// Element conversion between the numeric types, as netCDF converts a put or get whose memory
// type differs from the variable's: C's value conversions (floating to integer truncates toward
// zero, the rest rounds to nearest), and a value the target type cannot hold is a range error
// (netCDF's NC_ERANGE) instead of a wrapped or undefined one.
#pragma once
#include <cstdint>

#include "core/status.h"
#include "core/types.h"

namespace tapio {

// Whether elements of `from` can be converted to `to`: the same type, or two numeric types.
// Text (char) converts to nothing else.
bool types_convert(DataType from, DataType to);

// Converts `count` elements of type `from` at src into type `to` at dst (host order; dst and
// src do not overlap unless the types are equal). A value `to` cannot hold is TAPIO_ERR_RANGE
// naming the first such element and its value; dst is then partly written. Out of range:
// - an integer outside the target integer type's limits (negative to unsigned included);
// - a float whose truncation toward zero is outside the target integer type, NaN and ±inf;
// - a finite float64 beyond ±FLT_MAX into float32 (±inf and NaN stay what they are).
// Integers to floating types always convert (int64 to float32 rounds to 24 bits).
// Types that do not convert (types_convert) are TAPIO_ERR_TYPE.
Status convert_elements(void* dst, DataType to, const void* src, DataType from, uint64_t count);

}  // namespace tapio
