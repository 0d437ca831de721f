// The fake communicator: collectives, messages in a seeded order, hangs found instead of
// waited for, and injected failures that keep the protocol (comm.h) going.
#include "comm/fake_comm.h"

#include <gtest/gtest.h>

#include <mutex>

namespace tapio::comm {
namespace {

TEST(FakeComm, Collectives) {
  FakeWorld world(4);
  std::mutex m;
  std::vector<std::string> failures;
  auto check = [&](bool ok, const std::string& what) {
    if (ok) return;
    std::lock_guard<std::mutex> lock(m);
    failures.push_back(what);
  };
  const Status st = world.run([&](Comm& c) {
    uint64_t sum = c.rank() + 1;
    check(c.allreduce_sum(&sum).ok() && sum == 10, "allreduce_sum");
    uint64_t before = 0;
    check(c.exscan_sum(c.rank() + 1, &before).ok() &&
              before == static_cast<uint64_t>(c.rank() * (c.rank() + 1) / 2),
          "exscan_sum");
    std::vector<uint8_t> bytes(c.rank() == 2 ? 20000 : 0, 7);
    check(c.bcast_bytes(bytes, 2).ok() && bytes.size() == 20000 && bytes[19999] == 7, "bcast");
    std::vector<uint8_t> mine(c.rank(), static_cast<uint8_t>(c.rank())), all;
    std::vector<uint64_t> counts;
    check(c.gather_bytes(mine, 0, &all, &counts).ok() && (c.rank() || all.size() == 6), "gather");
    std::vector<uint32_t> flags = {1, 1, 0, 1}, got;
    check(c.reduce_scatter_sum(flags, {1, 1, 1, 1}, &got).ok() &&
              got[0] == (c.rank() == 2 ? 0u : 4u),
          "reduce_scatter");
    auto half = c.split(c.rank() % 2, -c.rank());
    check(half.ok() && (*half)->size() == 2 && (*half)->rank() == (c.rank() < 2 ? 1 : 0),
          "split");
    const Status agreed = agree(c, c.rank() == 3 ? error(TAPIO_ERR_IO, "disk") : ok_status());
    check(agreed.code() == TAPIO_ERR_IO && agreed.message() == "rank 3: disk", "agree");
  });
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(failures.empty()) << failures.front();
}

// agree(local, then): a `then` error counts only where no rank failed `local`, whatever the
// ranks; one reduction either way.
TEST(FakeComm, AgreeOnTwoStatusesInOrder) {
  FakeWorld world(4);
  std::vector<Status> seen(8);
  const Status st = world.run([&](Comm& c) {
    const Status then = c.rank() < 2 ? error(TAPIO_ERR_RANGE, "value") : ok_status();
    const Status local = c.rank() == 3 ? error(TAPIO_ERR_IO, "disk") : ok_status();
    seen[c.rank()] = agree(c, local, then);            // rank 3's read beats ranks 0-1's values
    seen[4 + c.rank()] = agree(c, ok_status(), then);  // then the lowest rank's value
  });
  ASSERT_TRUE(st.ok()) << st.message();
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(seen[r].code(), TAPIO_ERR_IO);
    EXPECT_EQ(seen[r].message(), "rank 3: disk");
    EXPECT_EQ(seen[4 + r].code(), TAPIO_ERR_RANGE);
    EXPECT_EQ(seen[4 + r].message(), "rank 0: value");
  }
}

// Every rank sends rank 0 one message; rank 0 takes them as they come. The order is a
// function of the seed.
std::vector<int> arrival_order(uint64_t seed) {
  FakeWorld world(5, seed);
  std::vector<int> order;
  const Status st = world.run([&](Comm& c) {
    Requests sends;
    uint8_t byte = static_cast<uint8_t>(c.rank());
    if (c.rank() != 0) {
      EXPECT_TRUE(c.isend(Pieces::bytes(&byte, 1), 0, 5, &sends).ok());
    }
    for (int k = 0; c.rank() == 0 && k < 4; ++k) {
      ByteBuffer got;
      int from = -1;
      EXPECT_TRUE(c.probe_recv(kAnySource, 5, &got, &from).ok());
      order.push_back(from);
    }
    EXPECT_TRUE(c.waitall(&sends).ok());
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return order;
}

TEST(FakeComm, SeededMessageOrderIsReproducible) {
  EXPECT_EQ(arrival_order(0), (std::vector<int>{1, 2, 3, 4}));
  bool other = false;
  for (uint64_t seed = 1; seed < 20; ++seed) {
    EXPECT_EQ(arrival_order(seed), arrival_order(seed));
    other |= arrival_order(seed) != arrival_order(0);
  }
  EXPECT_TRUE(other);  // some seed lets a later rank overtake an earlier one
}

TEST(FakeComm, AHangIsFoundNotWaitedFor) {
  FakeWorld world(3);
  std::vector<Status> got(3);
  const Status st = world.run([&](Comm& c) {
    Envelope e;
    if (c.rank() == 1) got[1] = c.probe(0, 9, &e);  // nobody sends it
    got[c.rank()] = c.barrier();                     // so rank 1 never gets here
  });
  EXPECT_EQ(st.code(), TAPIO_ERR_INTERNAL);
  EXPECT_NE(st.message().find("rank 1 waits in probe"), std::string::npos) << st.message();
}

TEST(FakeComm, FailedSendStillReachesItsReceiver) {
  FakeWorld world(2);
  world.inject(FakeFault{1, "isend", 0});
  Status sent, received;
  uint64_t bytes = 99;
  const Status st = world.run([&](Comm& c) {
    std::vector<uint8_t> data(100, 1);
    Requests reqs;
    if (c.rank() == 1) sent = c.isend(Pieces::bytes(data.data(), 100), 0, 3, &reqs);
    if (c.rank() == 0) received = c.irecv(Pieces::bytes(data.data(), 100), 1, 3, &reqs);
    std::vector<uint64_t> got;
    const Status waited = c.waitall(&reqs, &got);
    if (c.rank() == 0) {
      EXPECT_TRUE(waited.ok());
      bytes = got[0];
    }
  });
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(sent.code(), TAPIO_ERR_MPI);
  EXPECT_TRUE(received.ok());
  EXPECT_EQ(bytes, 0u);  // the empty message that stands for the lost one
}

TEST(FakeComm, FailedReceiveIsDrained) {
  FakeWorld world(2);
  world.inject(FakeFault{0, "irecv", 0});
  Status received, waited;
  const Status st = world.run([&](Comm& c) {
    std::vector<uint8_t> data(100, 1);
    Requests reqs;
    if (c.rank() == 1) {
      EXPECT_TRUE(c.isend(Pieces::bytes(data.data(), 100), 0, 3, &reqs).ok());
    }
    if (c.rank() == 0) received = c.irecv(Pieces::bytes(data.data(), 100), 1, 3, &reqs);
    const Status w = c.waitall(&reqs);
    if (c.rank() == 0) waited = w;
    EXPECT_TRUE(c.barrier().ok());  // nothing is left in flight
  });
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(received.code(), TAPIO_ERR_MPI);
  EXPECT_TRUE(waited.ok());
}

TEST(FakeComm, FailedCollectiveScramblesItsResult) {
  FakeWorld world(3);
  world.inject(FakeFault{2, "reduce_scatter", 0});
  std::vector<Status> got(3);
  std::vector<uint32_t> counts(3);
  const Status st = world.run([&](Comm& c) {
    std::vector<uint32_t> mine;
    got[c.rank()] = c.reduce_scatter_sum({1, 1, 1}, {1, 1, 1}, &mine);
    counts[c.rank()] = mine[0];
  });
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(got[0].ok() && got[1].ok());
  EXPECT_EQ(got[2].code(), TAPIO_ERR_MPI);
  EXPECT_EQ(counts[0], 3u);
  EXPECT_NE(counts[2], 3u);
}

}  // namespace
}  // namespace tapio::comm
