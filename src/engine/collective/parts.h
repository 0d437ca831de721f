// What the collective engine is made of, apart from its NetCDF file (netcdf_dataset.h): who
// aggregates and where their round slots are (Aggregation), the data-path buffers kept from
// step to step (Buffers), the data file and its write-behind thread (DataFile), and the view
// of them that a batch's pipeline works with (Parts).
#pragma once
#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "comm/node_memory.h"
#include "core/byte_buffer.h"
#include "engine/collective/collective_spec.h"
#include "engine/collective/kept_rounds.h"
#include "engine/collective/shared_reads.h"
#include "engine/profile.h"
#include "format/netcdf/header.h"
#include "io/file.h"
#include "io/background_writer.h"
#include "io/storage.h"
#include "plan/coverage.h"
#include "plan/exchange.h"
#include "plan/segments.h"

namespace tapio::collective {

// Two-level aggregation (two_level): the ranks of a node hand their pieces for aggregators on
// other nodes to one rank of the node, its gatherer, over the node's communicator; the
// gatherer sends each such aggregator one segment list and one data message per round for
// the whole node, so an aggregator receives a message per node instead of one per rank.
struct NodeGather {
  std::shared_ptr<comm::NodeMemory> node;  // the node's communicator; null: one-level
  int gatherer = -1;                       // the gatherer's rank on the node
  bool gathering = false;                  // this rank is its node's gatherer
  std::vector<uint8_t> remote;             // per aggregator: 1 when it is on another node
  // The gatherer met a malformed hand-over: its data messages (how many, the packet cannot
  // say) may still be queued, and a later round could take them for its own, so every later
  // round this gatherer forwards is lost (its steps fail on every rank), never wrong.
  bool poisoned = false;
  bool on() const { return node != nullptr; }
  bool through(int agg) const { return node && remote[agg]; }
};

// Who aggregates, and — with node shared memory — where the round slots of the aggregators on
// this node live: `slot_count` slots each in the node's shared window (two: one assembling, one
// being written; more with async output, so a step's last rounds are written behind end_step),
// which this node's ranks copy their pieces straight into (reads: out of).
struct Aggregation {
  std::vector<int> ranks;                  // rank of each aggregator, in domain order
  int mine = -1;                           // this rank's aggregator index, or -1
  std::shared_ptr<comm::NodeMemory> node;  // the context's, when shared_memory is on
  std::vector<int> node_rank;              // each aggregator's rank on this node, or -1
  std::vector<int> here;                   // the aggregators on this node (a node's few)
  uint64_t slot_bytes = 0;                 // one round slot in the shared window
  int slot_count = 2;                      // round slots per aggregator
  int node_readers = 1;  // the most ranks of this node that read one aggregator's round
  bool slots = false;                      // this call uses the shared window
  NodeGather gather;                       // two_level, writes

