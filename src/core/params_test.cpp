#include "core/params.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace tapio {
namespace {

std::string err(const Status& s) { return s.ok() ? "<ok>" : s.message(); }
template <typename T>
std::string err(const Result<T>& r) { return err(r.status()); }

std::string norm(std::string_view name, std::string_view value) {
  Result<std::string> r = normalize_param(name, value);
  return r.ok() ? *r : "ERROR: " + r.status().message();
}

// ---- registry --------------------------------------------------------------------------------

struct Expected {
  std::string_view name;
  ParamKind kind;
  std::string_view default_value;
  std::string_view engines;
};

// The parameter list from the design; a change here is a change of the public contract.
const Expected kExpected[] = {
    {"fsync", ParamKind::kEnum, "close", "all"},
    {"file_locking", ParamKind::kEnum, "true", "all"},
    {"profile", ParamKind::kString, "", "all"},
    {"ranks_per_node", ParamKind::kInteger, "0", "all"},
    {"node_layout", ParamKind::kEnum, "block", "all"},
    {"buffer_size", ParamKind::kSize, "16MiB", "all"},
    {"min_rounds", ParamKind::kInteger, "16", "collective"},
    {"data_align", ParamKind::kSize, "512", "all"},
    {"header_pad", ParamKind::kSize, "4096", "all"},
    {"record_dimension", ParamKind::kString, "time", "all"},
    {"netcdf_version", ParamKind::kEnum, "5", "all"},
    {"fill", ParamKind::kBoolean, "true", "all"},
    {"aggregators", ParamKind::kCount, "auto", "collective,subfile"},
    {"aggregators_per_node", ParamKind::kInteger, "1", "collective,subfile"},
    {"placement", ParamKind::kEnum, "spread", "collective"},
    {"collect_order", ParamKind::kEnum, "topology", "collective"},
    {"stripe_size", ParamKind::kSize, "1MiB", "all"},
    {"stripe_count", ParamKind::kInteger, "0", "all"},
    {"cluster", ParamKind::kString, "", "collective,subfile"},
    {"pipeline", ParamKind::kBoolean, "true", "collective"},
    {"shared_memory", ParamKind::kBoolean, "true", "collective"},
    {"two_level", ParamKind::kEnum, "auto", "collective"},
    {"direct", ParamKind::kEnum, "auto", "collective"},
    {"direct_read_min", ParamKind::kSize, "64KiB", "collective"},
    {"node_read_share", ParamKind::kSize, "256KiB", "collective"},
    {"node_readers", ParamKind::kInteger, "0", "collective"},
    {"joined_reserve", ParamKind::kSize, "4MiB", "collective"},
    {"block_align", ParamKind::kSize, "4096", "subfile"},
    {"subfile_write", ParamKind::kEnum, "auto", "subfile"},
    {"statistics", ParamKind::kEnum, "minmax", "subfile"},
    {"operator", ParamKind::kString, "", "subfile"},
    {"read_merge_below", ParamKind::kSize, "256KiB", "subfile"},
    {"metadata", ParamKind::kEnum, "gather", "subfile"},
    {"metadata_chunk", ParamKind::kSize, "4096", "subfile"},
    {"metadata_read", ParamKind::kEnum, "delegate", "subfile"},
    {"metadata_prefetch", ParamKind::kSize, "1MiB", "subfile"},
    {"writer_timeout", ParamKind::kInteger, "3600", "subfile"},
    {"mpiio_hints", ParamKind::kString, "", "mpiio"},
    {"layers", ParamKind::kString, "", "serial,subfile"},
    {"layer_buffer_size", ParamKind::kSize, "4MiB", "serial,subfile"},
    {"layer_buffers", ParamKind::kInteger, "2", "serial,subfile"},
    {"layer_align", ParamKind::kSize, "0", "serial,subfile"},
    {"layer_direct", ParamKind::kBoolean, "false", "serial,subfile"},
    {"read_cache_page", ParamKind::kSize, "1MiB", "serial,subfile"},
    {"read_cache_size", ParamKind::kSize, "64MiB", "serial,subfile"},
    {"serial_image_limit", ParamKind::kSize, "auto", "serial"},
    {"async", ParamKind::kBoolean, "false", "serial,subfile,collective,mpiio"},
    {"async_buffer", ParamKind::kSize, "256MiB", "serial,subfile,collective,mpiio"},
};

TEST(Registry, MatchesTheDesign) {
  ASSERT_EQ(param_registry().size(), std::size(kExpected));
  for (size_t i = 0; i < std::size(kExpected); ++i) {
    const ParamDef& def = param_registry()[i];
    SCOPED_TRACE(std::string(def.name));
    EXPECT_EQ(def.name, kExpected[i].name);
    EXPECT_EQ(def.kind, kExpected[i].kind);
    EXPECT_EQ(def.default_value, kExpected[i].default_value);
    EXPECT_EQ(def.engines, kExpected[i].engines);
  }
}

TEST(Registry, EnumChoices) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(find_param("fsync")->choices, (V{"never", "step", "close"}));
  EXPECT_EQ(find_param("node_layout")->choices, (V{"block", "cyclic"}));
  EXPECT_EQ(find_param("netcdf_version")->choices, (V{"5", "2", "1"}));
  EXPECT_EQ(find_param("placement")->choices, (V{"spread", "rank-order"}));
  EXPECT_EQ(find_param("collect_order")->choices, (V{"topology", "rank"}));
  EXPECT_EQ(find_param("direct")->choices, (V{"auto", "never"}));
  EXPECT_EQ(find_param("metadata")->choices, (V{"gather", "log", "aligned"}));
  EXPECT_EQ(find_param("metadata_read")->choices, (V{"delegate", "all"}));
  EXPECT_EQ(find_param("aggregators")->choices, (V{"auto", "all"}));
}

