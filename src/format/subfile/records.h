// The subfile format's records, as pure code over bytes (spec: docs/format.md, "Subfile
// datasets"). Little-endian, 64-bit sizes everywhere, every record checksummed with XXH3-64.
//
//   dataset/tapio.idx   index header (64 B), then one 64-byte step record per committed step
//   dataset/tapio.md    metadata records: definitions, and one block list per writer per step
//                       (format/subfile/block_list.h)
//   dataset/data.G.K    data subfile K of writer generation G: each writer's blocks of a step
//                       back to back, from a block_align boundary
//
// A step is committed by appending its step record to the index, after its data and metadata
// are written: readers (and a writer killed mid-step) only ever see whole steps.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/model.h"
#include "core/status.h"

namespace tapio::subfile {

// Version 3 added operators (coded blocks); a version 2 dataset is one without them. Version 4
// added joined variables (kVarJoined). Version 5 added the writer's state: open records, commit
// times in step records, and a copy of each index record in tapio.md (kCommit) for repair.
// Version 6 added the declared dimensions at the end of the definitions record.
inline constexpr uint32_t kVersion = 6;
inline constexpr uint32_t kWriterStateVersion = 5;  // the first version recording it
inline constexpr uint32_t kDimensionsVersion = 6;   // the first version storing them
inline constexpr uint32_t kOldestVersion = 2;
inline constexpr uint64_t kIndexHeaderSize = 64;
inline constexpr uint64_t kStepRecordSize = 64;
inline constexpr uint64_t kChecksumChunk = 1u << 20;  // data checksums cover 1 MiB chunks
inline constexpr const char* kIndexName = "tapio.idx";
inline constexpr const char* kMetadataName = "tapio.md";
inline constexpr const char* kDataPrefix = "data.";
// The writer's lock (io/write_lock.h): a lock on it, and the holder's host, pid and time.
inline constexpr const char* kLockName = "tapio.lock";
std::string data_name(uint32_t generation, uint32_t subfile);  // "data.G.K"

uint64_t checksum(const void* data, size_t size);  // XXH3-64

// ---- index ------------------------------------------------------------------------------
std::vector<uint8_t> encode_index_header(uint32_t version = kVersion);
// A dataset of another format version is TAPIO_ERR_UNSUPPORTED, naming both versions. The
// version of a good header goes to `version` (if given).
Status check_index_header(const uint8_t* data, size_t size, uint32_t* version = nullptr);

// kOpen (version 5): a writer opened the dataset (created it or appended to it) at `time`; it
// is followed by its steps and, when it closes, by kEnd.
enum class StepKind : uint32_t { kStep = 1, kEnd = 2, kOpen = 3 };

struct StepRecord {
  StepKind kind = StepKind::kStep;
  uint64_t step = 0;
  uint64_t md_offset = 0;  // the step's metadata region in tapio.md
  uint64_t md_length = 0;
  uint64_t md_checksum = 0;  // sum of the XXH3-64 of the region's record payloads
  uint32_t generation = 0;   // writer generation (append from another rank count: a new one)
  uint32_t md_align = 0;     // records in the region start at multiples of this (0: packed)
  uint32_t flags = 0;        // what the region holds besides block lists (kStepHas...)
  uint32_t time = 0;         // version 5: seconds since 1970 (UTC) when written; 0 unknown
};
// Now, as a record's time.
uint32_t record_time();
// Step flags: a reader loads the regions that have any of these when it opens the dataset
// (they hold what later steps refer to), and any other step's region only when it reads it.
inline constexpr uint32_t kStepHasDefinitions = 1;  // the definitions record
inline constexpr uint32_t kStepAddsSelections = 2;  // block lists that add selections
inline constexpr uint32_t kStepHasFixed = 4;        // blocks of fixed (non-record) variables
inline constexpr uint32_t kStepFlags = 7;           // every flag this version knows
std::vector<uint8_t> encode_step(const StepRecord& r);
// Decode one 64-byte record. A torn or corrupt record is TAPIO_ERR_CHECKSUM.
Result<StepRecord> decode_step(const uint8_t* data, size_t size);
// TAPIO_ERR_FORMAT unless the record's metadata region lies inside a metadata file of
// `md_size` bytes: checked before a reader sizes a buffer for the region, so a hostile index
// cannot make it allocate more than the file holds.
Status check_region(const StepRecord& r, uint64_t md_size);

// ---- metadata records ---------------------------------------------------------------------
// kCommit (version 5) follows a step's region, outside it: the step's index record (or, after
// the last step, the end record) as its payload, so that `tapio repair` can rebuild the index.
enum class RecordKind : uint32_t { kDefinitions = 1, kBlocks = 2, kCommit = 3 };
inline constexpr uint64_t kRecordHeaderSize = 24;  // magic u32, kind u32, length u64, xxh u64
inline constexpr uint64_t kCommitRecordSize = kRecordHeaderSize + kStepRecordSize;

// Wrap a payload in a record header.
std::vector<uint8_t> encode_record(RecordKind kind, const std::vector<uint8_t>& payload);
struct Record {
  RecordKind kind;
  const uint8_t* payload;
  uint64_t length;
};
// The record at the start of `data`, its checksum verified: TAPIO_ERR_FORMAT when the bytes
// are not a whole record, TAPIO_ERR_CHECKSUM when its payload does not match.
Result<Record> read_record(const uint8_t* data, size_t size);
// Split a metadata region into its records (skipping alignment padding); verifies checksums.
Result<std::vector<Record>> split_records(const uint8_t* data, size_t size, uint32_t align);

// The definitions: variables, attributes and declared dimensions (a whole IoDef, without
// engine and parameters). A dataset of an older `version` gets no dimensions (its own tapio
// reads it still); decoding takes them when the record has them.
// A variable's flags byte in the definitions.
inline constexpr uint8_t kVarRecord = 1;  // a value per step
inline constexpr uint8_t kVarJoined = 2;  // a joined array (version 4)
std::vector<uint8_t> encode_definitions(const IoDef& io, uint32_t version = kVersion);
Result<IoDef> decode_definitions(const uint8_t* data, size_t size);

}  // namespace tapio::subfile
