#include "format/subfile/records.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace tapio::subfile {
namespace {

TEST(SubfileRecords, IndexHeaderAndStepRoundTrip) {
  const auto header = encode_index_header();
  ASSERT_EQ(header.size(), kIndexHeaderSize);
  EXPECT_TRUE(check_index_header(header.data(), header.size()).ok());
  StepRecord s;
  s.step = 7;
  s.md_offset = 1000;
  s.md_length = 200;
  s.md_checksum = 42;
  s.generation = 2;
  s.md_align = 4096;
  s.flags = kStepHasDefinitions | kStepHasFixed;
  const auto bytes = encode_step(s);
  ASSERT_EQ(bytes.size(), kStepRecordSize);
  auto back = decode_step(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->step, 7u);
  EXPECT_EQ(back->md_offset, 1000u);
  EXPECT_EQ(back->generation, 2u);
  EXPECT_EQ(back->md_align, 4096u);
  EXPECT_EQ(back->flags, kStepHasDefinitions | kStepHasFixed);
  StepRecord odd = s;  // a flag this version does not know is an error, not ignored
  odd.flags = 8;
  const auto unknown = encode_step(odd);
  EXPECT_EQ(decode_step(unknown.data(), unknown.size()).status().code(), TAPIO_ERR_FORMAT);
  // Any flipped byte, and any torn length, is detected.
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto bad = bytes;
    bad[i] ^= 0x40;
    EXPECT_FALSE(decode_step(bad.data(), bad.size()).ok()) << i;
  }
  EXPECT_EQ(decode_step(bytes.data(), 63).status().code(), TAPIO_ERR_CHECKSUM);
  auto bad_header = header;
  bad_header[20] ^= 1;
  EXPECT_EQ(check_index_header(bad_header.data(), bad_header.size()).code(), TAPIO_ERR_CHECKSUM);
}

// Version 5 records the writer's state: open records and commit times. A version 4 record
// (its u64 flags' high half zero) reads with time 0, unknown; a version 4 header is accepted.
TEST(SubfileRecords, WriterStateRoundTripsAndOldRecordsReadAsUnknownTime) {
  StepRecord open;
  open.kind = StepKind::kOpen;
  open.step = 3;
  open.generation = 1;
  open.time = 1795000000;
  const auto bytes = encode_step(open);
  auto back = decode_step(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->kind, StepKind::kOpen);
  EXPECT_EQ(back->time, 1795000000u);
  EXPECT_EQ(back->step, 3u);
  StepRecord v4;
  v4.flags = kStepHasFixed;
  const auto old = encode_step(v4);  // time 0: what a version 4 writer's u64 flags hold
  for (int i = 52; i < 56; ++i) EXPECT_EQ(old[i], 0) << i;
  EXPECT_EQ(decode_step(old.data(), old.size())->time, 0u);
  uint32_t version = 0;
  const auto header4 = encode_index_header(4);
  EXPECT_TRUE(check_index_header(header4.data(), header4.size(), &version).ok());
  EXPECT_EQ(version, 4u);
  const auto header = encode_index_header();
  EXPECT_TRUE(check_index_header(header.data(), header.size(), &version).ok());
  EXPECT_EQ(version, kVersion);
  EXPECT_GT(record_time(), 1700000000u);
}

// A commit record in tapio.md holds its step's index record; read_record finds one record at a
// time and rejects a torn or altered one.
TEST(SubfileRecords, CommitRecordsReadOneAtATime) {
  StepRecord step;
  step.step = 5;
  step.md_offset = 4096;
  step.md_length = 300;
  const auto commit = encode_record(RecordKind::kCommit, encode_step(step));
  auto r = read_record(commit.data(), commit.size());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->kind, RecordKind::kCommit);
  auto back = decode_step(r->payload, r->length);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->step, 5u);
  EXPECT_EQ(back->md_offset + back->md_length, 4396u);
  EXPECT_EQ(read_record(commit.data(), commit.size() - 1).status().code(), TAPIO_ERR_FORMAT);
  auto bad = commit;
  bad[kRecordHeaderSize + 3] ^= 1;
  EXPECT_EQ(read_record(bad.data(), bad.size()).status().code(), TAPIO_ERR_CHECKSUM);
}

// A dataset of version 1 (before block lists referred to stored selections) is rejected with
// a message naming both versions, not misread.
TEST(SubfileRecords, OtherVersionsAreRejectedClearly) {
  auto old = encode_index_header();
  old[8] = 1;  // version u32 at byte 8
  const uint64_t sum = checksum(old.data(), 56);
  for (int i = 0; i < 8; ++i) old[56 + i] = static_cast<uint8_t>(sum >> (8 * i));
  const Status st = check_index_header(old.data(), old.size());
  EXPECT_EQ(st.code(), TAPIO_ERR_UNSUPPORTED);
  EXPECT_NE(st.message().find("format version 1, this tapio reads versions 2 to 6"), std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("older tapio"), std::string::npos) << st.message();
}