TEST(Registry, EveryEntryIsWellFormed) {
  std::set<std::string_view> names;
  for (const ParamDef& def : param_registry()) {
    SCOPED_TRACE(std::string(def.name));
    EXPECT_TRUE(names.insert(def.name).second) << "duplicate";
    EXPECT_FALSE(def.doc.empty());
    EXPECT_EQ(def.doc.back(), '.');
    // Enums list their values; counts and sizes may take extra words ("auto", "all").
    if (def.kind == ParamKind::kEnum) EXPECT_FALSE(def.choices.empty());
    else if (def.kind != ParamKind::kCount && def.kind != ParamKind::kSize) EXPECT_TRUE(def.choices.empty());
    // The default is a valid value, and sizes carry a unit.
    EXPECT_TRUE(normalize_param(def.name, def.default_value).ok()) << err(
        normalize_param(def.name, def.default_value));
    if (def.kind == ParamKind::kSize) {
      EXPECT_EQ(def.unit, "bytes");
    }
    // engines is "all" or a list of known engines.
    if (def.engines != "all") {
      std::stringstream list{std::string(def.engines)};
      for (std::string e; std::getline(list, e, ',');) EXPECT_TRUE(normalize_engine(e).ok()) << e;
    }
    EXPECT_EQ(find_param(def.name), &def);
  }
  EXPECT_EQ(find_param("nope"), nullptr);
  EXPECT_EQ(find_param("engine"), nullptr);
  EXPECT_EQ(find_param("Buffer_Size"), nullptr);
}

TEST(Registry, KindNamesAndExpectations) {
  EXPECT_EQ(param_kind_name(ParamKind::kInteger), "integer");
  EXPECT_EQ(param_kind_name(ParamKind::kCount), "count");
  EXPECT_EQ(param_kind_name(ParamKind::kSize), "size");
  EXPECT_EQ(param_kind_name(ParamKind::kBoolean), "boolean");
  EXPECT_EQ(param_kind_name(ParamKind::kEnum), "enum");
  EXPECT_EQ(param_kind_name(ParamKind::kString), "string");
  EXPECT_EQ(param_expected(*find_param("fsync")), "one of never, step, close");
  EXPECT_EQ(param_expected(*find_param("buffer_size")), "a size like 16MiB or 'auto'");
  EXPECT_EQ(param_expected(*find_param("aggregators")),
            "an integer, a ratio like 1/4, 'auto' or 'all'");
  EXPECT_EQ(param_expected(*find_param("ranks_per_node")), "an integer");
  EXPECT_EQ(param_expected(*find_param("fill")), "true or false");
  EXPECT_EQ(param_expected(*find_param("profile")), "a string");
}

