// The subfile engine (the ADIOS way of seed 000): no global reordering at write time. Ranks
// are grouped (one group per node by default); each group's ranks put their blocks in the
// group's own subfile — every rank writing its own bytes from its own buffers (direct), or
// sending them to the group's first rank, which writes them in pipelined rounds (aggregate).
// Per-step metadata says where every block is, and a step becomes visible when its index
// record is appended, after its data and metadata. Any number of readers read any selection,
// finding the blocks they need through a per-step interval index.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/engine.h"
#include "engine/plan_cache.h"
#include "engine/subfile/catalog.h"
#include "engine/subfile/put_stream.h"
#include "engine/subfile/subfile_spec.h"
#include "format/subfile/block_list.h"
#include "format/subfile/records.h"
#include "io/file.h"
#include "io/layers.h"
#include "io/background_writer.h"
#include "plan/group_layout.h"
#include "plan/intersect.h"

namespace tapio {

// What this rank wrote in the step being written, until its commit.
struct SubfileStep {
  std::vector<std::vector<uint8_t>> lists;  // its batches' block lists, encoded
  std::vector<subfile::BlockShape> shapes;  // its blocks (compared with the previous step's)
  uint64_t flags = 0;                       // what its records hold (kStep... flags)
};

// A reader's plans (subfile_read.cpp): where a get's selection meets a stored block, and the
// interval of the first dimension it spans, planned once for every step and variable that
// reads the same selection.
struct ReadPlan {
  std::vector<plan::Overlap> overlaps;
  uint64_t lo = 0, hi = 0;
  uint64_t memory() const { return overlaps.capacity() * sizeof(plan::Overlap); }
};
using ReadPlans = PlanCache<ReadPlan>;

class SubfileEngine final : public Engine {
 public:
  static Result<std::unique_ptr<Engine>> open(EngineEnv env);
  ~SubfileEngine() override;
  // A writer's definitions record describes variables defined after open (subfile_commit.cpp).
  bool takes_new_variables() const override { return mode() != OpenMode::kRead; }

 private:
  // Bytes described (summed) and then written or copied in one go: small enough to stay in a
  // core's L2 cache between the two, large enough that storage sees large requests.
  static constexpr uint64_t kPiece = 1 << 20;

  explicit SubfileEngine(EngineEnv env);
  std::string file_path(const std::string& name) const;

  // Opening for writing (subfile_setup.cpp): the directory, the index, the groups and their
  // subfiles.
  Status create();
  Status open_append();
  // Rank 0, write and append: the writer's lock on tapio.lock (io/write_lock.h), before any of
  // the dataset's files changes; `create` (write mode) makes the directory first.
  Status lock_dataset(bool create);
  Status setup_writers();
  Status open_subfile();

  // Data (subfile_write.cpp): a batch of puts becomes this rank's region of the group's
  // subfile, written directly or through the group's first rank; `local` carries a failure
  // (a failed rank still takes part, with nothing to write).
  Status write_puts(const std::vector<PutOp>& puts, uint64_t step) override;
  Status write_batch(const std::vector<PutOp>& puts, Status* local);
  // Collective over the group: every rank's region. `room`: whether this rank, the group's
  // first when it aggregates, has its round buffers; *leader_room: whether the first has.
  Result<plan::GroupLayout> place(uint64_t bytes, bool room, bool* leader_room);
  Status write_direct(const subfile::PutStream& stream, uint64_t offset,
                      std::vector<subfile::BlockSums>* sums);
  Status send_rounds(const subfile::PutStream& stream, const plan::GroupLayout& layout,
                     std::vector<subfile::BlockSums>* sums);
  Status write_rounds(const subfile::PutStream& stream, const plan::GroupLayout& layout,
                      std::vector<subfile::BlockSums>* sums);
  Status receive_round(uint64_t k, const plan::GroupLayout& layout,
                       const subfile::PutStream& stream, subfile::BlockSummers* summers,
                       uint8_t* buf, uint64_t length, bool* lost);
  void copy_own_part(const subfile::PutStream& stream, subfile::BlockSummers* summers,
                     uint64_t at, uint64_t n, uint8_t* out);

