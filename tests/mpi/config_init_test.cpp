// The config file at tapio_init (issue 29, item 2): given to some ranks only, at different
// paths, with different contents, or missing or invalid on some ranks, it is TAPIO_ERR_CONFIG
// on every rank naming the ranks that differ, never a hang. Each rank runs in a directory of its
// own, so one relative path names a different file on each rank.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_util.h"

namespace tapio::test {
namespace {

const char kRules[] = "[[rule]]\nio = \"cfg\"\nengine = \"subfile\"\n";

// Runs `body` on every rank inside <dir>/rank<r>, then returns to the directory it came from.
class RankDirs {
 public:
  RankDirs() : back_(std::filesystem::current_path()) {
    const std::string mine = dir_.file("rank" + std::to_string(rank()));
    std::filesystem::create_directory(mine);
    std::filesystem::current_path(mine);
  }
  ~RankDirs() { std::filesystem::current_path(back_); }
  std::string absolute(const std::string& name) const { return dir_.file(name); }

 private:
  TempDir dir_;
  std::filesystem::path back_;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

// Rank 0 writes kRules to one file every rank sees: its absolute path.
std::string shared_rules(const RankDirs& dirs) {
  const std::string path = dirs.absolute("rules.toml");
  if (rank() == 0) write_file(path, kRules);
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

// tapio_init on every rank with `path` (nullptr: none) and, where `env` is set, TAPIO_CONFIG:
// the outcome, after checking every rank got the same one.
Outcome init_with(const char* path, const char* env) {
  if (env) setenv("TAPIO_CONFIG", env, 1);
  tapio_context* ctx = nullptr;
  const Outcome o = outcome(tapio_init(MPI_COMM_WORLD, path, &ctx));
  unsetenv("TAPIO_CONFIG");
  if (o.code == TAPIO_OK) {
    EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
  }
  expect_same_everywhere(o.code);
  return o;
}

// The same error on every rank: each rank's message reaches rank 0, which compares.
void expect_same_message(const std::string& message) {
  std::vector<char> mine(message.begin(), message.end());
  mine.resize(1024, '\0');
  std::vector<char> all(rank() == 0 ? mine.size() * size() : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
             static_cast<int>(mine.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  for (int r = 1; rank() == 0 && r < size(); ++r)
    EXPECT_EQ(std::string(all.data() + r * mine.size()), std::string(mine.data()))
        << "rank " << r << " got another message";
}

TEST(ConfigAtInit, TheSameFileOnEveryRankIsUsed) {
  RankDirs dirs;
  const std::string path = shared_rules(dirs);
  tapio_context* ctx = nullptr;
  ASSERT_EQ(tapio_init(MPI_COMM_WORLD, path.c_str(), &ctx), TAPIO_OK) << tapio_last_error();
  tapio_io* io;
  ASSERT_EQ(tapio_declare_io(ctx, "cfg", &io), TAPIO_OK);
  tapio_engine* e;
  ASSERT_EQ(tapio_open(io, dirs.absolute("out.nc").c_str(), TAPIO_MODE_WRITE, &e), TAPIO_OK);
  const char* name = nullptr;
  EXPECT_EQ(tapio_engine_name(e, &name), TAPIO_OK);
  EXPECT_STREQ(name, "subfile");  // the rule chose it over the .nc default
  EXPECT_EQ(tapio_close(e), TAPIO_OK);
  EXPECT_EQ(tapio_finalize(ctx), TAPIO_OK);
}

TEST(ConfigAtInit, ConfigPathOnOneRankOnlyFailsEverywhere) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  RankDirs dirs;
  const std::string path = shared_rules(dirs);
  const Outcome o = init_with(rank() == 1 ? path.c_str() : nullptr, nullptr);
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "the config file differs across ranks")) << o.message;
  EXPECT_TRUE(contains(o.message, "rank 0 has no config file")) << o.message;
  EXPECT_TRUE(contains(o.message, "rank 1 has config file '" + path + "' (from config_path)"))
      << o.message;
  EXPECT_TRUE(contains(o.message, "(1 of " + std::to_string(size()) + " ranks differ")) << o.message;
  expect_same_message(o.message);
}

TEST(ConfigAtInit, TapioConfigOnSomeRanksFailsEverywhere) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  RankDirs dirs;
  const std::string path = shared_rules(dirs);
  const Outcome o = init_with(nullptr, rank() % 2 ? path.c_str() : nullptr);
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "rank 1 has config file '" + path + "' (from TAPIO_CONFIG)"))
      << o.message;
  EXPECT_TRUE(contains(o.message, std::to_string(size() / 2) + " of " + std::to_string(size())))
      << o.message;
  expect_same_message(o.message);
}

TEST(ConfigAtInit, DifferentPathsFailEverywhere) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  RankDirs dirs;
  write_file("rules.toml", kRules);
  const std::string mine = std::filesystem::absolute("rules.toml").string();
  const Outcome o = init_with(mine.c_str(), nullptr);
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "rank0/rules.toml' (from config_path), rank 1 has config file"))
      << o.message;
  expect_same_message(o.message);
}

// One relative path, a file of its own on each rank: missing, different or invalid on the last.
TEST(ConfigAtInit, MissingDifferentOrInvalidOnOneRankFailsEverywhere) {
  if (size() < 2) GTEST_SKIP() << "needs two ranks";
  const bool last = rank() == size() - 1;
  struct Case {
    const char* name;
    const char* on_last;  // nullptr: no file
    const char* names;    // the last rank's side of the message
  };
  const Case cases[] = {
      {"missing", nullptr, "has config file 'rules.toml': cannot open: No such file"},
      {"different", "[[rule]]\nengine = \"serial\"\n", "has config file 'rules.toml' of 27 bytes"},
      {"invalid", "[[rule]\n", "has config file 'rules.toml' of 8 bytes"},
  };
  for (const Case& c : cases) {
    RankDirs dirs;
    if (!last) write_file("rules.toml", kRules);
    if (last && c.on_last) write_file("rules.toml", c.on_last);
    const Outcome o = init_with("rules.toml", nullptr);
    EXPECT_EQ(o.code, TAPIO_ERR_CONFIG) << c.name;
    EXPECT_TRUE(contains(o.message, "rank 0 has config file 'rules.toml' of 39 bytes"))
        << c.name << ": " << o.message;
    EXPECT_TRUE(contains(o.message, "rank " + std::to_string(size() - 1) + " " + c.names))
        << c.name << ": " << o.message;
    expect_same_message(o.message);
  }
}

// Alike on every rank, a missing or invalid file is its own error, naming the file and line.
TEST(ConfigAtInit, MissingOrInvalidEverywhereNamesTheFile) {
  RankDirs dirs;
  const std::string path = dirs.absolute("rules.toml");
  Outcome o = init_with(path.c_str(), nullptr);
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "config file '" + path + "': cannot open")) << o.message;
  if (rank() == 0) write_file(path, "[[rule]]\nengin = \"serial\"\n");
  MPI_Barrier(MPI_COMM_WORLD);
  o = init_with(nullptr, path.c_str());
  EXPECT_EQ(o.code, TAPIO_ERR_CONFIG);
  EXPECT_TRUE(contains(o.message, "config file '" + path + "', line 2: unknown key 'engin'"))
      << o.message;
  expect_same_message(o.message);
}

}  // namespace
}  // namespace tapio::test