TEST(Registry, Engines) {
  EXPECT_EQ(engine_names(),
            (std::vector<std::string_view>{"serial", "mpiio", "collective", "subfile"}));
  for (std::string_view e : engine_names()) EXPECT_EQ(*normalize_engine(e), e);
  EXPECT_EQ(err(normalize_engine("seriel")),
            "unknown engine 'seriel' (known engines: serial, mpiio, collective, subfile); did you "
            "mean 'serial'?");
  EXPECT_EQ(err(normalize_engine("hdf5")),
            "unknown engine 'hdf5' (known engines: serial, mpiio, collective, subfile)");
  EXPECT_EQ(normalize_engine("").status().code(), TAPIO_ERR_CONFIG);
}

// ---- nearest ---------------------------------------------------------------------------------

std::vector<std::string_view> names() {
  std::vector<std::string_view> out;
  for (const ParamDef& def : param_registry()) out.push_back(def.name);
  return out;
}

TEST(Nearest, Suggestions) {
  EXPECT_EQ(nearest("bufer_size", names()), "buffer_size");      // deletion
  EXPECT_EQ(nearest("buffer_sizee", names()), "buffer_size");    // insertion
  EXPECT_EQ(nearest("bufffr_size", names()), "buffer_size");     // substitution
  EXPECT_EQ(nearest("bufefr_size", names()), "buffer_size");     // transposition counts 1
  EXPECT_EQ(nearest("Buffer_Size", names()), "buffer_size");     // case-insensitive
  EXPECT_EQ(nearest("fsync", names()), "fsync");                 // exact
  EXPECT_EQ(nearest("fsyn", names()), "fsync");
  EXPECT_EQ(nearest("aggregator", names()), "aggregators");
  EXPECT_EQ(nearest("aggregator_per_node", names()), "aggregators_per_node");
  EXPECT_EQ(nearest("metdata_chunk", names()), "metadata_chunk");
  EXPECT_EQ(nearest("colective", engine_names()), "collective");
}

TEST(Nearest, Threshold) {
  // Short words: at most distance 2.
  EXPECT_EQ(nearest("abc", {"abxyz"}), "");   // 2 insertions + 1 substitution... = 3
  EXPECT_EQ(nearest("abc", {"axy"}), "axy");  // 2
  EXPECT_EQ(nearest("fsnc", {"fsync"}), "fsync");
  EXPECT_EQ(nearest("xyzzy", names()), "");
  EXPECT_EQ(nearest("stripe", names()), "");  // stripe_size is 5 away
  // Long words: up to len/3 edits (15 characters: 5).
  EXPECT_EQ(nearest("metadataprefet", {"metadata_prefetch"}), "metadata_prefetch");  // 3
  EXPECT_EQ(nearest("abcdefghijklmno", {"abcdefghijXXXXX"}), "abcdefghijXXXXX");      // 5, limit 5
  EXPECT_EQ(nearest("abcdefghijklmno", {"abcdefghiXXXXXX"}), "");                     // 6
  EXPECT_EQ(nearest("anything", {}), "");
  EXPECT_EQ(nearest("", {"abc"}), "");
  // A suggestion must keep something of the candidate.
  EXPECT_EQ(nearest("", {"ab"}), "");
  EXPECT_EQ(nearest("3", {"5", "2", "1"}), "");
  EXPECT_EQ(nearest("xy", {"io"}), "");
  EXPECT_EQ(nearest("x", {"io"}), "");
  EXPECT_EQ(nearest("ix", {"io"}), "io");
}

TEST(Nearest, TiesGoToFirstCandidate) {
  EXPECT_EQ(nearest("ax", {"ab", "ac"}), "ab");
  EXPECT_EQ(nearest("ax", {"ac", "ab"}), "ac");
  EXPECT_EQ(nearest("ax", {"zz", "ac", "ax"}), "ax");  // a closer later one still wins
}

