#include "core/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace tapio {
namespace {

Config parse_ok(std::string_view text) {
  Result<Config> r = Config::parse(text, "tapio.toml");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Config();
}

// The error message of parsing `text` (as 'tapio.toml'), or "<ok>".
std::string parse_error(std::string_view text) {
  Result<Config> r = Config::parse(text, "tapio.toml");
  if (r.ok()) return "<ok>";
  EXPECT_EQ(r.status().code(), TAPIO_ERR_CONFIG);
  return r.status().message();
}

// ---- parsing ---------------------------------------------------------------------------------

TEST(ConfigParse, EmptyAndCommentsOnly) {
  EXPECT_TRUE(parse_ok("").rules().empty());
  EXPECT_TRUE(parse_ok("# nothing here\n\n   # still nothing\n").rules().empty());
  EXPECT_EQ(parse_ok("").source(), "tapio.toml");
}

TEST(ConfigParse, FullExample) {
  Config c = parse_ok(R"(# site defaults
[[rule]]
fsync = "step"
buffer_size = "32MiB"

[[rule]]
io = "history*"
path = "/scratch/*.nc"
engine = "collective"
aggregators = "auto"
aggregators_per_node = 2
stripe_size = 4194304
pipeline = false
fill = "off"
netcdf_version = 2
data_align = "1MiB"
profile = "/tmp/profile.json"
mpiio_hints = "cb_nodes=2,romio_cb_write=enable"

[[rule]]  # matches everything, changes nothing
)");
  ASSERT_EQ(c.rules().size(), 3u);
  const ConfigRule& r1 = c.rules()[0];
  EXPECT_EQ(r1.line, 2);
  EXPECT_EQ(r1.io_glob, "");
  EXPECT_EQ(r1.path_glob, "");
  EXPECT_EQ(r1.engine, "");
  EXPECT_EQ(r1.params, (std::map<std::string, std::string>{{"fsync", "step"},
                                                           {"buffer_size", "33554432"}}));
  const ConfigRule& r2 = c.rules()[1];
  EXPECT_EQ(r2.line, 6);
  EXPECT_EQ(r2.io_glob, "history*");
  EXPECT_EQ(r2.path_glob, "/scratch/*.nc");
  EXPECT_EQ(r2.engine, "collective");
  EXPECT_EQ(r2.params, (std::map<std::string, std::string>{
                           {"aggregators", "auto"},
                           {"aggregators_per_node", "2"},
                           {"stripe_size", "4194304"},
                           {"pipeline", "false"},
                           {"fill", "false"},
                           {"netcdf_version", "2"},
                           {"data_align", "1048576"},
                           {"profile", "/tmp/profile.json"},
                           {"mpiio_hints", "cb_nodes=2,romio_cb_write=enable"},
                       }));
  EXPECT_EQ(c.rules()[2].line, 20);
  EXPECT_TRUE(c.rules()[2].params.empty());
}

TEST(ConfigParse, AcceptedTomlTypesPerKind) {
  // Sizes: integer bytes or a string with a unit.
  EXPECT_EQ(parse_ok("[[rule]]\nbuffer_size = 1024\n").rules()[0].params.at("buffer_size"),
            "1024");
  EXPECT_EQ(parse_ok("[[rule]]\nbuffer_size = '2k'\n").rules()[0].params.at("buffer_size"),
            "2048");
  // Integers: TOML integer or decimal string; extra words as strings.
  EXPECT_EQ(parse_ok("[[rule]]\nranks_per_node = 4\n").rules()[0].params.at("ranks_per_node"),
            "4");
  EXPECT_EQ(parse_ok("[[rule]]\nranks_per_node = '4'\n").rules()[0].params.at("ranks_per_node"),
            "4");
  EXPECT_EQ(parse_ok("[[rule]]\naggregators = 3\n").rules()[0].params.at("aggregators"), "3");
  // Counts: integers as above, or a ratio of the ranks as a string.
  EXPECT_EQ(parse_ok("[[rule]]\naggregators = '1/4'\n").rules()[0].params.at("aggregators"),
            "1/4");
  EXPECT_EQ(parse_ok("[[rule]]\naggregators = \"2/16\"\n").rules()[0].params.at("aggregators"),
            "1/8");
  // Booleans: TOML booleans, the words, and 0/1.
  EXPECT_EQ(parse_ok("[[rule]]\nfill = false\n").rules()[0].params.at("fill"), "false");
  EXPECT_EQ(parse_ok("[[rule]]\nfill = true\n").rules()[0].params.at("fill"), "true");
  EXPECT_EQ(parse_ok("[[rule]]\nfill = 'on'\n").rules()[0].params.at("fill"), "true");
  EXPECT_EQ(parse_ok("[[rule]]\nfill = 0\n").rules()[0].params.at("fill"), "false");
  // Enums: strings, and integers for numeric choices.
  EXPECT_EQ(parse_ok("[[rule]]\nnetcdf_version = 1\n").rules()[0].params.at("netcdf_version"),
            "1");
  EXPECT_EQ(parse_ok("[[rule]]\nnetcdf_version = '5'\n").rules()[0].params.at("netcdf_version"),
            "5");
  EXPECT_EQ(parse_ok("[[rule]]\nfsync = 'never'\n").rules()[0].params.at("fsync"), "never");
  // Strings: strings.
  EXPECT_EQ(parse_ok("[[rule]]\nprofile = ''\n").rules()[0].params.at("profile"), "");
  // Inline-table and array-of-inline-tables spellings of the rules are the same thing.
  Config inline_rules = parse_ok("rule = [{io = 'a', fsync = 'step'}, {engine = 'serial'}]\n");
  ASSERT_EQ(inline_rules.rules().size(), 2u);
  EXPECT_EQ(inline_rules.rules()[0].io_glob, "a");
  EXPECT_EQ(inline_rules.rules()[1].engine, "serial");
  EXPECT_TRUE(parse_ok("rule = []\n").rules().empty());
}

TEST(ConfigParse, EveryEngine) {
  for (std::string_view e : engine_names()) {
    Config c = parse_ok(fmt::format("[[rule]]\nengine = '{}'\n", e));
    EXPECT_EQ(c.rules()[0].engine, e);
  }
}

// ---- errors ----------------------------------------------------------------------------------

TEST(ConfigErrors, UnknownKeyWithSuggestion) {
  EXPECT_EQ(parse_error("# tapio config\n"
                        "[[rule]]\n"
                        "fsync = 'close'\n"
                        "\n"
                        "[[rule]]\n"
                        "io = 'restart'\n"
                        "bufer_size = '32MiB'\n"),
            "config file 'tapio.toml', line 7: unknown key 'bufer_size' in [[rule]] 2; did you "
            "mean 'buffer_size'?");
  EXPECT_EQ(parse_error("[[rule]]\npth = '*.nc'\n"),
            "config file 'tapio.toml', line 2: unknown key 'pth' in [[rule]] 1; did you mean "
            "'path'?");
  EXPECT_EQ(parse_error("[[rule]]\nengnie = 'serial'\n"),
            "config file 'tapio.toml', line 2: unknown key 'engnie' in [[rule]] 1; did you mean "
            "'engine'?");
}

TEST(ConfigErrors, UnknownKeyWithoutSuggestion) {
  EXPECT_EQ(parse_error("[[rule]]\n\n\ncompression = 'zstd'\n"),
            "config file 'tapio.toml', line 4: unknown key 'compression' in [[rule]] 1");
}

TEST(ConfigErrors, FirstErrorInFileOrder) {
  // toml++ keeps keys sorted; the error reported must still be the first in the file.
  EXPECT_EQ(parse_error("[[rule]]\nzz_unknown = 1\naa_unknown = 2\n"),
            "config file 'tapio.toml', line 2: unknown key 'zz_unknown' in [[rule]] 1");
}

TEST(ConfigErrors, BadEnumValue) {
  EXPECT_EQ(parse_error("[[rule]]\nio = '*'\nfsync = 'sometimes'\n"),
            "config file 'tapio.toml', line 3: 'fsync' must be one of never, step, close (got "
            "'sometimes')");
  EXPECT_EQ(parse_error("[[rule]]\nmetadata = 'logg'\n"),
            "config file 'tapio.toml', line 2: 'metadata' must be one of gather, log, aligned "
            "(got 'logg'); did you mean 'log'?");
  EXPECT_EQ(parse_error("[[rule]]\nnetcdf_version = 3\n"),
            "config file 'tapio.toml', line 2: 'netcdf_version' must be one of 5, 2, 1 (got "
            "'3')");
}

TEST(ConfigErrors, BadSize) {
  EXPECT_EQ(parse_error("[[rule]]\nbuffer_size = 'lots'\n"),
            "config file 'tapio.toml', line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got "
            "'lots')");
  EXPECT_EQ(parse_error("[[rule]]\nbuffer_size = -5\n"),
            "config file 'tapio.toml', line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got "
            "'-5'): negative");
  EXPECT_EQ(parse_error("[[rule]]\ndata_align = 1000\n"),
            "config file 'tapio.toml', line 2: 'data_align' must be a power of two (got '1000')");
  EXPECT_EQ(parse_error("[[rule]]\nstripe_size = 0\n"),
            "config file 'tapio.toml', line 2: 'stripe_size' must be at least 1 (got '0')");
}

TEST(ConfigErrors, BadIntegerAndBoolean) {
  EXPECT_EQ(parse_error("[[rule]]\naggregators = 'many'\n"),
            "config file 'tapio.toml', line 2: 'aggregators' must be an integer, a ratio like 1/4, "
            "'auto' or 'all' (got 'many')");
  EXPECT_EQ(parse_error("[[rule]]\nranks_per_node = -2\n"),
            "config file 'tapio.toml', line 2: 'ranks_per_node' must be at least 0 (got '-2')");
  EXPECT_EQ(parse_error("[[rule]]\nfill = 'maybe'\n"),
            "config file 'tapio.toml', line 2: 'fill' must be true or false (got 'maybe')");
  EXPECT_EQ(parse_error("[[rule]]\npipeline = 2\n"),
            "config file 'tapio.toml', line 2: 'pipeline' must be true or false (got '2')");
}

TEST(ConfigErrors, BadRatio) {
  EXPECT_EQ(parse_error("[[rule]]\naggregators = '1/0'\n"),
            "config file 'tapio.toml', line 2: 'aggregators' must be a ratio m/n with n at least 1 "
            "(got '1/0')");
  EXPECT_EQ(parse_error("[[rule]]\naggregators = '0/4'\n"),
            "config file 'tapio.toml', line 2: 'aggregators' must be a ratio m/n with m at least 1 "
            "(got '0/4')");
  EXPECT_EQ(parse_error("[[rule]]\naggregators = 'x/4'\n"),
            "config file 'tapio.toml', line 2: 'aggregators' must be an integer, a ratio like 1/4, "
            "'auto' or 'all' (got 'x/4')");
  EXPECT_EQ(parse_error("[[rule]]\naggregators = '8/4'\n"),
            "config file 'tapio.toml', line 2: 'aggregators' must be a ratio m/n with m at most n "
            "(at most one per rank) (got '8/4')");
  // A fraction is not a ratio: 0.25 is a TOML float.
  EXPECT_EQ(parse_error("[[rule]]\naggregators = 0.25\n"),
            "config file 'tapio.toml', line 2: 'aggregators' must be an integer, a ratio like 1/4, "
            "'auto' or 'all' (got a float 0.25)");
}

TEST(ConfigErrors, WrongTomlTypes) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {"buffer_size = 1.5",
       "line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got a float 1.5)"},
      {"buffer_size = [1, 2]", "line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got an array)"},
      {"buffer_size = { value = 1 }",
       "line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got a table)"},
      {"buffer_size = true",
       "line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got a boolean true)"},
      {"buffer_size = 1979-05-27",
       "line 2: 'buffer_size' must be a size like 16MiB or 'auto' (got a date or time)"},
      {"ranks_per_node = 2.0", "line 2: 'ranks_per_node' must be an integer (got a float 2)"},
      {"fsync = false",
       "line 2: 'fsync' must be one of never, step, close (got a boolean false)"},
      {"fill = 1.0", "line 2: 'fill' must be true or false (got a float 1)"},
      {"profile = 5", "line 2: 'profile' must be a string (got an integer 5)"},
      {"profile = true", "line 2: 'profile' must be a string (got a boolean true)"},
      {"mpiio_hints = ['cb_nodes=2']", "line 2: 'mpiio_hints' must be a string (got an array)"},
      {"io = 5", "line 2: 'io' must be a string glob (got an integer 5)"},
      {"path = ['*.nc']", "line 2: 'path' must be a string glob (got an array)"},
      {"engine = true", "line 2: 'engine' must be an engine name (got a boolean true)"},
  };
  for (const auto& [line, expected] : cases)
    EXPECT_EQ(parse_error(fmt::format("[[rule]]\n{}\n", line)),
              fmt::format("config file 'tapio.toml', {}", expected));
  // A sub-table of a rule is reported at its header.
  EXPECT_EQ(parse_error("[[rule]]\nio = 'x'\n[rule.buffer_size]\nvalue = 1\n"),
            "config file 'tapio.toml', line 3: 'buffer_size' must be a size like 16MiB or 'auto' (got a "
            "table)");
  EXPECT_EQ(parse_error("[[rule]]\n[rule.options]\nvalue = 1\n"),
            "config file 'tapio.toml', line 2: unknown key 'options' in [[rule]] 1");
}

