#include "plan/selection_codec.h"

#include <gtest/gtest.h>

namespace tapio::plan {
namespace {

TEST(SelectionCodec, RoundTrip) {
  std::vector<Request> in(3);
  in[0].var = 2;
  in[0].sel = Selection::box({1, 2, 3}, {4, 5, 6});
  in[1].var = 7;
  in[1].step_start = 4;
  in[1].step_count = 2;
  in[1].sel = Selection::from_runs({{10, 2}, {3, 1}});
  in[2].var = 0;
  in[2].sel = Selection::box({}, {});
  std::vector<uint8_t> bytes;
  encode_requests(in, bytes);
  auto out = decode_requests(bytes.data(), bytes.size());
  ASSERT_TRUE(out.ok()) << out.status().message();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0].sel.start, in[0].sel.start);
  EXPECT_EQ((*out)[0].sel.count, in[0].sel.count);
  EXPECT_EQ((*out)[1].sel.runs, in[1].sel.runs);
  EXPECT_EQ((*out)[1].step_start, 4u);
  EXPECT_EQ((*out)[1].step_count, 2u);
  EXPECT_EQ((*out)[2].sel.kind, Selection::Kind::kBox);
  EXPECT_TRUE((*out)[2].sel.start.empty());
}

TEST(SelectionCodec, RejectsEveryTruncation) {
  std::vector<Request> in(1);
  in[0].sel = Selection::from_runs({{10, 2}, {30, 4}});
  std::vector<uint8_t> bytes;
  encode_requests(in, bytes);
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(decode_requests(bytes.data(), n).ok()) << n;
  bytes[32] = 9;  // bad kind
  EXPECT_FALSE(decode_requests(bytes.data(), bytes.size()).ok());
}

}  // namespace
}  // namespace tapio::plan