// ---- parse_size ------------------------------------------------------------------------------

TEST(ParseSize, Valid) {
  const std::pair<std::string_view, uint64_t> cases[] = {
      {"0", 0},
      {"1", 1},
      {"512", 512},
      {"1048576", 1048576},
      {"007", 7},
      {"7B", 7},
      {"7b", 7},
      {"4k", 4096},
      {"4K", 4096},
      {"4KB", 4096},
      {"4kb", 4096},
      {"4KiB", 4096},
      {"4kib", 4096},
      {"4KIB", 4096},
      {"16M", 16u << 20},
      {"16MB", 16u << 20},
      {"16MiB", 16u << 20},
      {"16 MB", 16u << 20},
      {"16 mib", 16u << 20},
      {"  64K  ", 64u << 10},
      {"1G", 1ull << 30},
      {"1GB", 1ull << 30},
      {"1GiB", 1ull << 30},
      {"3T", 3ull << 40},
      {"3TB", 3ull << 40},
      {"3TiB", 3ull << 40},
      {"2P", 2ull << 50},
      {"2PiB", 2ull << 50},
      {"1E", 1ull << 60},
      {"15EiB", 15ull << 60},
      {"1.5GiB", 3ull << 29},
      {"0.5K", 512},
      {"0.25k", 256},
      {"2.0M", 2u << 20},
      {"1.000", 1},
      {"0.0009765625K", 1},
      {"18446744073709551615", UINT64_MAX},
      {"15.5E", 31ull << 59},
      {"1.50000000000000000000000000000000000000000000K", 1536},
  };
  for (const auto& [text, bytes] : cases) {
    Result<uint64_t> r = parse_size(text);
    ASSERT_TRUE(r.ok()) << text << ": " << err(r);
    EXPECT_EQ(*r, bytes) << text;
  }
}

TEST(ParseSize, Invalid) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"", "expected"},
      {"   ", "expected"},
      {"lots", "expected"},
      {"K", "expected"},
      {"MiB", "expected"},
      {"1KK", "expected"},
      {"1 2", "expected"},
      {"1iB", "expected"},
      {"1Ki", "expected"},
      {"1e6", "expected"},
      {"0x10", "expected"},
      {"+5", "expected"},
      {"1.", "expected"},
      {".5K", "expected"},
      {"1,5K", "expected"},
      {"1.5.5", "expected"},
      {"16 M B", "expected"},
      {"-1", "negative"},
      {"-1K", "negative"},
      {" -0", "negative"},
      {"1.5", "not a whole number of bytes"},
      {"1.3K", "not a whole number of bytes"},
      {"0.1", "not a whole number of bytes"},
      {"16E", "too large"},
      {"16EiB", "too large"},
      {"18446744073709551616", "too large"},
      {"99999999999999999999999999999999999999999999", "too large"},
      {"17179869184G", "too large"},
      {"1.0000000000000000000000000000000000000001K", "too many digits"},
      {"0.0000000000000000000000000000000000000000001K", "too many digits"},
  };
  for (const auto& [text, why] : cases) {
    Result<uint64_t> r = parse_size(text);
    ASSERT_FALSE(r.ok()) << "'" << text << "' parsed as " << *r;
    EXPECT_EQ(r.status().code(), TAPIO_ERR_CONFIG);
    EXPECT_NE(r.status().message().find(why), std::string::npos) << text << ": " << err(r);
    EXPECT_NE(r.status().message().find(fmt::format("'{}'", text)), std::string::npos);
  }
  EXPECT_EQ(err(parse_size("lots")),
            "invalid size 'lots': expected a number of bytes with an optional unit, like 4096, "
            "64K or 16MiB");
  EXPECT_EQ(err(parse_size("-1K")), "invalid size '-1K': negative");
}

// ---- normalize_param -------------------------------------------------------------------------