TEST(ConfigErrors, UnknownEngine) {
  EXPECT_EQ(parse_error("[[rule]]\nio = 'a'\n[[rule]]\nengine = 'colective'\n"),
            "config file 'tapio.toml', line 4: unknown engine 'colective' in [[rule]] 2 (known "
            "engines: serial, mpiio, collective, subfile); did you mean 'collective'?");
  EXPECT_EQ(parse_error("[[rule]]\nengine = 'hdf5'\n"),
            "config file 'tapio.toml', line 2: unknown engine 'hdf5' in [[rule]] 1 (known "
            "engines: serial, mpiio, collective, subfile)");
  EXPECT_NE(parse_error("[[rule]]\nengine = 'Serial'\n").find("did you mean 'serial'?"),
            std::string::npos);
}

TEST(ConfigErrors, UnknownTopLevelKey) {
  EXPECT_EQ(parse_error("\nbuffer_size = '1M'\n"),
            "config file 'tapio.toml', line 2: unknown top-level key 'buffer_size': the top "
            "level may hold only [[rule]] tables; put 'buffer_size' inside a [[rule]]");
  EXPECT_EQ(parse_error("engine = 'serial'\n"),
            "config file 'tapio.toml', line 1: unknown top-level key 'engine': the top level "
            "may hold only [[rule]] tables; put 'engine' inside a [[rule]]");
  EXPECT_EQ(parse_error("[[rule]]\nio = 'a'\n\n[[rules]]\nio = 'b'\n"),
            "config file 'tapio.toml', line 4: unknown top-level key 'rules': the top level may "
            "hold only [[rule]] tables; did you mean 'rule'?");
  EXPECT_EQ(parse_error("[global]\nfsync = 'step'\n"),
            "config file 'tapio.toml', line 1: unknown top-level key 'global': the top level "
            "may hold only [[rule]] tables");
}

