// What every rank must give tapio the same (definitions at open, the config file at init),
// compared across ranks: one 16-byte reduction of a hash when they agree, and an error on every
// rank naming the first difference and the ranks that differ when they do not.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "comm/comm.h"

namespace tapio::api {

// One thing compared: a hash of its contents, and how to name it in an error.
struct Item {
  uint64_t hash;
  std::string description;
};

class Items {
 public:
  void add(std::string description, const void* contents, size_t bytes);
  void add(std::string description, const std::vector<uint8_t>& contents) {
    add(std::move(description), contents.data(), contents.size());
  }
  // A count of what follows, first, so a missing or extra item is named as a count.
  void add_count(uint64_t n, const std::string& what);
  const std::vector<Item>& list() const { return items_; }

 private:
  std::vector<Item> items_;
};

// Collective. OK when every rank has the same items. Otherwise `code` on every rank:
// "{what}: rank 0 has X, rank R has Y (K of P ranks differ from rank 0)", X and Y the first
// item where some rank differs from rank 0 and R the lowest such rank. `built`: how building
// the items went on this rank (an allocation may fail on one rank only), agreed on first, in
// the same reduction.
Status check_same_everywhere(const comm::Comm& comm, const Status& built, const Items& items,
                             Code code, const std::string& what);

}  // namespace tapio::api
