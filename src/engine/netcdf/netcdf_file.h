// NetCDF file access shared by the engines that write one NetCDF file (serial, mpiio,
// collective): header read/write through the io layer, numrecs updates, layout parameters.
#pragma once
#include <memory>

#include "comm/comm.h"
#include "format/netcdf/header.h"
#include "format/netcdf/layout.h"
#include "io/file.h"
#include "io/layers.h"

namespace tapio::ncfile {

// Read and decode the header of an open file (reads 64 KiB, more if the header is longer).
Result<netcdf::Header> read_header(io::File& file);

// Rewrite the numrecs field: the last write of a step, which makes the step visible.
Status write_numrecs(io::File& file, const netcdf::Header& h, uint64_t numrecs);

// Collective: rank 0 reads the header of `file` (non-null on rank 0 only) and every rank gets
// the decoded header. The same status on every rank.
Result<netcdf::Header> bcast_header(const comm::Comm& comm, io::File* file);

// Collective: rank 0 opens `path` in `storage`; others get nullptr. The same status on every
// rank.
Result<std::unique_ptr<io::File>> open_on_root(const comm::Comm& comm, io::Storage& storage,
                                              const std::string& path, io::OpenMode mode,
                                              io::Counters* counters,
                                              const io::LayerSpec& layers);

}  // namespace tapio::ncfile