TEST(Normalize, Integer) {
  EXPECT_EQ(norm("ranks_per_node", "0"), "0");
  EXPECT_EQ(norm("ranks_per_node", "12"), "12");
  EXPECT_EQ(norm("ranks_per_node", " 4 "), "4");
  EXPECT_EQ(norm("ranks_per_node", "007"), "7");
  EXPECT_EQ(norm("ranks_per_node", "9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(norm("ranks_per_node", "-1"),
            "ERROR: 'ranks_per_node' must be at least 0 (got '-1')");
  EXPECT_EQ(norm("ranks_per_node", "lots"),
            "ERROR: 'ranks_per_node' must be an integer (got 'lots')");
  for (std::string_view bad : {"", "1.5", "4K", "1e3", "+3", "3x", "9223372036854775808"})
    EXPECT_EQ(normalize_param("ranks_per_node", bad).status().code(), TAPIO_ERR_CONFIG) << bad;
  EXPECT_EQ(norm("aggregators_per_node", "0"),
            "ERROR: 'aggregators_per_node' must be at least 1 (got '0')");
  EXPECT_EQ(norm("aggregators_per_node", "2"), "2");
}

TEST(Normalize, IntegerWithExtraWord) {
  EXPECT_EQ(norm("aggregators", "auto"), "auto");
  EXPECT_EQ(norm("aggregators", "AUTO"), "auto");
  EXPECT_EQ(norm("aggregators", " auto "), "auto");
  EXPECT_EQ(norm("aggregators", "8"), "8");
  EXPECT_EQ(norm("aggregators", "0"), "ERROR: 'aggregators' must be at least 1 (got '0')");
  EXPECT_EQ(norm("aggregators", "many"),
            "ERROR: 'aggregators' must be an integer, a ratio like 1/4, 'auto' or 'all' (got "
            "'many')");
}

// A count is also a ratio m/n of the ranks, kept in lowest terms.
TEST(Normalize, CountAsRatio) {
  EXPECT_EQ(norm("aggregators", "1/4"), "1/4");
  EXPECT_EQ(norm("aggregators", " 1 / 4 "), "1/4");
  EXPECT_EQ(norm("aggregators", "2/8"), "1/4");
  EXPECT_EQ(norm("aggregators", "3/8"), "3/8");
  EXPECT_EQ(norm("aggregators", "1/1"), "1/1");
  EXPECT_EQ(norm("aggregators", "1/0"),
            "ERROR: 'aggregators' must be a ratio m/n with n at least 1 (got '1/0')");
  EXPECT_EQ(norm("aggregators", "0/4"),
            "ERROR: 'aggregators' must be a ratio m/n with m at least 1 (got '0/4')");
  EXPECT_EQ(norm("aggregators", "-1/4"),
            "ERROR: 'aggregators' must be a ratio m/n with m at least 1 (got '-1/4')");
  EXPECT_EQ(norm("aggregators", "5/4"),
            "ERROR: 'aggregators' must be a ratio m/n with m at most n (at most one per rank) "
            "(got '5/4')");
  EXPECT_EQ(norm("aggregators", "x/4"),
            "ERROR: 'aggregators' must be an integer, a ratio like 1/4, 'auto' or 'all' (got "
            "'x/4')");
  for (std::string_view bad : {"/4", "1/", "/", "1//4", "1/4/2", "1.5/4", "+1/4", "1/4x",
                               "auto/4", "99999999999999999999/4"})
    EXPECT_EQ(norm("aggregators", bad),
              fmt::format("ERROR: 'aggregators' must be an integer, a ratio like 1/4, 'auto' or "
                          "'all' (got '{}')",
                          bad));
  // Ratios are for counts only.
  EXPECT_EQ(norm("ranks_per_node", "1/4"),
            "ERROR: 'ranks_per_node' must be an integer (got '1/4')");
}

TEST(ParseRankRatio, LowestTermsAndErrors) {
  const Result<RankRatio> r = parse_rank_ratio("6/16");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->num, 3);
  EXPECT_EQ(r->den, 8);
  EXPECT_EQ(err(parse_rank_ratio("1/0")), "invalid ratio '1/0': expected m/n with n at least 1");
  EXPECT_EQ(err(parse_rank_ratio("0/4")), "invalid ratio '0/4': expected m/n with m at least 1");
  EXPECT_EQ(err(parse_rank_ratio("x/4")), "invalid ratio 'x/4': expected m/n of whole numbers");
  EXPECT_EQ(err(parse_rank_ratio("4")), "invalid ratio '4': expected m/n of whole numbers");
  EXPECT_EQ(parse_rank_ratio("2/1").status().code(), TAPIO_ERR_CONFIG);
}