TEST(ConfigErrors, RuleMustBeArrayOfTables) {
  EXPECT_EQ(parse_error("[rule]\nio = 'a'\n"),
            "config file 'tapio.toml', line 1: 'rule' must be an array of tables, written "
            "[[rule]] (got a table)");
  EXPECT_EQ(parse_error("rule = 5\n"),
            "config file 'tapio.toml', line 1: 'rule' must be an array of tables, written "
            "[[rule]] (got an integer 5)");
  EXPECT_EQ(parse_error("rule = [{io = 'a'},\n  'b']\n"),
            "config file 'tapio.toml', line 2: 'rule' must be an array of tables, written "
            "[[rule]] (got 'b')");
}

TEST(ConfigErrors, SyntaxErrorHasLineAndColumn) {
  std::string e = parse_error("[[rule]]\nio = 'a'\nfsync = = 'step'\n");
  EXPECT_EQ(e.rfind("config file 'tapio.toml', line 3, column 9: TOML syntax error: ", 0), 0u)
      << e;
  e = parse_error("[[rule]]\nio = 'a\n");
  EXPECT_EQ(e.rfind("config file 'tapio.toml', line 2, column ", 0), 0u) << e;
  // Duplicate keys are a TOML error too.
  e = parse_error("[[rule]]\nfsync = 'step'\nfsync = 'close'\n");
  EXPECT_EQ(e.rfind("config file 'tapio.toml', line 3, column ", 0), 0u) << e;
  EXPECT_NE(e.find("TOML syntax error"), std::string::npos);
}

