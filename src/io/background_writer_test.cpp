#include "io/background_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tapio::io {
namespace {

// A file in memory that logs what reaches it ("w@offset", "wb@offset", "sync"), can hold
// every call until released, and can fail its n-th write.
class LoggedFile final : public File {
 public:
  Status write_at(uint64_t offset, const void* data, size_t n) override {
    pass_gate();
    std::lock_guard<std::mutex> lock(m_);
    if (++writes_ == fail_write_) return Status(TAPIO_ERR_IO, "no space left on device");
    if (bytes_.size() < offset + n) bytes_.resize(offset + n);
    std::memcpy(bytes_.data() + offset, data, n);
    log_.push_back("w@" + std::to_string(offset));
    return ok_status();
  }
  void start_writeback(uint64_t offset, uint64_t) override {
    std::lock_guard<std::mutex> lock(m_);
    log_.push_back("wb@" + std::to_string(offset));
  }
  Status sync() override {
    pass_gate();
    std::lock_guard<std::mutex> lock(m_);
    log_.push_back("sync");
    return ok_status();
  }
  Status read_at(uint64_t, void*, size_t, size_t*) override { return ok_status(); }
  Status truncate(uint64_t) override { return ok_status(); }
  Result<uint64_t> size() override { return uint64_t{bytes_.size()}; }
  Status close() override { return ok_status(); }
  const std::string& path() const override { return path_; }

  void fail_write(int n) { fail_write_ = n; }
  void hold() { std::lock_guard<std::mutex> lock(m_); held_ = true; }
  void release() {
    { std::lock_guard<std::mutex> lock(m_); held_ = false; }
    gate_.notify_all();
  }
  void wait_until_blocked() {  // a call is held at the gate
    std::unique_lock<std::mutex> lock(m_);
    gate_.wait(lock, [&] { return blocked_; });
  }
  std::vector<std::string> log() { std::lock_guard<std::mutex> lock(m_); return log_; }
  std::string text() {
    std::lock_guard<std::mutex> lock(m_);
    return {bytes_.begin(), bytes_.end()};
  }

