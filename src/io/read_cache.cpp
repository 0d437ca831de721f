#include "io/read_cache.h"

#include <algorithm>
#include <cstring>

namespace tapio::io {
namespace {

constexpr uint64_t kMaxReadAhead = 8;  // pages in one read-ahead request

}  // namespace

ReadCache::ReadCache(std::unique_ptr<File> inner, uint64_t page, uint64_t pages)
    : inner_(std::move(inner)), page_(page), capacity_(std::max<uint64_t>(pages, 1)) {}

void ReadCache::keep(uint64_t index, std::vector<uint8_t> bytes) {
  auto found = pages_.find(index);
  if (found != pages_.end()) {
    uses_.erase(found->second.use);
    pages_.erase(found);
  }
  while (pages_.size() >= capacity_) {
    pages_.erase(uses_.back());
    uses_.pop_back();
  }
  uses_.push_front(index);
  pages_.emplace(index, Page{std::move(bytes), uses_.begin()});
}

// Reads `count` pages from page `first` in one request. A page the file holds whole is kept;
// the first page the file ends in goes to *tail, not into the cache, so that bytes a writer
// appends later are seen.
Status ReadCache::load(uint64_t first, uint64_t count, std::vector<uint8_t>* tail) {
  std::vector<uint8_t> run(count * page_);
  size_t got = 0;
  TAPIO_RETURN_IF_ERROR(inner_->read_at(first * page_, run.data(), run.size(), &got));
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t from = i * page_;
    if (got < from + page_) {
      if (i == 0) tail->assign(run.begin() + from, run.begin() + std::max<uint64_t>(got, from));
      break;
    }
    keep(first + i, std::vector<uint8_t>(run.begin() + from, run.begin() + from + page_));
  }
  return ok_status();
}

Result<const ReadCache::Page*> ReadCache::page(uint64_t index, std::vector<uint8_t>* tail) {
  auto found = pages_.find(index);
  if (found == pages_.end()) {
    // Consecutive misses are a sequential scan: read further ahead each time.
    ahead_ = last_miss_ + 1 == index ? std::min(ahead_ * 2, kMaxReadAhead) : 1;
    last_miss_ = index;
    TAPIO_RETURN_IF_ERROR(load(index, std::min(ahead_, capacity_), tail));
    found = pages_.find(index);
    if (found == pages_.end()) return static_cast<const Page*>(nullptr);
  }
  uses_.splice(uses_.begin(), uses_, found->second.use);
  return &found->second;
}

Status ReadCache::read_at(uint64_t offset, void* data, size_t n, size_t* got) {
  if (n >= page_) return inner_->read_at(offset, data, n, got);
  if (got != nullptr) *got = 0;
  uint8_t* out = static_cast<uint8_t*>(data);
  size_t done = 0;
  std::vector<uint8_t> tail;
  while (done < n) {
    const uint64_t at = offset + done;
    const uint64_t in_page = at % page_;
    TAPIO_ASSIGN_OR_RETURN(const Page* p, page(at / page_, &tail));
    const std::vector<uint8_t>& bytes = p != nullptr ? p->bytes : tail;
    const size_t have = bytes.size() > in_page
                            ? std::min<uint64_t>(n - done, bytes.size() - in_page)
                            : 0;
    if (have > 0) std::memcpy(out + done, bytes.data() + in_page, have);
    done += have;
    if (got != nullptr) *got = done;
    if (p == nullptr) break;  // end of file
  }
  return ok_status();
}

void ReadCache::drop(uint64_t offset, uint64_t n) {
  if (n == 0) return;
  const uint64_t first = offset / page_, last = (offset + n - 1) / page_;
  for (auto it = pages_.begin(); it != pages_.end();) {
    if (it->first < first || it->first > last) {
      ++it;
      continue;
    }
    uses_.erase(it->second.use);
    it = pages_.erase(it);
  }
}

Status ReadCache::write_at(uint64_t offset, const void* data, size_t n) {
  drop(offset, n);
  return inner_->write_at(offset, data, n);
}

Status ReadCache::write_gathered_at(uint64_t offset, const ConstBytes* pieces, size_t count) {
  uint64_t total = 0;
  for (size_t i = 0; i < count; ++i) total += pieces[i].size;
  drop(offset, total);
  return inner_->write_gathered_at(offset, pieces, count);
}

Status ReadCache::allocate(uint64_t offset, uint64_t length) {
  pages_.clear();  // the last page may have been cached short
  uses_.clear();
  return inner_->allocate(offset, length);
}

Status ReadCache::truncate(uint64_t size) {
  pages_.clear();
  uses_.clear();
  return inner_->truncate(size);
}

}  // namespace tapio::io
