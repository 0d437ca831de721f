#include "core/buffer_pool.h"

#include <gtest/gtest.h>

namespace tapio {
namespace {

ByteBuffer sized(size_t n) {
  ByteBuffer b;
  b.prepare(n);
  return b;
}

TEST(BufferPool, GivesBackTheLargestWithItsMemory) {
  BufferPool pool(1000);
  ByteBuffer a = sized(100);
  uint8_t* where = a.data();
  pool.give(std::move(a));
  pool.give(sized(50));
  EXPECT_EQ(pool.cached_bytes(), 150u);
  ByteBuffer got = pool.take();
  EXPECT_EQ(got.capacity(), 100u);
  EXPECT_EQ(got.data(), where);  // the same pages, not a new allocation
  EXPECT_EQ(pool.take().capacity(), 50u);
  EXPECT_EQ(pool.take().capacity(), 0u);  // empty pool: an empty buffer
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(BufferPool, FreesTheSmallestPastItsLimit) {
  BufferPool pool(1000);
  pool.give(sized(300));
  pool.give(sized(600));
  pool.give(sized(200));  // 1100 > 1000: the 200 goes
  EXPECT_EQ(pool.cached_bytes(), 900u);
  pool.give(sized(5000));  // alone over the limit: everything goes
  EXPECT_EQ(pool.cached_bytes(), 0u);
  pool.give(ByteBuffer());  // nothing to cache
  EXPECT_EQ(pool.cached_bytes(), 0u);
}

TEST(PooledBuffer, LendsThePoolsPagesAndGivesThemBack) {
  BufferPool pool(1000);
  ByteBuffer a = sized(100);
  uint8_t* where = a.data();
  pool.give(std::move(a));
  {
    PooledBuffer loan(&pool);
    EXPECT_EQ(loan.get().data(), where);
    EXPECT_EQ(pool.cached_bytes(), 0u);
    loan.get().prepare(60);  // fits: the same pages
    EXPECT_EQ(loan.get().data(), where);
  }
  EXPECT_EQ(pool.cached_bytes(), 100u);
  PooledBuffer alone(nullptr);  // no pool: a buffer of its own
  EXPECT_NE(alone.get().prepare(10), nullptr);
}

}  // namespace
}  // namespace tapio
