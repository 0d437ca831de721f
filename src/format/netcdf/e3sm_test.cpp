// The E3SM decomposition maps in /work/shared (CDF-5, written by PnetCDF): decode them the way
// a reader would (64 KiB first, then what decode asks for) and check what `ncdump` shows.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <numeric>

#include "format/netcdf/header.h"
#include "format/netcdf/test_util.h"

namespace tapio::netcdf {
namespace {

using testing::attr_text;
using testing::attr_value;
using testing::find_attr;

class Map {
 public:
  explicit Map(const std::string& name)
      : path_(std::string(TAPIO_SHARED_DIR) + "/data/e3sm-io/" + name) {
    std::ifstream in(path_, std::ios::binary | std::ios::ate);
    size_ = in ? uint64_t(in.tellg()) : 0;
  }

  // Decode from a 64 KiB prefix, growing it as decode asks.
  Result<Header> decode_header(int* rounds) const {
    size_t have = std::min<uint64_t>(size_, 64 * 1024);
    for (*rounds = 1;; ++*rounds) {
      std::vector<uint8_t> bytes = read(0, have);
      size_t need_more = 0;
      Result<Header> r = decode(bytes.data(), bytes.size(), size_, &need_more);
      if (r.ok() || need_more == 0) return r;
      have = need_more;
    }
  }

  std::vector<uint8_t> read(uint64_t offset, size_t n) const {
    std::ifstream in(path_, std::ios::binary);
    in.seekg(std::streamoff(offset));
    std::vector<uint8_t> out(n);
    in.read(reinterpret_cast<char*>(out.data()), std::streamsize(n));
    EXPECT_EQ(size_t(in.gcount()), n) << path_ << " at " << offset;
    return out;
  }

  // All values of an int variable, read at its data offset.
  std::vector<int32_t> ints(const Header& h, const std::string& name) const {
    const Var* v = h.find_var(name);
    EXPECT_NE(v, nullptr) << name;
    if (!v) return {};
    EXPECT_EQ(v->type, NC_INT);
    const uint64_t n = h.elements(*v);
    std::vector<uint8_t> raw = read(h.data_offset(*v, 0), n * 4);
    std::vector<int32_t> out(n);
    big_endian_to_host(out.data(), raw.data(), n, 4);
    return out;
  }

  uint64_t size() const { return size_; }

