// Where each variable's data goes: header extent, data alignment, record layout; and back,
// which variable, record and elements a file byte holds.
#pragma once
#include <cstdint>

#include "core/status.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf {

struct LayoutOptions {
  uint64_t data_align = 512;  // fixed-var section, each fixed var and the record section
                              // start at multiples of this (like PnetCDF nc_var_align_size)
  uint64_t header_pad = 0;    // free bytes reserved after the header to add attributes later
};

// Set vsize and begin of every variable of h. Errors: a fixed var or record larger than the
// version can address (CDF-1: 2 GiB offsets, CDF-2: 4 GiB per var), invalid alignment.
//
// The data starts at encoded_size(h) + header_pad rounded up to data_align; fixed variables
// follow in definition order, each begin rounded up to data_align; the record section starts
// after the last fixed variable, rounded up to data_align; within a record the record
// variables are packed in definition order (begin = section start + the vsizes before it).
// With data_align = 4 and header_pad = 0 this is the layout the netCDF C library writes by
// default. Error codes: TAPIO_ERR_ARG for bad options or a header whose definitions fail
// validate() (names, types, dimension ids...; the old vsize and begin are not looked at),
// TAPIO_ERR_UNSUPPORTED for sizes the version cannot address. On error h is left unchanged.
Status compute_layout(Header& h, const LayoutOptions& options);

// Bytes available for the header: the begin of the first variable (or, with no variables,
// encoded_size + header_pad rounded to data_align). A new header fits if encoded_size <= this.
// With no variables the single-argument form uses the default LayoutOptions{}; the
// two-argument form uses `options` (an invalid data_align counts as 4). Neither looks at
// options when there are variables: their begins already say where the data starts.
uint64_t header_extent(const Header& h);
uint64_t header_extent(const Header& h, const LayoutOptions& options);

// Where a range of file bytes lies in the variables' data, for naming in a variable's own
// terms what an engine found in file bytes (two ranks writing the same ones): the variable
// whose data holds byte `offset`, the record (0 for a fixed variable), and the elements
// [first, end) of that record (or of the fixed variable) the range touches, cut at the end of
// the variable's data. var is -1 when no variable's data holds `offset` (header, padding).
struct DataPlace {
  int var = -1;
  uint64_t record = 0;
  uint64_t first = 0;
  uint64_t end = 0;
};
DataPlace locate(const Header& h, uint64_t offset, uint64_t length);

}  // namespace tapio::netcdf
