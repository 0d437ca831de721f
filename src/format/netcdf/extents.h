// Where a header's variables keep their data, checked as netCDF-C checks it when it opens a
// file (NC_check_voffs), so that a hostile header cannot make a reader return one variable's
// bytes as another's; and whether that data fits the file. Pure.
#pragma once
#include <cstdint>

#include "core/status.h"
#include "format/netcdf/header.h"

namespace tapio::netcdf {

// The data of the fixed variables lies after the header (which ends at byte header_end), no
// two overlapping, and before the record section (which starts at the lowest begin of a record
// variable); each record variable's slab lies inside one record (record_size() bytes), no two
// overlapping; and the header's numrecs records end below 2^63 (a STREAMING numrecs is not
// counted). A variable's data is its elements' bytes (vsize's padding may overlap: netCDF-C
// checks the padded size, so this accepts every file it accepts). TAPIO_ERR_FORMAT naming the
// variables and their bytes. decode() applies it.
Status check_extents(const Header& h, uint64_t header_end);

// OK if the data of every variable (of a record variable, its first `records` records) lies
// inside a file of file_size bytes; else TAPIO_ERR_FORMAT naming the first variable, in header
// order, whose data runs past the end ("truncated"). Expects a header check_extents() accepted
// with numrecs >= records (or a STREAMING numrecs and records that fit the file's size).
Status check_fits(const Header& h, uint64_t records, uint64_t file_size);

}  // namespace tapio::netcdf