 private:
  std::string path_;
  uint64_t size_ = 0;
};

const char* const kVarSuffixes[] = {"nreqs", "fill_starts", "offsets",
                                    "lengths", "raw_nreqs", "raw_offsets"};

// Structure every map shares: num_decomp, decomp_nprocs, Dk.total_(raw_)nreqs; six int
// variables per decomposition; sums and extremes of the data agree with the header.
void check_common(const Map& map, const Header& h, int ndecomp) {
  EXPECT_EQ(h.version, 5);
  EXPECT_EQ(h.numrecs, 0u);
  ASSERT_EQ(h.dims.size(), size_t(2 + 2 * ndecomp));
  EXPECT_EQ(h.dims[0].name, "num_decomp");
  EXPECT_EQ(h.dims[0].length, uint64_t(ndecomp));
  EXPECT_EQ(h.dims[1].name, "decomp_nprocs");
  EXPECT_EQ(h.dims[1].length, 16u);
  ASSERT_EQ(h.vars.size(), size_t(6 * ndecomp));
  for (int k = 1; k <= ndecomp; ++k) {
    const std::string d = fmt::format("D{}.", k);
    for (int s = 0; s < 6; ++s) EXPECT_EQ(h.vars[6 * (k - 1) + s].name, d + kVarSuffixes[s]);
    const uint64_t total = h.dims[h.find_dim(d + "total_nreqs")].length;
    const uint64_t raw_total = h.dims[h.find_dim(d + "total_raw_nreqs")].length;
    EXPECT_EQ(h.elements(*h.find_var(d + "offsets")), total);
    EXPECT_EQ(h.elements(*h.find_var(d + "raw_offsets")), raw_total);

    const std::vector<int32_t> nreqs = map.ints(h, d + "nreqs");
    ASSERT_EQ(nreqs.size(), 16u);
    EXPECT_EQ(uint64_t(std::accumulate(nreqs.begin(), nreqs.end(), int64_t{0})), total) << d;
    EXPECT_EQ(*std::max_element(nreqs.begin(), nreqs.end()),
              attr_value<int32_t>(*find_attr(h.attrs, d + "max_nreqs"), 0));
    EXPECT_EQ(*std::min_element(nreqs.begin(), nreqs.end()),
              attr_value<int32_t>(*find_attr(h.attrs, d + "min_nreqs"), 0));
    const std::vector<int32_t> raw = map.ints(h, d + "raw_nreqs");
    EXPECT_EQ(uint64_t(std::accumulate(raw.begin(), raw.end(), int64_t{0})), raw_total) << d;

    // The lengths' max/min attributes cover the requests of the map, not the fill requests
    // that a map which does not cover the whole array adds (the I case).
    if (attr_text(*find_attr(h.attrs, d + "fully_covered")) != "true") continue;
    const Var& lengths = *h.find_var(d + "lengths");
    const std::vector<int32_t> len = map.ints(h, d + "lengths");
    EXPECT_EQ(*std::max_element(len.begin(), len.end()),
              attr_value<int32_t>(*find_attr(lengths.attrs, "max"), 0));
    EXPECT_EQ(*std::min_element(len.begin(), len.end()),
              attr_value<int32_t>(*find_attr(lengths.attrs, "min"), 0));
  }
  const Var& last = h.vars.back();
  EXPECT_LE(last.begin + last.vsize, map.size());
  // Our encoder writes PnetCDF's header bytes back unchanged.
  EXPECT_EQ(encode(h), map.read(0, encoded_size(h)));
}

TEST(E3smMaps, FCase) {
  Map map("map_f_case_16p.nc");
  ASSERT_GT(map.size(), 0u) << "missing /work/shared/data/e3sm-io";
  int rounds = 0;
  Result<Header> r = map.decode_header(&rounds);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Header& h = *r;
  check_common(map, h, 3);
  const std::pair<const char*, uint64_t> dims[] = {
      {"D1.total_nreqs", 47},    {"D1.total_raw_nreqs", 866},  {"D2.total_nreqs", 866},
      {"D2.total_raw_nreqs", 866}, {"D3.total_nreqs", 62352}, {"D3.total_raw_nreqs", 62352}};
  for (auto [name, length] : dims) {
    ASSERT_GE(h.find_dim(name), 0) << name;
    EXPECT_EQ(h.dims[h.find_dim(name)].length, length) << name;
  }
  EXPECT_EQ(attr_text(*find_attr(h.attrs, "command_line")),
            "./dat2decomp -v -r -a cdf5 -i input_files_f_case.txt -o map_f_case_16p.nc ");
  EXPECT_EQ(attr_text(*find_attr(h.attrs, "D1.fully_covered")), "true");
  const Attr& dims3 = *find_attr(h.attrs, "D3.dims");
  ASSERT_EQ(dims3.count(), 2u);
  EXPECT_EQ(attr_value<int32_t>(dims3, 0), 72);
  EXPECT_EQ(attr_value<int32_t>(dims3, 1), 866);
  EXPECT_EQ(attr_text(*find_attr(h.vars[0].attrs, "description")),
            "Number of noncontiguous requests per process");

  // ncdump -v D1.nreqs,D1.lengths,D3.raw_offsets map_f_case_16p.nc
  EXPECT_EQ(map.ints(h, "D1.nreqs"),
            (std::vector<int32_t>{4, 2, 3, 3, 3, 3, 2, 4, 2, 3, 3, 3, 3, 3, 2, 4}));
  const std::vector<int32_t> lengths = map.ints(h, "D1.lengths");
  ASSERT_EQ(lengths.size(), 47u);
  EXPECT_EQ(std::vector<int32_t>(lengths.begin(), lengths.begin() + 5),
            (std::vector<int32_t>{16, 12, 21, 21, 36}));
  EXPECT_EQ(lengths.back(), 9);
  const std::vector<int32_t> raw = map.ints(h, "D3.raw_offsets");
  EXPECT_EQ(std::vector<int32_t>(raw.begin(), raw.begin() + 4),
            (std::vector<int32_t>{3, 67, 131, 195}));
}

TEST(E3smMaps, GCase) {
  Map map("map_g_case_16p.nc");
  ASSERT_GT(map.size(), 0u);
  int rounds = 0;
  Result<Header> r = map.decode_header(&rounds);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Header& h = *r;
  check_common(map, h, 6);
  EXPECT_EQ(h.dims[h.find_dim("D4.total_raw_nreqs")].length, 87900u);
  EXPECT_EQ(h.dims[h.find_dim("D6.total_raw_nreqs")].length, 28785u);
  const Attr& dims6 = *find_attr(h.attrs, "D6.dims");
  EXPECT_EQ(attr_value<int32_t>(dims6, 0), 285);
  EXPECT_EQ(attr_value<int32_t>(dims6, 1), 101);
  // ncdump -v D1.nreqs,D2.lengths map_g_case_16p.nc
  EXPECT_EQ(map.ints(h, "D1.nreqs"),
            (std::vector<int32_t>{8, 10, 10, 9, 8, 8, 7, 9, 7, 6, 8, 7, 7, 6, 7, 8}));
  const std::vector<int32_t> lengths = map.ints(h, "D2.lengths");
  EXPECT_EQ(std::vector<int32_t>(lengths.begin(), lengths.begin() + 6),
            (std::vector<int32_t>{2, 1, 1, 1, 1, 2}));
}

TEST(E3smMaps, ICase) {
  Map map("map_i_case_16p.nc");
  ASSERT_GT(map.size(), 0u);
  int rounds = 0;
  Result<Header> r = map.decode_header(&rounds);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Header& h = *r;
  check_common(map, h, 5);
  EXPECT_EQ(h.dims[h.find_dim("D5.total_nreqs")].length, 23171u);
  EXPECT_EQ(h.dims[h.find_dim("D5.total_raw_nreqs")].length, 96271u);
  EXPECT_EQ(attr_text(*find_attr(h.attrs, "D1.fully_covered")), "false");
  const Attr& dims2 = *find_attr(h.attrs, "D2.dims");
  ASSERT_EQ(dims2.count(), 3u);
  EXPECT_EQ(attr_value<int32_t>(dims2, 0), 15);
  // ncdump -v D1.nreqs,D2.lengths map_i_case_16p.nc
  EXPECT_EQ(map.ints(h, "D1.nreqs"), (std::vector<int32_t>{95, 88, 85, 81, 86, 84, 80, 88, 95,
                                                           82, 81, 83, 78, 88, 80, 89}));
  const std::vector<int32_t> lengths = map.ints(h, "D2.lengths");
  EXPECT_EQ(std::vector<int32_t>(lengths.begin(), lengths.begin() + 6),
            (std::vector<int32_t>{9, 4, 4, 9, 9, 6}));
  // ncdump -v D1.lengths: "... 5, 126, 9, 144, 144, 144 ;"
  const std::vector<int32_t> d1 = map.ints(h, "D1.lengths");
  ASSERT_EQ(d1.size(), 1363u);
  EXPECT_EQ(std::vector<int32_t>(d1.end() - 6, d1.end()),
            (std::vector<int32_t>{5, 126, 9, 144, 144, 144}));
}

// A small first read still works: decode asks for the rest of the header.
TEST(E3smMaps, SmallFirstReadGrowsToTheHeader) {
  Map map("map_i_case_16p.nc");
  ASSERT_GT(map.size(), 0u);
  size_t have = 256;
  int rounds = 0;
  for (;; ++rounds) {
    ASSERT_LT(rounds, 30);
    std::vector<uint8_t> bytes = map.read(0, have);
    size_t need_more = 0;
    Result<Header> r = decode(bytes.data(), bytes.size(), map.size(), &need_more);
    if (r.ok()) {
      EXPECT_EQ(r->vars.size(), 30u);
      EXPECT_GE(have, encoded_size(*r));
      break;
    }
    ASSERT_GT(need_more, have) << r.status().message();
    have = need_more;
  }
  EXPECT_GT(rounds, 0);
}

}  // namespace
}  // namespace tapio::netcdf
