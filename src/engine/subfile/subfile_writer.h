// The subfile engine's writer (write and append modes): the dataset's index and metadata
// files, this rank's group and its subfile, the tables that describe its blocks, the operators,
// and the write-behind thread with the step whose index record waits for it (async).
#pragma once
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/byte_buffer.h"
#include "engine/subfile/put_stream.h"
#include "engine/subfile/subfile_parts.h"
#include "engine/subfile/subfile_reader.h"
#include "format/subfile/block_list.h"
#include "format/subfile/operators.h"
#include "format/subfile/records.h"
#include "io/background_writer.h"
#include "io/file.h"
#include "io/layers.h"
#include "io/write_lock.h"
#include "plan/group_layout.h"

namespace tapio {

// What this rank wrote in the step being written, until its commit.
struct SubfileStep {
  std::vector<std::vector<uint8_t>> lists;  // its batches' block lists, encoded
  std::vector<subfile::BlockShape> shapes;  // its blocks (compared with the previous step's)
  uint64_t flags = 0;                       // what its records hold (kStep... flags)
};

class SubfileWriter {
 public:
  explicit SubfileWriter(SubfileParts parts) : p_(std::move(parts)) {}
  ~SubfileWriter();

  // Opening (subfile_setup.cpp), collective. Write mode: the directory, the index, the groups
  // and their subfiles. Append: first the writer's lock (rank 0: lock_dataset(false), before
  // the dataset is read), then, from where the dataset ends, a new writer generation.
  // `prepared`: how this rank's preparation went, agreed on with the creation.
  Status create(const Status& prepared);
  // Rank 0, write and append: the writer's lock on tapio.lock (io/write_lock.h), before any of
  // the dataset's files changes; `create` (write mode) makes the directory first.
  Status lock_dataset(bool create);
  Status open_append(const SubfileReader::Tail& tail);
  // Each variable's operator, from the `operator` parameter (TAPIO_ERR_CONFIG naming the
  // variable); variables defined since the last call (subfile_operators.cpp).
  Status resolve_operators();

  // Collective: a batch of puts (perform_puts), and the end of a step (its commit).
  Status write_puts(const std::vector<PutOp>& puts);
  Status write_step(const std::vector<PutOp>& puts, uint64_t step, const Status& local);
  Status close();

 private:
  // Bytes described (summed) and then written or copied in one go: small enough to stay in a
  // core's L2 cache between the two, large enough that storage sees large requests.
  static constexpr uint64_t kPiece = 1 << 20;

  Status create_on_root();
  Status setup_writers();
  Status open_subfile();
  std::string data_path() const {  // the group's subfile
    return p_.file_path(subfile::data_name(files_.generation, group_.subfile));
  }

  // Data (subfile_write.cpp): a batch of puts becomes this rank's region of the group's
  // subfile, written directly or through the group's first rank; `local` carries a failure
  // (a failed rank still takes part, with nothing to write).
  Status write_batch(const std::vector<PutOp>& puts, Status* local);
  // Collective over the group: every rank's region. `room`: whether this rank, the group's
  // first when it aggregates, has its round buffers; *leader_room: whether the first has.
  Result<plan::GroupLayout> place(uint64_t bytes, bool room, bool* leader_room);
  Status write_direct(const subfile::PutStream& stream, uint64_t offset,
                      std::vector<subfile::BlockSums>* sums);
  // Aggregate (subfile_rounds.cpp).
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
  uint32_t selection_id(const plan::Selection& sel, subfile::BlockList* list);
  // A put's selection id: the variable's last one when it passes the same selection object
  // again (a map given every step), with no hash of its runs; else selection_id.
  uint32_t put_selection_id(const PutOp& put, subfile::BlockList* list);

  // Operators (subfile_operators.cpp): the definitions as stored (with each operator's
  // attributes); a batch's puts as stored (encoded where an operator applies).
  IoDef stored_definitions() const;
  struct StoredPuts {
    std::vector<PutOp> puts;                   // data: the encoded buffer of a coded block
    std::vector<std::vector<uint8_t>> buffers;  // per block, empty unless coded
  };
  StoredPuts encode_puts(const std::vector<PutOp>& puts, subfile::BlockList* list);

  // The commit (subfile_commit.cpp): this rank's metadata records, the backend that stores
  // them, the overlap check when some rank's blocks changed shape, the index record.
  std::vector<uint8_t> step_records(uint64_t* checksum_sum);
  Status commit_gather(uint64_t step, std::vector<uint8_t> records, const Status& local,
                       bool changed);
  Status commit_log(uint64_t step, const std::vector<uint8_t>& records, uint64_t sum,
                    Status local, bool changed);
  // The one reduction every commit makes: totals of record bytes and checksums, what the
  // step's records hold (its index flags), and whether a rank failed (then the step fails on
  // every rank with the lowest failing rank's error) or changed the shape of its blocks (then
  // the step is checked for overlaps). `resized`: the ranks whose records are not the length
  // they were at the last gather (the root: or that cannot hold that gather's room again).
  struct Vote {
    uint64_t bytes = 0, checksum = 0, flags = 0, resized = 0;
  };
  Status vote(const Vote& mine, const Status& local, bool changed, Vote* total);
  bool room_for_last_gather(std::vector<uint8_t>* all) const;
  std::string committing(uint64_t step) const;
  Status commit_on_root(std::vector<uint8_t> all, const Vote& total, subfile::StepRecord* record);
  // The blocks the overlap check covers: not those of joined variables, which their placement
  // keeps apart (engine/joined.h) and whose lengths change every step.
  std::vector<subfile::BlockShape> checked_shapes(
      const std::vector<subfile::BlockShape>& all) const;
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
  bool records_writer_state() const { return files_.version >= subfile::kWriterStateVersion; }
  // The copy of an index record that follows its region in tapio.md (none before version 5),
  // padded to metadata_chunk.
  std::vector<uint8_t> commit_record(const subfile::StepRecord& record) const;
  // Rank 0: `record` committed: its copy in tapio.md at `at`, then the index record.
  Status commit_index(const subfile::StepRecord& record, uint64_t at);
  Status close_file(io::File* f, bool sync);
  // A step failed (or its writes did): what its block lists told the readers is forgotten.
  void forget_step(size_t selections, size_t definitions);

