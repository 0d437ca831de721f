// The subfile engine (the ADIOS way of seed 000): no global reordering at write time. Ranks are
// grouped (one group per node by default); each group's aggregator appends its ranks' blocks to
// its own subfile; per-step metadata says where every block is, and a step becomes visible
// when its index record is appended, after its data and metadata. Any number of readers read
// any selection, finding the blocks they need through a per-step interval index.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "engine/engine.h"
#include "engine/subfile/catalog.h"
#include "format/subfile/records.h"
#include "io/file.h"

namespace tapio {

class SubfileEngine final : public Engine {
 public:
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);

 private:
  explicit SubfileEngine(EngineEnv env);
  std::string file_path(const std::string& name) const;

  // Write side (subfile_write.cpp).
  Status create();
  Status open_append();
  Status setup_writers();
  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status commit_step(uint64_t step) override;
  Status write_metadata(const std::vector<uint8_t>& mine, uint64_t mine_sum,
                        subfile::StepRecord* record);
  Status append_index(const subfile::StepRecord& record);

  // Read side (subfile_read.cpp).
  Status open_read();
  Status load_metadata();  // collective: new index records and their metadata
  Result<std::vector<uint8_t>> fetch_new_metadata();  // the bytes load_metadata decodes
  Status read_gets(const std::vector<GetOp>& gets) override;
  // Bytes [from, to) of block `entry` of `step` (from and to on checksum chunk boundaries).
  struct ChunkRequest {
    uint64_t step;
    uint32_t entry;
    uint64_t from, to;
  };
  // Collective (subfile_fetch.cpp): every subfile is served by one rank, which reads the union
  // of all readers' requests once, verifies the chunks and replies; replies[i] answers
  // requests[i].
  Status fetch_chunks(const std::vector<ChunkRequest>& requests,
                      std::vector<std::vector<uint8_t>>* replies);
  Status serve_chunks(uint32_t expected, std::vector<std::vector<uint8_t>>* out,
                      std::vector<MPI_Request>* sends);
  int server_of(uint32_t generation, uint32_t subfile) const;
  Result<io::File*> data_file(uint32_t generation, uint32_t subfile);
  Status refresh_steps() override;
  bool stream_may_grow() const override;
  uint64_t available_steps() const override;

  Status close_files() override;

  // Shared state.
  bool delegate_reads_ = true;        // metadata_read = delegate: rank 0 reads, others receive
  std::unique_ptr<io::File> index_;   // write: rank 0; read: rank 0 (delegate) or all
  std::unique_ptr<io::File> md_;      // write: metadata writers; read: as index_
  uint64_t index_end_ = 0;            // bytes of the index consumed or written
  uint64_t md_end_ = 0;               // end of the last committed metadata region
  uint32_t generation_ = 0;

  // Writers.
  std::optional<comm::Comm> group_;   // this rank's aggregation group
  uint32_t writer_ = 0;               // group index = subfile number
  bool is_writer_ = false;            // group rank 0: writes the subfile
  std::unique_ptr<io::File> data_;    // writers: data.<generation>.<writer>
  uint64_t data_end_ = 0;
  subfile::BlockList step_blocks_, previous_blocks_;
  bool has_previous_ = false;
  size_t definitions_sent_ = SIZE_MAX;  // rank 0: variable count last described

  // Readers.
  subfile::Catalog catalog_;
  Status deferred_read_error_;  // a served read failed: reported after the exchange
  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<io::File>> data_files_;
};

}  // namespace tapio
