// The subfile engine (the ADIOS way of seed 000): no global reordering at write time. Ranks
// are grouped (one group per node by default); each group's ranks put their blocks in the
// group's own subfile — every rank writing its own bytes from its own buffers (direct), or
// sending them to the group's first rank, which writes them in pipelined rounds (aggregate).
// Per-step metadata says where every block is, and a step becomes visible when its index
// record is appended, after its data and metadata. Any number of readers read any selection,
// finding the blocks they need through a per-step interval index.
//
// The engine is a composition, as the collective engine is: its spec (parsed at open), a
// writer (subfile_writer.h: write and append modes) or a reader (subfile_reader.h: read mode),
// each owning its state, and the parts it lends them (subfile_parts.h).
#pragma once
#include <memory>
#include <vector>

#include "engine/engine.h"
#include "engine/subfile/subfile_parts.h"
#include "engine/subfile/subfile_reader.h"
#include "engine/subfile/subfile_spec.h"
#include "engine/subfile/subfile_writer.h"

namespace tapio {

class SubfileEngine final : public Engine {
 public:
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~SubfileEngine() override;
  // A writer's definitions record describes variables defined after open (subfile_commit.cpp).
  bool takes_new_variables() const override { return mode() != OpenMode::kRead; }

 private:
  explicit SubfileEngine(EngineEnv env);
  SubfileParts parts();
  // Collective, by mode: a new dataset; an existing one appended to (its definitions and the
  // program's merged, the next step its step count); an existing one read.
  Status create();
  Status open_append();
  Status open_read();

  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local) override;
  Status read_gets(const std::vector<GetOp>& gets) override;
  Result<std::vector<plan::Selection>> stored_blocks(int var, uint64_t step) override;
  Result<StoredSize> sum_stored(int var) override;
  Status refresh_steps() override;
  Result<StepStatus> end_of_steps() override;
  uint64_t available_steps() const override;
  Status close_files() override;

  SubfileSpec spec_;  // before the components, which refer to it
  std::unique_ptr<SubfileWriter> writer_;  // write and append
  std::unique_ptr<SubfileReader> reader_;  // read
};

}  // namespace tapio
