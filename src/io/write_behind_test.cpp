#include "io/write_behind.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace tapio::io {
namespace {

TEST(WriteBehind, RunsJobsInOrderAndDrains) {
  WriteBehind wb;
  std::vector<int> order;
  for (int i = 0; i < 50; ++i)
    wb.submit([&order, i] {
      order.push_back(i);
      return Status();
    });
  ASSERT_TRUE(wb.drain().ok());
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
}

TEST(WriteBehind, WaitReturnsWhenItsJobIsDoneNotLaterOnes) {
  WriteBehind wb;
  std::atomic<bool> release{false};
  std::atomic<int> done{0};
  const WriteBehind::Ticket first = wb.submit([&] {
    ++done;
    return Status();
  });
  const WriteBehind::Ticket slow = wb.submit([&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++done;
    return Status();
  });
  EXPECT_LT(first, slow);
  EXPECT_TRUE(wb.wait(0).ok());      // names no job
  EXPECT_TRUE(wb.wait(first).ok());  // returns while the slow job still runs
  EXPECT_EQ(done, 1);
  release = true;
  EXPECT_TRUE(wb.wait(slow).ok());
  EXPECT_EQ(done, 2);
}

// A buffer is free when the job that reads it is done, whatever was queued after it: waiting
// for "at most one job pending" is not the same when some rounds queue nothing.
TEST(WriteBehind, WaitCoversAJobFollowedByNone) {
  WriteBehind wb;
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  const WriteBehind::Ticket t = wb.submit([&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    finished = true;
    return Status();
  });
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
  });
  EXPECT_TRUE(wb.wait(t).ok());
  EXPECT_TRUE(finished);  // not merely "no more than one pending"
  releaser.join();
}

TEST(WriteBehind, FirstErrorIsReportedAndLaterJobsSkipped) {
  WriteBehind wb;
  int ran = 0;
  wb.submit([&] { ++ran; return Status(TAPIO_ERR_IO, "disk full"); });
  wb.submit([&] { ++ran; return Status(); });
  const Status st = wb.drain();
  EXPECT_EQ(st.code(), TAPIO_ERR_IO);
  EXPECT_EQ(st.message(), "disk full");
  EXPECT_EQ(ran, 1);
  EXPECT_TRUE(wb.drain().ok());  // reported once
}

TEST(WriteBehind, WaitForRoomBlocksUntilHeldBytesFitTheBudget) {
  WriteBehind wb;
  std::atomic<bool> release{false};
  std::atomic<bool> finished{false};
  wb.submit(
      [&] {
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        finished = true;
        return Status();
      },
      60);
  EXPECT_FALSE(wb.wait_for_room(40, 100));  // 60 + 40 fit
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    release = true;
  });
  EXPECT_TRUE(wb.wait_for_room(41, 100));  // 60 + 41 do not: waits for the job
  EXPECT_TRUE(finished);
  releaser.join();
  EXPECT_FALSE(wb.wait_for_room(500, 100));  // nothing held: a job over the budget runs alone
}

TEST(WriteBehind, FailureIsSeenWithoutWaitingAndStillReported) {
  WriteBehind wb;
  const WriteBehind::Ticket t = wb.submit([] { return Status(TAPIO_ERR_IO, "EIO"); });
  while (wb.failure().ok()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(wb.failure().code(), TAPIO_ERR_IO);
  EXPECT_EQ(wb.wait(t).code(), TAPIO_ERR_IO);  // failure() did not clear it
  EXPECT_TRUE(wb.failure().ok());
}

#ifdef __linux__
TEST(WriteBehind, AllowedCpusFollowsTheBinding) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  EXPECT_EQ(allowed_cpus(), CPU_COUNT(&all));
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  EXPECT_EQ(allowed_cpus(), 1);
  ASSERT_EQ(sched_setaffinity(0, sizeof(all), &all), 0);
}
#endif

}  // namespace
}  // namespace tapio::io
