// What the opaque C handles hold.
#pragma once
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "comm/comm.h"
#include "comm/node_memory.h"
#include "comm/topology.h"
#include "core/config.h"
#include "core/model.h"
#include "engine/engine.h"
#include "plan/selection.h"
#include "tapio/tapio.h"

struct tapio_context {
  tapio::comm::Comm comm;
  // Engines' large buffers between files: at most 256 MiB stay cached, freed at finalize.
  tapio::BufferPool buffers{256u << 20};
  // The nodes MPI reports for comm, found once (it takes a communicator split and an
  // allgather): the machine does not change between files.
  std::optional<tapio::comm::Topology> detected;
  // Node shared memory for node-local aggregation, made at the first open that uses it.
  std::shared_ptr<tapio::comm::NodeMemory> node_memory;
  std::optional<tapio::Config> config;
  std::deque<std::unique_ptr<tapio_io>> ios;
  std::deque<std::unique_ptr<tapio_engine>> engines;
};

struct tapio_io {
  tapio_context* ctx = nullptr;
  tapio::IoDef def;
  std::deque<std::unique_ptr<tapio_var>> vars;  // handles, found again by name
};

// A variable handle is found by name each time, so it stays valid when opening a file for
// reading replaces the IO's definitions. It carries this rank's selection.
struct tapio_var {
  tapio_io* io = nullptr;
  std::string name;
  tapio::plan::Selection sel;
  bool has_selection = false;
  uint64_t step_start = 0;
  uint64_t step_count = 0;  // 0 = the current step
};

struct tapio_engine {
  tapio_context* ctx = nullptr;
  tapio_io* io = nullptr;
  std::unique_ptr<tapio::Engine> engine;
};