 private:
  void pass_gate() {
    std::unique_lock<std::mutex> lock(m_);
    blocked_ = held_;
    gate_.notify_all();
    gate_.wait(lock, [&] { return !held_; });
  }
  std::mutex m_;
  std::condition_variable gate_;
  bool held_ = false, blocked_ = false;
  int writes_ = 0, fail_write_ = 0;
  std::vector<uint8_t> bytes_;
  std::vector<std::string> log_;
  std::string path_ = "logged";
};

Piece piece(uint64_t offset, const std::string& s) {
  return Piece{offset, reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(BackgroundWriter, WritesLandInQueueOrderEachStartingItsWriteback) {
  LoggedFile file;
  std::atomic<int64_t> busy{0};
  const std::string a = "aaaa", b = "bb", c = "c";
  BackgroundWriter w({false, &busy});
  file.hold();
  w.write(&file, {piece(0, a), piece(4, a)}, true);
  w.write(&file, {piece(2, b)}, true);
  w.sync(&file);
  w.write(&file, {piece(3, c)}, true);
  file.wait_until_blocked();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // time the thread spends held
  file.release();
  ASSERT_TRUE(w.drain().ok());
  EXPECT_EQ(file.text(), "aabcaaaa");  // each later write over the earlier ones
  EXPECT_EQ(file.log(), (std::vector<std::string>{"w@0", "wb@0", "w@4", "wb@4", "w@2", "wb@2",
                                                  "sync", "w@3", "wb@3"}));
  EXPECT_GE(busy.load(), 5'000'000);
}

TEST(BackgroundWriter, StartsNoWritebackUnlessEager) {
  LoggedFile file;
  const std::string a = "xy";
  BackgroundWriter w({});
  w.write(&file, {piece(0, a)}, false);
  ASSERT_TRUE(w.drain().ok());
  EXPECT_EQ(file.log(), std::vector<std::string>{"w@0"});
}

// A failure is the caller's at its next wait (whichever ticket it names), with the context of
// the write that failed, and later writes are not made.
TEST(BackgroundWriter, FailureReachesTheNextWaitWithItsContextAndStopsLaterWrites) {
  LoggedFile file;
  file.fail_write(2);
  const std::string a = "aa";
  BackgroundWriter w({});
  w.write(&file, {piece(0, a)}, false, "file 'f', step 0, rank 3");
  const auto second = w.write(&file, {piece(2, a)}, false, "file 'f', step 1, rank 3");
  w.write(&file, {piece(4, a)}, false);
  const Status st = w.wait(second);
  EXPECT_EQ(st.code(), TAPIO_ERR_IO);
  EXPECT_NE(st.message().find("step 1, rank 3"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("no space left"), std::string::npos) << st.message();
  EXPECT_TRUE(w.drain().ok());  // reported once
  EXPECT_EQ(file.log(), std::vector<std::string>{"w@0"});
}

// Asynchronous output: a failure a slot's wait met stays for the commit of its step (finish),
// and is visible without waiting.
TEST(BackgroundWriter, KeptFailureIsReportedAgainAtFinish) {
  LoggedFile file;
  file.fail_write(1);
  const std::string a = "aa";
  BackgroundWriter w({/*keeps_failures=*/true, nullptr});
  const auto t = w.write(&file, {piece(0, a)}, false, "step 0");
  EXPECT_FALSE(w.wait(t).ok());
  EXPECT_EQ(w.failure().code(), TAPIO_ERR_IO);
  const Status finished = w.finish();
  EXPECT_EQ(finished.code(), TAPIO_ERR_IO);
  EXPECT_NE(finished.message().find("step 0"), std::string::npos);
  EXPECT_TRUE(w.finish().ok());
  EXPECT_TRUE(w.failure().ok());
}

TEST(BackgroundWriter, WaitQueuedKeepsTheFailureForFinish) {
  LoggedFile file;
  file.fail_write(1);
  const std::string a = "aa";
  BackgroundWriter w({true, nullptr});
  w.write(&file, {piece(0, a)}, false);
  w.wait_queued();
  EXPECT_FALSE(w.busy());
  EXPECT_EQ(w.finish().code(), TAPIO_ERR_IO);
}

// Writes that own their bytes count them until written: reserve() blocks while the budget is
// full, and the bytes are released once written.
TEST(BackgroundWriter, OwnedBytesAreBoundedByTheBudgetAndReleasedOnceWritten) {
  LoggedFile file;
  BackgroundWriter w({});
  EXPECT_FALSE(w.reserve(100, 150));  // nothing queued: no wait, no thread needed
  file.hold();
  auto owned = std::make_shared<std::string>(100, 'x');
  std::weak_ptr<std::string> watch = owned;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(owned->data());
  w.write(&file, {Piece{0, data, 100}}, false, {}, std::move(owned), 100);
  EXPECT_FALSE(w.reserve(50, 150));  // fits beside it
  std::atomic<bool> reserved{false};
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(reserved);
    file.release();
  });
  EXPECT_TRUE(w.reserve(100, 150));  // waited for the first write
  reserved = true;
  releaser.join();
  EXPECT_TRUE(watch.expired());
  EXPECT_TRUE(w.drain().ok());
}

TEST(BackgroundWriter, DestructionFinishesEveryQueuedWrite) {
  LoggedFile file;
  const std::string a = "abcd";
  file.hold();
  std::thread releaser;
  {
    BackgroundWriter w({});
    for (uint64_t k = 0; k < 8; ++k) w.write(&file, {piece(4 * k, a)}, false);
    releaser = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      file.release();
    });
  }  // waits for the held writes
  releaser.join();
  EXPECT_EQ(file.log().size(), 8u);
  EXPECT_EQ(file.text(), std::string("abcdabcdabcdabcdabcdabcdabcdabcd"));
}

TEST(BackgroundWriter, WaitsWithoutAThreadAreImmediate) {
  BackgroundWriter w({});
  EXPECT_TRUE(w.wait(0).ok());
  EXPECT_TRUE(w.drain().ok());
  EXPECT_TRUE(w.finish().ok());
  EXPECT_FALSE(w.busy());
}

}  // namespace
}  // namespace tapio::io
