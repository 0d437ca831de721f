// Helpers shared by the io unit tests: a temporary directory, deterministic data, an
// independent reader (std::ifstream, not the code under test) and counter comparisons.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/status.h"
#include "io/counters.h"

namespace tapio::io::testing {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tapio_io_XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << tmpl;
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// n pseudo-random bytes (xorshift32), different for each seed.
inline std::vector<unsigned char> pattern(size_t n, uint32_t seed) {
  std::vector<unsigned char> out(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out[i] = static_cast<unsigned char>(x >> 24);
  }
  return out;
}

// The whole file, read without the code under test.
inline std::vector<unsigned char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in),
                                    std::istreambuf_iterator<char>());
}

// Byte-by-byte comparison that names the first differing byte.
inline ::testing::AssertionResult same_bytes(const unsigned char* expected,
                                              const unsigned char* actual, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (expected[i] != actual[i]) {
      return ::testing::AssertionFailure()
             << "byte " << i << " of " << n << ": expected " << int(expected[i]) << ", got "
             << int(actual[i]);
    }
  }
  return ::testing::AssertionSuccess();
}

inline const Status& status_of(const Status& s) { return s; }
template <typename T>
const Status& status_of(const Result<T>& r) {
  return r.status();
}

#define IO_ASSERT_OK(expr)                                              \
  do {                                                                  \
    const auto& io_result_ = (expr);                                    \
    ASSERT_TRUE(::tapio::io::testing::status_of(io_result_).ok())       \
        << ::tapio::io::testing::status_of(io_result_).message();       \
  } while (0)

// Compare every counter except the three times, naming the first mismatches.
inline void expect_counts_eq(const Counters& expected, const Counters& actual) {
  const std::vector<std::string> names = Counters::names();
  const std::vector<double> e = expected.values();
  const std::vector<double> a = actual.values();
  ASSERT_EQ(names.size(), e.size());
  ASSERT_EQ(names.size(), a.size());
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].rfind("POSIX_F_", 0) == 0) continue;  // times
    EXPECT_EQ(e[i], a[i]) << names[i];
  }
}

}  // namespace tapio::io::testing
