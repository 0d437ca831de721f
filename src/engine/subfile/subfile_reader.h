// The subfile engine's reader: the dataset's index and metadata (the catalog: definitions,
// steps, blocks), the data files it has opened, and the plans of its gets. Read mode uses it
// for every read; append mode only to learn where the dataset ends (Tail).
#pragma once
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/plan_cache.h"
#include "engine/subfile/catalog.h"
#include "engine/subfile/subfile_parts.h"
#include "io/file.h"
#include "plan/intersect.h"

namespace tapio {

// A reader's plans (subfile_read.cpp): where a get's selection meets a stored block, and the
// interval of the first dimension it spans, planned once for every step and variable that
// reads the same selection.
struct ReadPlan {
  std::vector<plan::Overlap> overlaps;
  uint64_t lo = 0, hi = 0;
  uint64_t memory() const { return overlaps.capacity() * sizeof(plan::Overlap); }
};
using ReadPlans = PlanCache<ReadPlan>;

class SubfileReader {
 public:
  explicit SubfileReader(SubfileParts parts) : p_(std::move(parts)) {}

  // Collective (subfile_read_metadata.cpp): the index and metadata files opened and the
  // committed steps loaded; later, the steps committed since (read while writing).
  Status open();
  Status refresh() { return load_metadata(); }
  Result<StepStatus> end_of_steps();  // collective: the writer ended, may go on, or is gone
  uint64_t steps() const { return catalog_.steps(); }

  // Where an appending writer goes on: the dataset's definitions, generations and format
  // version, and the ends of its index and metadata.
  struct Tail {
    IoDef definitions;
    uint64_t steps = 0;
    uint32_t max_generation = 0;
    uint32_t version = 0;
    uint64_t index_end = 0, md_end = 0;
  };
  Tail tail() const;

  // Data (subfile_read.cpp, subfile_fetch.cpp, subfile_operators.cpp).
  Status read_gets(const std::vector<GetOp>& gets);  // collective
  Result<std::vector<plan::Selection>> stored_blocks(int var, uint64_t step);  // local
  Result<Engine::StoredSize> sum_stored(int var);                               // local
  Status close();

 private:
  // Metadata (subfile_read_metadata.cpp). Collective: new index records and their metadata;
  // `local` is a failure to carry on its agreement (opening the index).
  Status load_metadata(Status local = ok_status());
  Result<std::vector<uint8_t>> fetch_new_metadata();  // the bytes load_metadata decodes
  Status read_index_header();
  void adopt_definitions();
  Status ensure_loaded(uint64_t step);  // local: the step's blocks, read on first need
  bool records_writer_state() const { return version_ >= subfile::kWriterStateVersion; }

  // Bytes [from, to) of block `entry` of `step` (from and to on checksum chunk boundaries),
  // and where they go: `dst` when the bytes land there whole (read in place), else a buffer.
  struct ChunkRequest {
    uint64_t step;
    uint32_t entry;
    uint64_t from, to;
    uint8_t* dst = nullptr;
  };
  // Requests and, for each, the needs it serves ([first, last) of the sorted needs).
  struct Requests {
    std::vector<ChunkRequest> list;
    std::vector<std::pair<size_t, size_t>> needs;
  };
  void plan_requests(std::vector<subfile::Need>* needs, Requests* own, Requests* served);
  void deliver(const ChunkRequest& q, std::pair<size_t, size_t> range,
               const std::vector<subfile::Need>& needs, const uint8_t* bytes);
  // Each rank reads its large requests itself (subfile_read.cpp) ...
  Status read_own(const ChunkRequest& q, uint8_t* out);
  // ... and the small ones through the rank serving their subfile, which reads the union of
  // every reader's requests once (subfile_fetch.cpp); replies[i] answers requests[i].
  Status fetch_chunks(const std::vector<ChunkRequest>& requests,
                      std::vector<std::vector<uint8_t>>* replies);
  Status serve_chunks(uint32_t expected, std::vector<std::vector<uint8_t>>* out,
                      comm::Requests* sends);
  // The serving rank's steps (subfile_fetch.cpp): every asker's requests, checked against the
  // catalog, the union read once per subfile (as (offset, bytes) spans), each asker answered.
  struct Asker;
  using Spans = std::map<std::pair<uint32_t, uint32_t>,
                         std::vector<std::pair<uint64_t, std::vector<uint8_t>>>>;
  Status receive_asks(uint32_t expected, std::vector<Asker>* askers);
  Status check_asks(const std::vector<Asker>& askers);
  Status read_asked(const std::vector<Asker>& askers, Spans* spans);
  void answer(const Asker& a, const Spans& spans, std::vector<uint8_t>* reply, Status* local);
  Status verify(const ChunkRequest& q, const uint8_t* bytes) const;
  // A coded block, read whole and verified, decoded into `out` (subfile_operators.cpp).
  Result<const uint8_t*> decode(const ChunkRequest& q, const uint8_t* stored, ByteBuffer* out);
  int server_of(uint32_t generation, uint32_t subfile) const;
  Result<io::File*> data_file(uint32_t generation, uint32_t subfile);

  SubfileParts p_;
  std::unique_ptr<io::File> index_;  // rank 0 (metadata_read = delegate) or every rank
  std::unique_ptr<io::File> md_;     // as index_; other ranks open it on first need
  uint64_t index_end_ = 0;           // bytes of the index consumed
  uint64_t md_end_ = 0;              // end of the last committed metadata region
  uint32_t version_ = subfile::kVersion;  // of the dataset's format (read from its index)
  subfile::Catalog catalog_;
  ReadPlans plans_{&p_.profile};
  // The time of the writer's latest index record (seconds since 1970), or, where the dataset
  // does not record it (before version 5), when this reader first saw that record.
  uint64_t last_activity_ = 0;
  Status deferred_read_error_;  // a served read failed: reported after the exchange
  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<io::File>> data_files_;
};

}  // namespace tapio