TEST(ConfigErrors, SourceNameAppearsInMessages) {
  Result<Config> r = Config::parse("[[rule]]\nfsync = 'x'\n", "/etc/tapio/site.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("config file '/etc/tapio/site.toml', line 2: ", 0), 0u);
}

// ---- load ------------------------------------------------------------------------------------

TEST(ConfigLoad, ReadsAFile) {
  char path[] = "/tmp/tapio_config_test_XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << "[[rule]]\nio = 'h*'\nfsync = 'never'\n";
  Result<Config> c = Config::load(path);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->source(), path);
  ASSERT_EQ(c->rules().size(), 1u);
  EXPECT_EQ(c->rules()[0].params.at("fsync"), "never");
  std::ofstream(path) << "[[rule]]\nfsync = 'x'\n";
  c = Config::load(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message().rfind(fmt::format("config file '{}', line 2: ", path), 0), 0u);
  std::remove(path);
}

TEST(ConfigLoad, MissingFile) {
  Result<Config> c = Config::load("/nonexistent/tapio.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), TAPIO_ERR_CONFIG);
  EXPECT_EQ(c.status().message(),
            "config file '/nonexistent/tapio.toml': cannot open: No such file or directory");
}

// ---- matching and apply ----------------------------------------------------------------------

TEST(ConfigRule, Matches) {
  ConfigRule any;
  EXPECT_TRUE(any.matches("", ""));
  EXPECT_TRUE(any.matches("history", "/scratch/out.nc"));
  ConfigRule io;
  io.io_glob = "hist*";
  EXPECT_TRUE(io.matches("history", "anything"));
  EXPECT_FALSE(io.matches("restart", "anything"));
  EXPECT_FALSE(io.matches("HISTORY", "anything"));  // case-sensitive
  ConfigRule path;
  path.path_glob = "*.nc";
  EXPECT_TRUE(path.matches("x", "out.nc"));
  EXPECT_TRUE(path.matches("x", "/scratch/run1/out.nc"));  // '*' crosses '/'
  EXPECT_FALSE(path.matches("x", "out.nc4"));
  ConfigRule both;
  both.io_glob = "restart";
  both.path_glob = "/scratch/[a-c]?.nc";
  EXPECT_TRUE(both.matches("restart", "/scratch/b1.nc"));
  EXPECT_FALSE(both.matches("restart", "/scratch/d1.nc"));
  EXPECT_FALSE(both.matches("history", "/scratch/b1.nc"));
}

const char* kRules = R"([[rule]]
buffer_size = "1MiB"
fsync = "step"

[[rule]]
io = "history*"
engine = "collective"
buffer_size = "2MiB"

[[rule]]
path = "/scratch/*"
engine = "subfile"
fill = false

[[rule]]
io = "restart"
path = "*.nc"
engine = "mpiio"
buffer_size = "3MiB"
)";

