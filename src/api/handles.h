// What the opaque C handles stand for. A handle is a token of the handle table (handle_table.h),
// never the address of these objects: each registers its token when made and retires it when
// destroyed, and every call resolves its handles before touching anything.
#pragma once
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "api/handle_table.h"
#include "comm/mpi_comm.h"
#include "comm/node_memory.h"
#include "comm/topology.h"
#include "core/config.h"
#include "core/model.h"
#include "sim/auto_params.h"
#include "engine/engine.h"
#include "plan/selection.h"
#include "tapio/tapio.h"

namespace tapio::api {

struct IoState;
struct EngineState;
struct DecompState;

struct ContextState {
  Registration<tapio_context, HandleKind::kContext> registration{this};
  comm::MpiComm comm;
  // Engines' large buffers between files: at most 256 MiB stay cached, freed at finalize.
  BufferPool buffers{256u << 20};
  // The nodes MPI reports for comm, found once (it takes a communicator split and an
  // allgather): the machine does not change between files.
  std::optional<comm::Topology> detected;
  // Node shared memory for node-local aggregation, made at the first open that uses it.
  std::shared_ptr<comm::NodeMemory> node_memory;
  // What the closed files planned, for later files of their layouts (engine/kept_plans.h).
  PlanMemories plan_memory;
  std::optional<Config> config;
  // The cluster model's choices of "auto" parameters, made once per kind of file.
  sim::AutoChoices auto_choices;
  std::deque<std::unique_ptr<IoState>> ios;
  std::deque<std::unique_ptr<EngineState>> engines;  // null once closed
  std::deque<std::unique_ptr<DecompState>> decomps;   // freed by tapio_decomp_free
};

// A variable handle is found by name each time, so it stays valid when opening a file for
// reading replaces the IO's definitions. It carries this rank's selection.
struct VarState {
  Registration<tapio_var, HandleKind::kVar> registration{this};
  IoState* io = nullptr;
  std::string name;
  plan::SharedSelection sel;  // set while has_selection
  bool has_selection = false;
  Status rejected;  // why the last selection given was refused: its next put or get fails
  uint64_t step_start = 0;
  uint64_t step_count = 0;  // 0 = the current step
};

struct IoState {
  Registration<tapio_io, HandleKind::kIo> registration{this};
  ContextState* ctx = nullptr;
  IoDef def;
  std::deque<std::unique_ptr<VarState>> vars;  // handles, found again by name
  std::unordered_map<std::string, VarState*> var_by_name;  // each of `vars`, by its name
};

struct EngineState {
  Registration<tapio_engine, HandleKind::kEngine> registration{this};
  ContextState* ctx = nullptr;
  IoState* io = nullptr;
  std::unique_ptr<Engine> engine;
};

// A decomposition (tapio_decomp_from_offsets): this rank's selection of arrays of one shape,
// made and checked once; every variable that takes it shares the object, so an engine finds
// it by address, never reading its runs again.
struct DecompState {
  Registration<tapio_decomp, HandleKind::kDecomp> registration{this};
  ContextState* ctx = nullptr;
  std::vector<uint64_t> shape;
  plan::SharedSelection sel;
};

// The state behind each kind of handle.
template <typename Handle> struct StateOf;
template <> struct StateOf<tapio_context> { using type = ContextState; };
template <> struct StateOf<tapio_io> { using type = IoState; };
template <> struct StateOf<tapio_var> { using type = VarState; };
template <> struct StateOf<tapio_engine> { using type = EngineState; };
template <> struct StateOf<tapio_decomp> { using type = DecompState; };

// How a call names a null handle of each kind, and one no longer valid (in HandleKind order).
constexpr const char* kHandleNames[] = {"context", "IO handle", "variable handle",
                                        "engine handle", "decomposition handle"};
constexpr const char* kStaleHandles[] = {
    "not a valid context: it was finalized",
    "not a valid IO handle: its context was finalized",
    "not a valid variable handle: its context was finalized",
    "not a valid engine handle: it was closed or its context finalized",
    "not a valid decomposition handle: it was freed or its context finalized",
};

// The state behind a live handle, or TAPIO_ERR_ARG for a null, closed or finalized one.
template <typename Handle>
Result<typename StateOf<Handle>::type*> resolve(Handle* handle) {
  using State = typename StateOf<Handle>::type;
  constexpr HandleKind kind = decltype(State::registration)::kKind;
  const auto k = static_cast<size_t>(kind);
  if (!handle) return error(TAPIO_ERR_ARG, "{} is null", kHandleNames[k]);
  void* state = HandleTable::instance().find(reinterpret_cast<uintptr_t>(handle), kind);
  if (!state) return Status(TAPIO_ERR_ARG, kStaleHandles[k]);
  return static_cast<State*>(state);
}

}  // namespace tapio::api