  // Async (subfile_async.cpp): a step's data and metadata are copied into buffers that
  // background jobs write; its index record is queued behind them once the next end_step (or
  // close) has agreed that every rank's writes of the step succeeded.
  Status write_direct_behind(const subfile::PutStream& stream, uint64_t offset,
                             std::vector<subfile::BlockSums>* sums);
  Status receive_round_behind(uint64_t k, const plan::GroupLayout& layout,
                              const subfile::PutStream& stream, subfile::BlockSummers* summers,
                              bool* lost);
  // Queue the write of `size` bytes at `data` to `offset` of `file` (waiting for room within
  // async_buffer); the job keeps `owner`, which holds the bytes, until written. `what` names
  // the file in a failure.
  void write_behind(io::File* file, uint64_t offset, std::shared_ptr<const void> owner,
                    const uint8_t* data, uint64_t size, const char* what);
  void flush_behind();             // the step's data flushed (and synced) behind its writes
  Status settle_pending();         // collective: the pending step's writes agreed, index queued
  // This batch's block list: shapes (selections found in or added to this rank's table).
  subfile::BlockList describe(const std::vector<PutOp>& puts);

  // Operators (subfile_operators.cpp): each variable's, from the `operator` parameter
  // (TAPIO_ERR_CONFIG naming the variable); the definitions as stored (with each operator's
  // attributes); a batch's puts as stored (encoded where an operator applies).
  Status resolve_operators();
  IoDef stored_definitions() const;
  struct StoredPuts {
    std::vector<PutOp> puts;                   // data: the encoded buffer of a coded block
    std::vector<std::vector<uint8_t>> buffers;  // per block, empty unless coded
  };
  StoredPuts encode_puts(const std::vector<PutOp>& puts, subfile::BlockList* list);
  uint32_t selection_id(const plan::Selection& sel, subfile::BlockList* list);

  // The commit (subfile_commit.cpp): this rank's metadata records, the backend that stores
  // them, the overlap check when some rank's blocks changed shape, the index record.
  Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local) override;
  std::vector<uint8_t> step_records(uint64_t* checksum_sum);
  Status commit_gather(uint64_t step, std::vector<uint8_t> records, const Status& local,
                       bool changed);
  Status commit_log(uint64_t step, const std::vector<uint8_t>& records, uint64_t sum,
                    Status local, bool changed);
  // The one reduction every commit makes: totals of record bytes and checksums, what the
  // step's records hold (its index flags), and whether a rank failed (then the step fails on
  // every rank with the lowest failing rank's error) or changed the shape of its blocks (then
  // the step is checked for overlaps).
  struct Vote {
    uint64_t bytes = 0, checksum = 0, flags = 0;
  };
  Status vote(const Vote& mine, const Status& local, bool changed, Vote* total);
  // The blocks the overlap check covers: not those of joined variables, which their placement
  // keeps apart (engine/joined.h) and whose lengths change every step.
  std::vector<subfile::BlockShape> checked_shapes(const std::vector<subfile::BlockShape>& all) const;
  Status append_index(const subfile::StepRecord& record);
  struct Ends {  // where the index and the metadata ended before a commit
    uint64_t index = 0;
    uint64_t md = 0;
  };
  Status roll_back(Status failed, const Ends& before);
  subfile::StepRecord new_record(uint64_t step) const;  // of this writer generation
  subfile::StepRecord end_record() const;               // the dataset ends here
  subfile::StepRecord open_record() const;              // this writer opened the dataset
  // Version 5 on: the writer's state is recorded (open records, commit times, commit records).
  bool records_writer_state() const { return version_ >= subfile::kWriterStateVersion; }
  // The copy of an index record that follows its region in tapio.md (none before version 5),
  // padded to metadata_chunk.
  std::vector<uint8_t> commit_record(const subfile::StepRecord& record) const;
  // Rank 0: `record` committed: its copy in tapio.md at `at`, then the index record.
  Status commit_index(const subfile::StepRecord& record, uint64_t at);
  Status close_file(io::File* f, bool sync);
  Status check_redeclared() const;  // append: the dataset's variables declared alike
  // A step failed (or its writes did): what its block lists told the readers is forgotten.
  void forget_step(size_t selections, size_t definitions);