struct Applied {
  std::string engine;
  Params params;
};

Applied apply(const Config& c, std::string_view io, std::string_view path) {
  Applied a{"serial", {}};
  EXPECT_TRUE(a.params.set("buffer_size", "64K").ok());
  EXPECT_TRUE(a.params.set("netcdf_version", "2").ok());
  Status s = c.apply(io, path, &a.engine, &a.params);
  EXPECT_TRUE(s.ok()) << s.message();
  return a;
}

TEST(ConfigApply, NeitherGlobMatchesEverything) {
  Config c = parse_ok(kRules);
  Applied a = apply(c, "other", "/home/out.nc");
  EXPECT_EQ(a.engine, "serial");                     // no engine in the global rule
  EXPECT_EQ(a.params.get_size("buffer_size"), 1u << 20);  // rule 1 overrides the program
  EXPECT_EQ(a.params.get("fsync"), "step");
  EXPECT_EQ(a.params.get("netcdf_version"), "2");    // no rule sets it: program value
  EXPECT_TRUE(a.params.get_bool("fill"));            // nobody sets it: default
  EXPECT_FALSE(a.params.has("fill"));
}

TEST(ConfigApply, ByIoGlob) {
  Applied a = apply(parse_ok(kRules), "history_3d", "/home/out.nc");
  EXPECT_EQ(a.engine, "collective");
  EXPECT_EQ(a.params.get_size("buffer_size"), 2u << 20);  // rule 2 overrides rule 1
  EXPECT_EQ(a.params.get("fsync"), "step");               // from rule 1, untouched by rule 2
}