TEST(Normalize, Size) {
  EXPECT_EQ(norm("buffer_size", "32MiB"), "33554432");
  EXPECT_EQ(norm("buffer_size", "4096"), "4096");
  EXPECT_EQ(norm("buffer_size", "1.5k"), "1536");
  EXPECT_EQ(norm("buffer_size", "lots"),
            "ERROR: 'buffer_size' must be a size like 16MiB or 'auto' (got 'lots')");
  EXPECT_EQ(norm("buffer_size", "-4K"),
            "ERROR: 'buffer_size' must be a size like 16MiB or 'auto' (got '-4K'): negative");
  EXPECT_EQ(norm("buffer_size", "1.3K"),
            "ERROR: 'buffer_size' must be a size like 16MiB or 'auto' (got '1.3K'): not a whole number of "
            "bytes");
  EXPECT_EQ(norm("buffer_size", "20E"),
            "ERROR: 'buffer_size' must be a size like 16MiB or 'auto' (got '20E'): too large");
  EXPECT_EQ(norm("buffer_size", "0"), "ERROR: 'buffer_size' must be at least 1 (got '0')");
  EXPECT_EQ(norm("header_pad", "0"), "0");
  EXPECT_EQ(norm("metadata_prefetch", "0"), "0");
  EXPECT_EQ(norm("stripe_size", "0"), "ERROR: 'stripe_size' must be at least 1 (got '0')");
}

TEST(Normalize, PowerOfTwoSize) {
  EXPECT_EQ(norm("data_align", "1"), "1");
  EXPECT_EQ(norm("data_align", "4K"), "4096");
  EXPECT_EQ(norm("data_align", "1MiB"), "1048576");
  EXPECT_EQ(norm("data_align", "8E"), std::to_string(1ull << 63));
  EXPECT_EQ(norm("data_align", "1000"), "ERROR: 'data_align' must be a power of two (got '1000')");
  EXPECT_EQ(norm("data_align", "3K"), "ERROR: 'data_align' must be a power of two (got '3K')");
  EXPECT_EQ(norm("data_align", "0"), "ERROR: 'data_align' must be at least 1 (got '0')");
}

TEST(Normalize, Boolean) {
  for (std::string_view t : {"true", "TRUE", "True", "on", "ON", "1", " true "})
    EXPECT_EQ(norm("fill", t), "true") << t;
  for (std::string_view f : {"false", "FALSE", "off", "Off", "0"})
    EXPECT_EQ(norm("pipeline", f), "false") << f;
  EXPECT_EQ(norm("fill", "yes"), "ERROR: 'fill' must be true or false (got 'yes')");
  for (std::string_view bad : {"", "2", "t", "enable", "-1"})
    EXPECT_EQ(normalize_param("fill", bad).status().code(), TAPIO_ERR_CONFIG) << bad;
}

TEST(Normalize, Enum) {
  EXPECT_EQ(norm("fsync", "never"), "never");
  EXPECT_EQ(norm("fsync", "step"), "step");
  EXPECT_EQ(norm("fsync", "close"), "close");
  EXPECT_EQ(norm("fsync", "STEP"), "step");
  EXPECT_EQ(norm("placement", "rank-order"), "rank-order");
  EXPECT_EQ(norm("netcdf_version", "2"), "2");
  EXPECT_EQ(norm("netcdf_version", "1"), "1");
  EXPECT_EQ(norm("fsync", "sometimes"),
            "ERROR: 'fsync' must be one of never, step, close (got 'sometimes')");
  EXPECT_EQ(norm("fsync", "clsoe"),
            "ERROR: 'fsync' must be one of never, step, close (got 'clsoe'); did you mean "
            "'close'?");
  EXPECT_EQ(norm("netcdf_version", "3"),
            "ERROR: 'netcdf_version' must be one of 5, 2, 1 (got '3')");
  EXPECT_EQ(norm("placement", "rank_order"),
            "ERROR: 'placement' must be one of spread, rank-order (got 'rank_order'); did you "
            "mean 'rank-order'?");
  EXPECT_EQ(normalize_param("fsync", "").status().code(), TAPIO_ERR_CONFIG);
}

