// Where each variable's data goes: header extent, data alignment, record layout.
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
Status compute_layout(Header& h, const LayoutOptions& options);

// Bytes available for the header: the begin of the first variable (or, with no variables,
// encoded_size + header_pad rounded to data_align). A new header fits if encoded_size <= this.
uint64_t header_extent(const Header& h);

}  // namespace tapio::netcdf