TEST(ConfigApply, ByPathGlob) {
  Applied a = apply(parse_ok(kRules), "other", "/scratch/x/out.nc");
  EXPECT_EQ(a.engine, "subfile");
  EXPECT_FALSE(a.params.get_bool("fill"));
  EXPECT_EQ(a.params.get_size("buffer_size"), 1u << 20);
}

TEST(ConfigApply, BothGlobsMustMatch) {
  Config c = parse_ok(kRules);
  Applied a = apply(c, "restart", "/home/r.nc");
  EXPECT_EQ(a.engine, "mpiio");
  EXPECT_EQ(a.params.get_size("buffer_size"), 3u << 20);
  a = apply(c, "restart", "/home/r.bin");  // path fails
  EXPECT_EQ(a.engine, "serial");
  EXPECT_EQ(a.params.get_size("buffer_size"), 1u << 20);
  a = apply(c, "restart2", "/home/r.nc");  // io fails
  EXPECT_EQ(a.engine, "serial");
}

TEST(ConfigApply, LaterRulesWin) {
  // io matches rule 2, path matches rule 3: rule 3 (later) sets the engine last.
  Applied a = apply(parse_ok(kRules), "history", "/scratch/h.nc");
  EXPECT_EQ(a.engine, "subfile");
  EXPECT_EQ(a.params.get_size("buffer_size"), 2u << 20);  // rule 3 does not set it
  EXPECT_FALSE(a.params.get_bool("fill"));
}

TEST(ConfigApply, ProgramThenRuleOneThenRuleTwo) {
  Config c = parse_ok("[[rule]]\nfsync = 'step'\nheader_pad = 0\n"
                      "[[rule]]\nfsync = 'never'\n");
  Params p;
  ASSERT_TRUE(p.set("fsync", "close").ok());
  ASSERT_TRUE(p.set("header_pad", "64K").ok());
  ASSERT_TRUE(p.set("data_align", "4K").ok());
  ASSERT_TRUE(c.apply("any", "any", nullptr, &p).ok());
  EXPECT_EQ(p.get("fsync"), "never");      // program < rule 1 < rule 2
  EXPECT_EQ(p.get_size("header_pad"), 0u);  // program < rule 1
  EXPECT_EQ(p.get_size("data_align"), 4096u);  // program only
}

TEST(ConfigApply, NullPointersAndEmptyConfig) {
  Config c = parse_ok(kRules);
  std::string engine = "serial";
  ASSERT_TRUE(c.apply("history", "", &engine, nullptr).ok());
  EXPECT_EQ(engine, "collective");
  ASSERT_TRUE(c.apply("history", "", nullptr, nullptr).ok());
  Params p;
  ASSERT_TRUE(Config().apply("x", "y", &engine, &p).ok());
  EXPECT_EQ(engine, "collective");
  EXPECT_TRUE(p.values().empty());
}

}  // namespace
}  // namespace tapio

namespace tapio {
namespace {

// The example in docs/tuning.md must stay a valid config.
TEST(TuningDoc, ExampleConfigParses) {
  std::ifstream in(TAPIO_SOURCE_DIR "/docs/tuning.md");
  ASSERT_TRUE(in.good());
  std::string line, toml;
  bool inside = false;
  int blocks = 0;
  while (std::getline(in, line)) {
    if (line == "```toml") inside = true, ++blocks;
    else if (inside && line == "```") inside = false;
    else if (inside) toml += line + "\n";
  }
  ASSERT_EQ(blocks, 1);
  Result<Config> c = Config::parse(toml, "docs/tuning.md example");
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->rules().size(), 5u);
  std::string engine = "serial";
  Params p;
  ASSERT_TRUE(c->apply("history_3d", "/lustre/run/h.nc", &engine, &p).ok());
  EXPECT_EQ(engine, "collective");
  EXPECT_EQ(p.get("fsync"), "step");
  EXPECT_EQ(p.get_size("stripe_size"), 4u << 20);
}

}  // namespace
}  // namespace tapio
