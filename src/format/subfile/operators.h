// Per-variable operators of the subfile format (docs/format.md, "Operators"): a writing rank
// encodes each block of a variable that has one before its bytes reach the subfile, and a
// reader decodes whole blocks. Pure code over bytes (zstd, zfp).
//
//   spec  = "none" | "zstd" [":level=" int] | "shuffle+zstd" [":level=" int]
//         | "zfp:" ("accuracy=" float | "rate=" float | "precision=" int)
//   rules = rule (";" rule)*        rule = [glob "="] spec      (the `operator` parameter)
//
// zstd takes any type; shuffle+zstd first groups the bytes of the elements by significance
// (byte k of every element together), which zstd then finds runs in; zfp takes float32 and
// float64 boxes (1 to 4 dimensions after dropping those of extent 1 and folding the slowest
// ones) and is lossy: accuracy bounds the absolute error, rate and precision do not.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/types.h"

namespace tapio::subfile {

// How a block is stored: the code in its block list (0 for a block stored as put).
enum class Codec : uint8_t { kNone = 0, kZstd = 1, kShuffleZstd = 2, kZfp = 3 };
inline constexpr uint8_t kCodecs = 4;  // codes below this are known
// A coded block holds at most this many times its stored bytes (zstd's best is about 2^15,
// zfp's 2^14): a reader checks it before it allocates for the decoded block, so a hostile
// block list cannot make it allocate more than a bound times what it reads.
inline constexpr uint64_t kMaxRatio = uint64_t{1} << 17;

struct Operator {
  enum class ZfpMode { kAccuracy, kRate, kPrecision };
  Codec codec = Codec::kNone;
  int level = 3;  // zstd, shuffle+zstd
  ZfpMode zfp_mode = ZfpMode::kAccuracy;
  double zfp_value = 0;  // the accuracy (absolute), rate (bits per value) or precision (bits)

  std::string text() const;  // canonical spec: "zstd:level=3", "zfp:accuracy=0.001"
  // The absolute error bound of a lossy operator that has one (zfp accuracy), else 0.
  double error_bound() const;
};

// Parse one spec. TAPIO_ERR_CONFIG for an unknown operator or key, a bad level or a bad zfp
// parameter, saying what is accepted.
Result<Operator> parse_operator(std::string_view spec);

// The `operator` parameter: the first rule whose glob (fnmatch, no flags; none matches every
// variable) matches a variable's name gives its operator.
struct OperatorRule {
  std::string glob;
  Operator op;
};
Result<std::vector<OperatorRule>> parse_operator_rules(std::string_view text);
// The operator of variable `name` of `type` (none when no rule matches). TAPIO_ERR_CONFIG
// naming the variable for zfp on a type other than float32/float64.
Result<Operator> operator_for(const std::vector<OperatorRule>& rules, const std::string& name,
                              DataType type);

// Encode a block of `bytes` bytes of `type` whose shape is `counts` (a box in C order; a
// single count for runs). Returns the stored bytes, or none (an empty vector) when the
// operator would not make the block smaller (or would exceed kMaxRatio): such blocks are
// stored as put (Codec::kNone; exact, so within any error bound).
std::vector<uint8_t> encode_block(const Operator& op, DataType type,
                                  const std::vector<uint64_t>& counts, const uint8_t* data,
                                  uint64_t bytes);

// Decode a stored block into `out` (`length` bytes: the block's logical size, which the reader
// knows from its selection). Checks what the stored bytes declare (zstd's content size, zfp's
// type and shape) against the block before writing anything; reads no byte outside
// [stored, stored + size). TAPIO_ERR_FORMAT when they disagree or the bytes are malformed.
Status decode_block(Codec codec, DataType type, const uint8_t* stored, uint64_t size,
                    uint8_t* out, uint64_t length);

}  // namespace tapio::subfile
