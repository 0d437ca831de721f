// What a tapio dataset's index says about its writer: whether it closed the dataset, how many
// steps it committed and when it last wrote a record. Read from tapio.idx directly (no MPI),
// for `tapio ls` and `tapio repair`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "format/subfile/records.h"

namespace tapio::cli {

struct WriterState {
  uint32_t version = 0;                    // of the dataset's format
  std::vector<subfile::StepRecord> steps;  // the committed steps' index records, in order
  bool closed = false;                     // the last record is an end record
  uint32_t last_time = 0;                  // of the last record (0: not recorded)
};

// The index of dataset `dir`, as a reader sees it: a torn last record is a step not committed;
// a corrupt record before valid ones is TAPIO_ERR_CHECKSUM naming it.
Result<WriterState> read_writer_state(const std::string& dir);

// "2026-11-27 14:58:08 UTC"
std::string utc_text(uint32_t seconds);

// The whole of a file of the dataset (errors name it).
Result<std::vector<uint8_t>> read_whole(const std::string& path);

}  // namespace tapio::cli