  // Aggregator agg's slot for window w, indexed by file offset, or null when agg is not on
  // this node or the window is not in use.
  uint8_t* window(int agg, int slot, const plan::Extent& w) const {
    if (!slots || node_rank[agg] < 0) return nullptr;
    return node->memory_of(node_rank[agg]) + slot * slot_bytes - w.offset;
  }
  // Where aggregator agg publishes the reads of its slot `slot` when its node's ranks share
  // them (shared_reads.h), after its slots; null as window().
  SharedReads* shared_reads(int agg, int slot) const {
    if (!slots || node_rank[agg] < 0) return nullptr;
    uint8_t* at = node->memory_of(node_rank[agg]) + tables_at() +
                  static_cast<uint64_t>(slot) * sizeof(SharedReads);
    return reinterpret_cast<SharedReads*>(at);
  }
  // Where the tables begin in an aggregator's shared bytes, and how many bytes it has.
  uint64_t tables_at() const {
    return (static_cast<uint64_t>(slot_count) * slot_bytes + 63) / 64 * 64;
  }
  uint64_t shared_bytes() const {
    return tables_at() + static_cast<uint64_t>(slot_count) * sizeof(SharedReads);
  }
  // Whether `rank` shares this call's slots (its pieces travel through memory, not messages).
  bool on_node(int rank) const { return slots && node->node_rank_of(rank) >= 0; }
  // Whether some aggregator is on another node (or there are no shared slots).
  bool any_remote() const;
};

// Data-path buffers, kept from step to step (no zeroing, no page faults after the first); the
// large ones come from the context's pool and go back to it.
struct Buffers {
  ByteBuffer staging;                     // this rank's data (read, or written as messages)
  std::vector<ByteBuffer> round;          // aggregator: one per round slot (slot_count)
  // Segment lists, one per destination: a write's by list set (round % 2), a read's in [0].
  std::vector<ByteBuffer> send[2];
  ByteBuffer recv;                        // a two-level packet, or its data
  // Aggregator: the segment lists of one round, one per sender (read where they lie until
  // the round is assembled or answered).
  std::vector<ByteBuffer> lists;
  // Aggregator: per peer, the data of many small irregular pieces, received (writes) or sent
  // (read replies) contiguously and copied piece by piece.
  std::vector<ByteBuffer> scratch;
  // Aggregator: the bytes of the current window that arrived (writes), or its 4 KiB blocks
  // that are read (reads: read_rounds.cpp).
  plan::ByteMap covered;
  std::vector<KeptRound> kept;  // aggregator: each round of the last batch assembled in full
  // Two-level, by list set (round % 2): a rank's segment lists for its gatherer; the
  // gatherer's combined list per aggregator and its node's data of the round.
  ByteBuffer handed[2];
  std::vector<ByteBuffer> forward[2];
  ByteBuffer gathered[2];
};

// The data file, opened by each rank on its first own request (aggregators and ranks going
// direct; an error surfaces at the agreement that ends the call), and its background writer,
// whose thread an aggregator starts on its first pipelined write. With async output (`async`),
// every write of a step and its sync (fsync = step) go to that thread and stay queued past
// end_step; a failure a slot's wait meets is kept (the step it belongs to may have ended), and
// the step's commit waits for finish_writes, agreed on every rank, at the next end_step or
// close.
class DataFile {
 public:
  DataFile(io::Storage* storage, std::string path, bool read_only, Fsync fsync, bool async,
           Profile* profile)
      : storage_(storage),
        path_(std::move(path)),
        read_only_(read_only),
        fsync_(fsync),
        async_(async),
        profile_(profile),
        writer_({async, &profile->async.background_write_ns}) {}
  Result<io::File*> get();
  io::BackgroundWriter& writer() { return writer_; }
  bool async() const { return async_; }
  // Async: every queued write finished (a wait counted in the profile); the first failure
  // since the last call, including one a slot's wait met.
  Status finish_writes();
  // Whether written ranges start their writeback at once (the data must reach storage: fsync
  // is not `never`).
  bool eager() const { return fsync_ != Fsync::kNever; }
  // With fsync = step, each rank that wrote syncs its own descriptor before the commit: on a
  // parallel file system rank 0's fsync flushes only its own node's cache. Async: queued
  // behind the step's writes.
  Status sync_for_step();
  Status close(Status local);

 private:
  io::Storage* storage_;  // where the file lives (opened on first use)
  std::string path_;
  bool read_only_;
  Fsync fsync_;
  bool async_;
  Profile* profile_;
  std::unique_ptr<io::File> file_;
  io::BackgroundWriter writer_;  // after file_: its queued writes end before the file closes
};

// What a failed background write of `step` on `rank` says where it happened (async output: it
// surfaces at a later call).
inline std::string background_write_context(const std::string& where, uint64_t step, int rank) {
  return fmt::format("{}, step {}, rank {} (a background write)", where, step, rank);
}

// A variable written in a batch: its bytes in the file this step, and its fill pattern.
struct Target {
  int var;
  plan::Extent extent;
  uint8_t fill[8];
  size_t esize;
};

// The parts a batch's pipeline works with, lent by the engine for the batch.
struct Parts {
  const comm::Comm& comm;
  Profile& profile;
  const CollectiveSpec& spec;
  const netcdf::Header& header;
  Aggregation& agg;
  Buffers& bufs;
  DataFile& file;
  int node;  // this rank's node (the topology's)
  const std::vector<int>& node_of_rank;  // every rank's
  // Names a variable at a step in errors: "file 'x.nc', variable 'v', step s".
  std::function<std::string(int var, uint64_t step)> at_step;
  std::string where;  // "file 'x.nc'"
};

}  // namespace tapio::collective
