// The `cache` layer, for many small independent reads (IDDIO's cache, seed 002): reads are
// served from pages of `page` bytes kept in memory (at most `pages`, least recently used
// evicted); a miss reads its page, and a run of misses on consecutive pages reads ahead, twice
// as many pages each time (up to 8), in one request. Storage sees a few large reads instead of
// one per scalar.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

#include "io/file.h"

namespace tapio::io {

class ReadCache final : public File {
 public:
  ReadCache(std::unique_ptr<File> inner, uint64_t page, uint64_t pages);

  // Reads of at least a page go straight to the inner file.
  Status read_at(uint64_t offset, void* data, size_t n, size_t* got) override;
  // Writes go through and drop the pages they touch, so reads see them.
  Status write_at(uint64_t offset, const void* data, size_t n) override;
  Status write_gathered_at(uint64_t offset, const ConstBytes* pieces, size_t count) override;
  Status sync() override { return inner_->sync(); }
  Status flush() override { return inner_->flush(); }
  void start_writeback(uint64_t offset, uint64_t length) override {
    inner_->start_writeback(offset, length);
  }
  Status truncate(uint64_t size) override;
  Status allocate(uint64_t offset, uint64_t length) override;
  Result<uint64_t> size() override { return inner_->size(); }
  Status close() override { return inner_->close(); }
  const std::string& path() const override { return inner_->path(); }

 private:
  struct Page {
    std::vector<uint8_t> bytes;  // always a whole page: short pages (end of file) are not kept
    std::list<uint64_t>::iterator use;
  };

  // The page `index`, read (with read-ahead) on a miss; null past the end of the file, where
  // `*tail` gets what the file has of that page.
  Result<const Page*> page(uint64_t index, std::vector<uint8_t>* tail);
  Status load(uint64_t first, uint64_t count, std::vector<uint8_t>* tail);
  void keep(uint64_t index, std::vector<uint8_t> bytes);
  void drop(uint64_t offset, uint64_t n);

  std::unique_ptr<File> inner_;
  uint64_t page_;
  uint64_t capacity_;
  std::unordered_map<uint64_t, Page> pages_;
  std::list<uint64_t> uses_;  // page indices, most recently used first
  uint64_t last_miss_ = UINT64_MAX;
  uint64_t ahead_ = 1;  // pages the next sequential miss reads
};

}  // namespace tapio::io