  // Async: the step whose data and metadata writes are queued, its index record not yet, and
  // what the writer tables held before it (restored when its writes failed).
  struct Pending {
    subfile::StepRecord record;
    size_t selections = 0, definitions = 0;
    uint64_t index_at = 0;  // rank 0: where its index record goes
  };
  // Settling failed: the step the program writes next (the oldest one not in the index),
  // agreed with rank 0, and the writer's state rolled back to before it.
  Status redo_from(const Pending& pending, Status failed);

  SubfileParts p_;
  // The dataset's commit files and where they end.
  struct {
    // Rank 0: held until the writer is destroyed, after every other member.
    std::unique_ptr<io::WriteLock> lock;
    std::unique_ptr<io::File> index;  // rank 0
    std::unique_ptr<io::File> md;     // the metadata writers (rank 0 with metadata = gather)
    uint64_t index_end = 0;           // bytes of the index written
    uint64_t md_end = 0;              // end of the last committed metadata region
    uint32_t generation = 0;          // this writer's
    uint32_t version = subfile::kVersion;  // of the dataset's format (append: its index's)
  } files_;
  // This rank's group and its subfile.
  struct {
    std::unique_ptr<comm::Comm> comm;  // absent with a file per rank
    uint32_t subfile = 0;              // the group's subfile number
    bool aggregate = false;            // the group sends its data to its first rank
    std::unique_ptr<io::File> data;    // direct: every rank; aggregate: the group's first rank
    uint64_t data_end = 0;             // the subfile's end after the last batch
  } group_;
  subfile::WriterTable table_;  // this rank's selections and last shapes
  std::unordered_multimap<uint64_t, uint32_t> selection_ids_;  // selection hash -> id
  // By variable: the selection object its latest put passed (held, so its address is never
  // another selection's) and that selection's id.
  std::unordered_map<int, std::pair<plan::SharedSelection, uint32_t>> put_selections_;
  SubfileStep step_;  // this step's writes
  // What this rank put in the previous step: when this step's differ on some rank, the
  // step's blocks are checked for overlaps.
  std::vector<subfile::BlockShape> last_step_shapes_;
  // The last committed step's blocks (variable and selection), left in the context when the
  // dataset closes (none where `closed` failed), under its vars_key(), and taken by the first
  // step of a later dataset of that key, which needs no overlap check when every rank puts
  // the same selections (subfile_kept_check.cpp, engine/kept_plans.h).
  struct CheckedStep;
  std::unique_ptr<PlanMemory> carried_;  // a CheckedStep, until the dataset's first commit
  bool looked_for_step_ = false;          // take_checked_step ran
  std::vector<uint64_t> last_step_vars_;  // vars_key() at the last committed step
  // Every variable's shape and whether it is joined, flat (made with a step's commit lists,
  // where an allocation failure fails the step on every rank).
  std::vector<uint64_t> vars_key() const;
  // Moves, no copies: closing allocates nothing that could fail it.
  void keep_checked_step(bool closed);
  void take_checked_step(const std::vector<uint64_t>& vars);
  // Whether this step's blocks are those of the carried step.
  bool same_as_carried(const std::vector<subfile::BlockShape>& checked) const;
  // The gather backend's last gather: this rank's record bytes, and on rank 0 every rank's.
  // A step whose records are those lengths again on every rank (a steady step: the vote says
  // so) gathers them with the one gatherv, without first gathering and agreeing on sizes.
  struct {
    uint64_t mine = UINT64_MAX;  // none yet, or the last step failed
    std::vector<uint64_t> counts;
  } gathered_;
  // The `operator` parameter, parsed on first need, and each variable's (none for most).
  struct {
    std::optional<std::vector<subfile::OperatorRule>> rules;
    std::vector<subfile::Operator> of_var;
  } operators_;
  size_t definitions_sent_ = SIZE_MAX;  // rank 0: variable count last described
  // Its thread runs on the group's first rank (aggregate) and, with async, on every rank.
  io::BackgroundWriter writer_{{false, &p_.profile.async.background_write_ns}};
  ByteBuffer round_bufs_[2];  // aggregate: the rounds being received / written
  struct {
    std::optional<Pending> pending;
    std::optional<Pending> indexing;  // the step whose index record is queued
    uint64_t indexed = 0;  // rank 0: steps whose index record was written (the thread's; read
                           // only after a drain, which orders it)
  } async_;
};

}  // namespace tapio
