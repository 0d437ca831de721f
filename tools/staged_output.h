// An output file written under a temporary path and renamed into place once whole (`tapio
// convert`, docs/reliability.md): a run killed part-way leaves the final path as it was, never
// a valid file holding only the first steps. The temporary path keeps the file's name inside a
// hidden directory beside it, DIR/.NAME.tapio-partial/NAME, so that the rename stays on one
// file system and what a killed run left is plainly named. A run killed before left that
// directory behind: the next run to the same path reuses it.
#pragma once
#include <string>

#include "comm/comm.h"
#include "core/status.h"

namespace tapio::cli {

class StagedOutput {
 public:
  // Collective: rank 0 creates the hidden directory; agreed.
  static Result<StagedOutput> create(const comm::Comm& comm, const std::string& final_path);

  const std::string& path() const { return partial_; }  // where to write
  // Collective, once the file is closed: rank 0 renames it into place, syncs the directory
  // and removes the hidden one; agreed.
  Status commit(const comm::Comm& comm) const;
  // Rank 0 removes what was written and the hidden directory; the final path is untouched.
  void discard(const comm::Comm& comm) const;

 private:
  std::string final_, dir_, partial_;
};

}  // namespace tapio::cli