TEST(Normalize, String) {
  EXPECT_EQ(norm("profile", ""), "");
  EXPECT_EQ(norm("profile", "/tmp/run 1/profile.json"), "/tmp/run 1/profile.json");
  EXPECT_EQ(norm("profile", " keep spaces "), " keep spaces ");
  EXPECT_EQ(norm("mpiio_hints", "cb_nodes=2,romio_cb_write=enable"),
            "cb_nodes=2,romio_cb_write=enable");
}

TEST(Normalize, UnknownNames) {
  EXPECT_EQ(norm("bufer_size", "1"), "ERROR: unknown parameter 'bufer_size'; did you mean "
                                     "'buffer_size'?");
  EXPECT_EQ(norm("xyzzy", "1"), "ERROR: unknown parameter 'xyzzy'");
  EXPECT_EQ(norm("engine", "serial"),
            "ERROR: 'engine' is not a parameter: choose the engine when opening, or with a "
            "config rule");
  EXPECT_EQ(normalize_param("", "1").status().code(), TAPIO_ERR_CONFIG);
}

// ---- Params ----------------------------------------------------------------------------------

TEST(Params, DefaultsAreCanonical) {
  Params p;
  EXPECT_FALSE(p.has("buffer_size"));
  EXPECT_EQ(p.get("buffer_size"), "16777216");
  EXPECT_EQ(p.get_size("buffer_size"), 16u << 20);
  EXPECT_EQ(p.get_size("data_align"), 512u);
  EXPECT_EQ(p.get_size("header_pad"), 4096u);
  EXPECT_EQ(p.get_size("stripe_size"), 1u << 20);
  EXPECT_EQ(p.get_size("metadata_prefetch"), 1u << 20);
  EXPECT_EQ(p.get("fsync"), "close");
  EXPECT_EQ(p.get("netcdf_version"), "5");
  EXPECT_EQ(p.get_int("netcdf_version"), 5);
  EXPECT_TRUE(p.get_bool("fill"));
  EXPECT_TRUE(p.get_bool("pipeline"));
  EXPECT_EQ(p.get("profile"), "");
  EXPECT_EQ(p.get_int("ranks_per_node"), 0);
  EXPECT_EQ(p.get("aggregators"), "auto");
  EXPECT_EQ(p.get_int("aggregators"), 0);  // extra words read as 0
  EXPECT_EQ(p.get_int("aggregators_per_node"), 1);
  EXPECT_TRUE(p.values().empty());
  // Every default is what normalize_param makes of the registry's text.
  for (const ParamDef& def : param_registry())
    EXPECT_EQ(p.get(def.name), *normalize_param(def.name, def.default_value)) << def.name;
}

TEST(Params, SetAndGet) {
  Params p;
  ASSERT_TRUE(p.set("buffer_size", "32MiB").ok());
  ASSERT_TRUE(p.set("fill", "off").ok());
  ASSERT_TRUE(p.set("aggregators", "4").ok());
  ASSERT_TRUE(p.set("fsync", "Step").ok());
  ASSERT_TRUE(p.set("profile", "/tmp/p.json").ok());
  EXPECT_TRUE(p.has("buffer_size"));
  EXPECT_EQ(p.get("buffer_size"), "33554432");
  EXPECT_EQ(p.get_size("buffer_size"), 32u << 20);
  EXPECT_EQ(p.get_int("buffer_size"), 32 << 20);
  EXPECT_FALSE(p.get_bool("fill"));
  EXPECT_EQ(p.get_int("aggregators"), 4);
  EXPECT_EQ(p.get("fsync"), "step");
  EXPECT_EQ(p.get("profile"), "/tmp/p.json");
  EXPECT_EQ(p.values().size(), 5u);
  // Setting again replaces.
  ASSERT_TRUE(p.set("buffer_size", "1K").ok());
  EXPECT_EQ(p.get_size("buffer_size"), 1024u);
  ASSERT_TRUE(p.set("aggregators", "2/8").ok());
  EXPECT_EQ(p.get("aggregators"), "1/4");
  EXPECT_EQ(p.get_int("aggregators"), 0);  // a ratio is not a number of ranks
}