// A joined variable keeps its flag and its shape[0] of 0; a flag this version does not know is a
// format error, not a variable read wrong.
TEST(SubfileRecords, JoinedFlagRoundTripsAndUnknownFlagsAreRejected) {
  IoDef io;
  VariableDef v;
  v.name = "pos";
  v.shape = {0, 3};
  v.dim_names = {"particle", "xyz"};
  v.joined = true;
  io.vars.push_back(v);
  auto bytes = encode_definitions(io);
  auto back = decode_definitions(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->vars[0].joined && back->vars[0].record);
  EXPECT_EQ(back->vars[0].shape, v.shape);
  // The flags byte follows the u64 count of attributes (0), the u64 variable count, the name
  // (u64 length, bytes) and the u32 type.
  const size_t flags_at = 8 + 8 + 8 + v.name.size() + 4;
  ASSERT_EQ(bytes[flags_at], kVarRecord | kVarJoined);
  bytes[flags_at] |= 4;
  back = decode_definitions(bytes.data(), bytes.size());
  EXPECT_EQ(back.status().code(), TAPIO_ERR_FORMAT);
  EXPECT_NE(back.status().message().find("variable flags"), std::string::npos)
      << back.status().message();
}

TEST(SubfileRecords, DefinitionsRoundTrip) {
  IoDef io;
  io.attrs.push_back(Attribute{"title", TAPIO_CHAR, {'h', 'i'}});
  VariableDef v;
  v.name = "temp";
  v.type = TAPIO_FLOAT32;
  v.shape = {3, 4};
  v.dim_names = {"y", "x"};
  v.record = true;
  v.attrs.push_back(Attribute{"scale", TAPIO_FLOAT64, std::vector<uint8_t>(8, 1)});
  io.vars.push_back(v);
  io.dims = {{"x", 4}, {"unused", 7}, {"time", 0}, {"y", 3}};  // declared, in this order
  const auto bytes = encode_definitions(io);
  auto back = decode_definitions(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->vars.size(), 1u);
  EXPECT_EQ(back->vars[0].name, "temp");
  EXPECT_EQ(back->vars[0].shape, v.shape);
  EXPECT_EQ(back->vars[0].dim_names, v.dim_names);
  EXPECT_EQ(back->vars[0].attrs[0].data, v.attrs[0].data);
  EXPECT_EQ(back->attrs[0].as_string(), "hi");
  ASSERT_EQ(back->dims.size(), io.dims.size());
  for (size_t d = 0; d < io.dims.size(); ++d) {
    EXPECT_EQ(back->dims[d].name, io.dims[d].name);
    EXPECT_EQ(back->dims[d].length, io.dims[d].length);
  }
  // A version 5 dataset's record has no dimensions, and is the version 6 one cut before them:
  // the only cut that decodes.
  const auto v5 = encode_definitions(io, kDimensionsVersion - 1);
  ASSERT_TRUE(std::equal(v5.begin(), v5.end(), bytes.begin()));
  back = decode_definitions(v5.data(), v5.size());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->dims.empty());
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_EQ(decode_definitions(bytes.data(), n).ok(), n == v5.size()) << n;
  // A second unlimited dimension, or one declared twice, is a format error.
  for (const DimensionDef& bad : {DimensionDef{"time2", 0}, DimensionDef{"x", 4}}) {
    IoDef twice = io;
    twice.dims.push_back(bad);
    const auto b = encode_definitions(twice);
    EXPECT_EQ(decode_definitions(b.data(), b.size()).status().code(), TAPIO_ERR_FORMAT)
        << bad.name;
  }
}

TEST(SubfileRecords, SplitRecordsWithAlignmentAndChecksums) {
  std::vector<uint8_t> region;
  const auto a = encode_record(RecordKind::kBlocks, {1, 2, 3});
  const auto b = encode_record(RecordKind::kDefinitions, {4, 5});
  region.insert(region.end(), a.begin(), a.end());
  region.resize(64, 0);  // aligned to 64
  region.insert(region.end(), b.begin(), b.end());
  auto records = split_records(region.data(), region.size(), 64);
  ASSERT_TRUE(records.ok()) << records.status().message();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].length, 3u);
  EXPECT_EQ((*records)[1].kind, RecordKind::kDefinitions);
  region[64 + kRecordHeaderSize] ^= 1;  // flip a payload byte of the second record
  EXPECT_EQ(split_records(region.data(), region.size(), 64).status().code(), TAPIO_ERR_CHECKSUM);
}

}  // namespace
}  // namespace tapio::subfile
