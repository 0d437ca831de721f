#include "io/write_behind.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
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

TEST(WriteBehind, DrainToDepthLeavesOneRunning) {
  WriteBehind wb;
  std::atomic<bool> release{false};
  std::atomic<int> done{0};
  wb.submit([&] {
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++done;
    return Status();
  });
  EXPECT_TRUE(wb.drain(1).ok());  // returns while the slow job is still running
  EXPECT_EQ(done, 0);
  release = true;
  EXPECT_TRUE(wb.drain().ok());
  EXPECT_EQ(done, 1);
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

}  // namespace
}  // namespace tapio::io