TEST(Params, InvalidSetKeepsOldValue) {
  Params p;
  ASSERT_TRUE(p.set("buffer_size", "1M").ok());
  Status s = p.set("buffer_size", "lots");
  EXPECT_EQ(s.code(), TAPIO_ERR_CONFIG);
  EXPECT_EQ(s.message(), "'buffer_size' must be a size like 16MiB or 'auto' (got 'lots')");
  EXPECT_EQ(p.get_size("buffer_size"), 1u << 20);
  s = p.set("fsycn", "never");
  EXPECT_EQ(s.message(), "unknown parameter 'fsycn'; did you mean 'fsync'?");
  EXPECT_FALSE(p.has("fsycn"));
  EXPECT_EQ(p.set("engine", "serial").code(), TAPIO_ERR_CONFIG);
  EXPECT_EQ(p.values().size(), 1u);
}

TEST(Params, UnknownNamesReadAsEmpty) {
  Params p;
  EXPECT_FALSE(p.has("nope"));
  EXPECT_EQ(p.get("nope"), "");
  EXPECT_EQ(p.get_int("nope"), 0);
  EXPECT_EQ(p.get_size("nope"), 0u);
  EXPECT_FALSE(p.get_bool("nope"));
  EXPECT_EQ(p.get_int("fsync"), 0);  // not numeric
}

// ---- docs/tuning.md --------------------------------------------------------------------------

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  std::getline(in, cell, '|');  // before the first '|'
  while (std::getline(in, cell, '|')) {
    size_t b = cell.find_first_not_of(' '), e = cell.find_last_not_of(' ');
    cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  return cells;
}

// Parameter-table rows of docs/tuning.md: | `name` | type | `default` | unit | engines | ... |
std::map<std::string, std::vector<std::string>> doc_rows() {
  std::ifstream in(TAPIO_SOURCE_DIR "/docs/tuning.md");
  EXPECT_TRUE(in.good()) << "cannot read " TAPIO_SOURCE_DIR "/docs/tuning.md";
  std::map<std::string, std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells = split_row(line);
    if (cells.size() < 6) continue;
    std::string name = cells[0].substr(1, cells[0].size() - 2);
    EXPECT_TRUE(rows.emplace(name, cells).second) << "duplicate row for " << name;
  }
  return rows;
}

TEST(TuningDoc, ListsEveryParameterWithItsDefault) {
  std::map<std::string, std::vector<std::string>> rows = doc_rows();
  for (const ParamDef& def : param_registry()) {
    SCOPED_TRACE(std::string(def.name));
    auto it = rows.find(std::string(def.name));
    ASSERT_NE(it, rows.end()) << "docs/tuning.md has no table row for this parameter";
    const std::vector<std::string>& cells = it->second;
    std::string shown_default = def.default_value.empty() ? "\"\"" : std::string(def.default_value);
    EXPECT_EQ(cells[1], param_kind_name(def.kind));
    EXPECT_EQ(cells[2], "`" + shown_default + "`");
    EXPECT_EQ(cells[3], def.unit.empty() ? "" : std::string(def.unit));
    EXPECT_EQ(cells[4], def.engines);
  }
}

TEST(TuningDoc, HasNoRowsForUnknownParameters) {
  for (const auto& [name, cells] : doc_rows())
    EXPECT_NE(find_param(name), nullptr) << "docs/tuning.md documents unknown '" << name << "'";
}

}  // namespace
}  // namespace tapio
