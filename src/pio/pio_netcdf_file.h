// What the PIO layer writes in a NetCDF file itself, through tapio's format library: data
// into frames the file already holds (a frame written again after a sync or a read), in
// place, since tapio's engines write each step once (docs/design.md, "The PIO layer"). Apart
// from pio.h: tapio's format headers and netCDF's macros share names.
#pragma once
#include <tapio/tapio_types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tapio_pio::netcdf_file {

struct Piece {
  std::string var;
  uint64_t frame = 0;
  const std::vector<uint64_t>* offsets = nullptr;  // elements of one record of the variable
  tapio_type memtype = TAPIO_INT32;
  const unsigned char* data = nullptr;  // offsets->size() elements of memtype, host order
};

// This task's pieces into the file at `path` (converted to each variable's type, big-endian),
// after the header is read. Local; returns "" or what failed.
std::string write(const std::string& path, const std::vector<Piece>& pieces);

}  // namespace tapio_pio::netcdf_file
