// The subfile engine's parameters, parsed once at open (subfile_spec.cpp); the cluster model
// (src/sim) parses them with the same function.
#pragma once
#include <cstdint>
#include <string>

#include "core/params.h"
#include "io/layers.h"

namespace tapio {

struct SubfileSpec {
  enum class Metadata { kGather, kLog, kAligned };
  enum class Write { kAuto, kDirect, kAggregate };  // subfile_write

  // Who writes the data files, and how.
  struct Writers {
    bool fpp = false;             // aggregators = all: a subfile per rank
    std::string aggregators = "auto";
    int per_node = 1;             // aggregators_per_node
    Write write = Write::kAuto;
    uint64_t round = 16 << 20;    // aggregate rounds (buffer_size)
  };
  // How the index and metadata records are written and read.
  struct MetadataSpec {
    Metadata mode = Metadata::kGather;
    uint64_t chunk = 1;           // aligned: records start at multiples of this
    bool delegate_reads = true;   // metadata_read = delegate
    uint64_t prefetch = 1 << 20;  // metadata read-ahead
  };
  // fsync: `step` syncs every step's data and index, anything but `never` syncs at close.
  struct Fsync {
    bool step = false;
    bool close = true;
  };

  Writers writers;
  uint64_t block_align = 4096;  // each rank's region of a step starts at a multiple of this
  bool stats = true;            // statistics = minmax
  MetadataSpec metadata;
  uint64_t merge_below = 256 << 10;
  Fsync fsync;
  bool async = false;           // writes and commits in the background (subfile_async.cpp)
  uint64_t async_buffer = 0;    // bytes the background writes may hold
  uint64_t writer_timeout = 3600;  // seconds without a commit after which a reader deems an
                                   // unclosed dataset's writer gone (0: never)
  io::LayerSpec layers;         // of the data files (io/layers.h); set by SubfileEngine::open
  std::string file_locking = "true";  // a writer's lock on tapio.lock (io/write_lock.h)

  static SubfileSpec parse(const Params& params);
};

}  // namespace tapio