  // Read side (subfile_read.cpp).
  Status open_read();
  // Collective: new index records and their metadata; `local` is a failure to carry on its
  // agreement (opening the index).
  Status load_metadata(Status local = ok_status());
  Result<std::vector<uint8_t>> fetch_new_metadata();  // the bytes load_metadata decodes
  Status read_index_header();
  void adopt_definitions();
  Status ensure_loaded(uint64_t step);  // local: the step's blocks, read on first need
  Status read_gets(const std::vector<GetOp>& gets) override;
  Result<std::vector<plan::Selection>> stored_blocks(int var, uint64_t step) override;
  Result<StoredSize> sum_stored(int var) override;  // subfile_operators.cpp
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
  Status refresh_steps() override;
  Result<StepStatus> end_of_steps() override;
  uint64_t available_steps() const override;

  Status close_files() override;

  SubfileSpec spec_;
  // Rank 0, write and append: held until the engine is destroyed, after every other member.
  std::unique_ptr<io::WriteLock> lock_;
  std::unique_ptr<io::File> index_;   // write: rank 0; read: rank 0 (delegate) or all
  std::unique_ptr<io::File> md_;      // write: metadata writers; read: as index_
  uint64_t index_end_ = 0;            // bytes of the index consumed or written
  uint64_t md_end_ = 0;               // end of the last committed metadata region
  uint32_t generation_ = 0;
  uint32_t version_ = subfile::kVersion;  // of the dataset's format (read from its index)

  // Writers.
  std::unique_ptr<comm::Comm> group_;  // this rank's group (absent with a file per rank)
  uint32_t subfile_ = 0;              // the group's subfile number
  std::unique_ptr<io::File> data_;    // direct: every rank; aggregate: the group's first rank
  uint64_t data_end_ = 0;             // the subfile's end after the last batch
  subfile::WriterTable table_;        // this rank's selections and last shapes
  std::unordered_multimap<uint64_t, uint32_t> selection_ids_;  // selection hash -> id
  // Readers' plans; writers only mark their batches with it (a writer's plan is its table
  // of selections, found by hash: selection_id).
  ReadPlans plans_{&profile()};
  bool aggregate_ = false;  // this rank's group sends its data to the group's first rank
  SubfileStep step_;       // this step's writes
  // What this rank put in the previous step: when this step's differ on some rank, the
  // step's blocks are checked for overlaps.
  std::vector<subfile::BlockShape> last_step_shapes_;
  std::optional<std::vector<subfile::OperatorRule>> operator_rules_;  // parsed on first need
  std::vector<subfile::Operator> operators_;  // per variable (none for most)
  size_t definitions_sent_ = SIZE_MAX;  // rank 0: variable count last described
  // Its thread runs on the group's first rank (aggregate) and, with async, on every rank.
  io::BackgroundWriter writer_{{false, &profile().background_write_ns}};
  ByteBuffer round_bufs_[2];                 // aggregate: the rounds being received / written
  // Async: the step whose data and metadata writes are queued, its index record not yet, and
  // what the writer tables held before it (restored when its writes failed).
  struct Pending {
    subfile::StepRecord record;
    size_t selections = 0, definitions = 0;
    uint64_t index_at = 0;  // rank 0: where its index record goes
  };
  std::optional<Pending> pending_;
  std::optional<Pending> indexing_;  // the step whose index record is queued
  uint64_t indexed_ = 0;  // rank 0: steps whose index record was written (the thread's; read
                          // only after a drain, which orders it)
  // Settling failed: the step the program writes next (the oldest one not in the index),
  // agreed with rank 0, and the writer's state rolled back to before it.
  Status redo_from(const Pending& pending, Status failed);

  // Readers.
  subfile::Catalog catalog_;
  // The time of the writer's latest index record (seconds since 1970), or, where the dataset
  // does not record it (before version 5), when this reader first saw that record.
  uint64_t last_activity_ = 0;
  Status deferred_read_error_;  // a served read failed: reported after the exchange
  std::map<std::pair<uint32_t, uint32_t>, std::unique_ptr<io::File>> data_files_;
};

}  // namespace tapio
