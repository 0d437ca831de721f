// Names of dimensions, variables and attributes: the NetCDF rules, as netCDF-C applies them.
// Every name a program defines passes them, whatever the engine, so that every dataset tapio
// writes converts to NetCDF (issue 29); a NetCDF header read from a file passes the grammar.
#pragma once
#include <cstddef>
#include <string>

namespace tapio {

// The longest name netCDF-C defines (NC_MAX_NAME, in bytes): its ncdump crashes on a file
// holding a longer one.
inline constexpr size_t kMaxNameBytes = 256;

// The unlimited dimension that carries steps in a NetCDF file (and that xarray shows them
// along): no dimension a program defines may take this name.
inline constexpr const char* kStepDimension = "time";

// Why `name` breaks the grammar of NetCDF names ("" when it does not): empty; malformed UTF-8;
// a first character other than a letter, a digit, '_' or a multi-byte one; '/'; a control
// character; a trailing space.
std::string name_grammar_problem(const std::string& name);

// Why `name` cannot be defined ("" when it can): the grammar, and what netCDF-C requires of a
// name it defines besides: at most kMaxNameBytes bytes, in Unicode normalization form C (NFC;
// netCDF-C normalizes names it defines, so another form could not be looked up by its bytes).
std::string name_definition_problem(const std::string& name);

// `name` for a message: control bytes and bytes outside well-formed UTF-8 as \xNN.
std::string printable_name(const std::string& name);

}  // namespace tapio
