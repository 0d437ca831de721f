#include "core/params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <numeric>

namespace tapio {
namespace {

using K = ParamKind;
constexpr int64_t kNoMin = std::numeric_limits<int64_t>::min();

// The registry. Columns: name, kind, default, unit, choices (enum values, or extra words),
// engines, doc, min_value, power_of_two. Keep docs/tuning.md in step (a test checks it).
const std::vector<ParamDef> kRegistry = {
    // Engine-independent.
    {"fsync", K::kEnum, "close", "", {"never", "step", "close"}, "all",
     "When written data is flushed to storage: never, at every end_step, or at close.", kNoMin,
     false},
    {"file_locking", K::kEnum, "true", "", {"true", "best_effort", "false"}, "all",
     "A writer locks what it writes, so a second writer of the path fails at open; "
     "best_effort writes unlocked where the file system has no locks; false never locks. "
     "TAPIO_FILE_LOCKING overrides it.",
     kNoMin, false},
    {"profile", K::kString, "", "", {}, "all",
     "Path of a JSON profile written at close; \"\" writes none.", kNoMin, false},
    {"ranks_per_node", K::kInteger, "0", "ranks", {}, "all",
     "0 detects nodes with MPI_Comm_split_type; N>0 uses a virtual layout of N ranks per node, "
     "to test node-aware logic on one machine.",
     0, false},
    {"node_layout", K::kEnum, "block", "", {"block", "cyclic"}, "all",
     "How ranks map to virtual nodes when ranks_per_node > 0: block (consecutive ranks share a "
     "node) or cyclic (round-robin).",
     kNoMin, false},
    {"buffer_size", K::kSize, "16MiB", "bytes", {"auto"}, "all",
     "Bytes each aggregator (or rank 0 in serial) handles per round, at most; auto: chosen by "
     "the cluster model when a file is opened for writing (docs/sim.md).",
     1, false},
    {"min_rounds", K::kInteger, "16", "rounds", {}, "collective",
     "An aggregator's domain smaller than min_rounds x buffer_size is cut into about this many "
     "rounds of whole stripes (at least one stripe, and 64KiB for each rank on other nodes), so "
     "that a small step is pipelined and its round buffers stay in cache; 1: rounds of "
     "buffer_size.",
     1, false},
    // NetCDF layout.
    {"data_align", K::kSize, "512", "bytes", {}, "all",
     "Alignment of the data sections and of every fixed-size variable (like PnetCDF "
     "nc_var_align_size); a power of two; unset, 64KiB where tapio detects a Lustre stripe or GPFS block size.",
     1, true},
    {"header_pad", K::kSize, "4096", "bytes", {}, "all",
     "Free space kept after the header so attributes can be added later without moving data.",
     0, false},
    {"record_dimension", K::kString, "time", "", {}, "all",
     "Name of the unlimited dimension a NetCDF file keeps its steps along (a valid NetCDF "
     "name no variable uses for another dimension); the PIO layer sets the program's.",
     kNoMin, false},
    {"netcdf_version", K::kEnum, "5", "", {"5", "2", "1"}, "all",
     "NetCDF variant written: 5 (CDF-5), 2 (CDF-2, 64-bit offsets) or 1 (classic).", kNoMin,
     false},
    {"fill", K::kBoolean, "true", "", {}, "all",
     "Elements no rank wrote read back as the NetCDF fill value; false leaves whatever bytes "
     "the file had.",
     kNoMin, false},
    // Collective engine.
    {"aggregators", K::kCount, "auto", "", {"auto", "all"}, "collective,subfile",
     "Number of aggregator ranks, or a ratio m/n of the ranks (\"1/4\": one per 4 ranks); auto: "
     "one per node (times aggregators_per_node), or with a cluster file the model's choice at "
     "open for writing and, for reading, as many per node as the node's client needs readers; "
     "all: every rank (subfile: file per process).",
     1, false},
    {"aggregators_per_node", K::kInteger, "1", "", {}, "collective,subfile",
     "Aggregators per node when aggregators = auto.", 1, false},
    {"placement", K::kEnum, "spread", "", {"spread", "rank-order"}, "collective",
     "Which ranks become aggregators: spread over the nodes, or in rank order.", kNoMin, false},
    {"collect_order", K::kEnum, "topology", "", {"topology", "rank"}, "collective",
     "Send order: topology (the ranks of node n start with their n-th aggregator, so aggregators "
     "drain different nodes at once) or rank (every rank in aggregator order).",
     kNoMin, false},
    {"stripe_size", K::kSize, "1MiB", "bytes", {"auto"}, "all",
     "Unit in which the file is divided among aggregators (collective), and on Lustre the "
     "stripe size new files get (a multiple of 64KiB); unset, the file system's stripe or block "
     "size where tapio detects one (docs/tuning.md); auto: chosen by the cluster model when a "
     "file is opened for writing.",
     1, false},
    {"stripe_count", K::kInteger, "0", "OSTs", {}, "all",
     "Lustre: the number of OSTs new files are striped over (ROMIO's striping_factor); unset, "
     "the directory's default; set on another file system, a warning and ignored.",
     kNoMin, false},
    {"cluster", K::kString, "", "", {}, "collective,subfile",
     "A cluster file (docs/sim.md) for the model that chooses the auto values; with one, "
     "aggregators = auto is the model's choice too (without, one per node).",
     kNoMin, false},
    {"pipeline", K::kBoolean, "true", "", {}, "collective",
     "Overlap exchanging the next round's data with writing the current round.", kNoMin, false},
    {"shared_memory", K::kBoolean, "true", "", {}, "collective",
     "Ranks on an aggregator's node copy their data straight into its round buffer in node "
     "shared memory (MPI_Win_allocate_shared) instead of sending it as messages.",
     kNoMin, false},
    {"two_level", K::kEnum, "auto", "", {"auto", "true", "false"}, "collective",
     "Writes: the ranks of a node hand their data for other nodes' aggregators to one rank of "
     "the node, which sends each aggregator one message per round for the whole node (TAM, "
     "ADIOS2's TwoLevelShm); auto: the cluster model's choice when a cluster file is named, "
     "else false.",
     kNoMin, false},
    {"direct", K::kEnum, "auto", "", {"auto", "never"}, "collective",
     "auto: when every rank's pieces are contiguous runs of at least stripe_size (writes) or "
     "direct_read_min (reads) and the ranks' file ranges follow rank order without "
     "interleaving, each rank reads and writes its own (ROMIO's shortcut for non-interleaved "
     "access); never: always through the aggregators.",
     kNoMin, false},
    {"direct_read_min", K::kSize, "64KiB", "bytes", {}, "collective",
     "Reads with direct = auto: the smallest request a rank reads on its own. Smaller than "
     "stripe_size, which writes take: writers of one stripe contend for its lock, readers "
     "share it, and a request of 64KiB already costs far more in bytes than in its call.",
     1, false},
    {"node_read_share", K::kSize, "256KiB", "bytes", {}, "collective",
     "Reads through node shared memory: the ranks of an aggregator's node read its round "
     "from storage together, in shares of at least this many bytes (as many ranks as the "
     "round has shares, at most the node's), instead of the aggregator alone; 0: the "
     "aggregator reads alone.",
     0, false},
    {"node_readers", K::kInteger, "0", "ranks", {}, "collective",
     "Reads through node shared memory: the most ranks of a node that read one aggregator's "
     "round together (node_read_share); 0: every rank of the node.",
     0, false},
    {"joined_reserve", K::kSize, "4MiB", "bytes", {}, "collective",
     "Room a new NetCDF file keeps for each joined array's sample dimension (all its variables' "
     "rows), before what is laid out after it; a step that outgrows it makes room for 8 more "
     "such steps (at least twice the room) and moves what lies after it. Set it to the run's "
     "particle bytes and nothing moves.",
     1, false},
    // Subfile engine.
    {"block_align", K::kSize, "4096", "bytes", {}, "subfile",
     "Each rank's blocks of a step start at a multiple of this in its subfile and follow one "
     "another; unset, the Lustre stripe or GPFS block size where tapio detects one.",
     1, false},
    {"subfile_write", K::kEnum, "auto", "", {"auto", "direct", "aggregate"}, "subfile",
     "How a group's data reaches its subfile: direct (every rank writes its own blocks at its "
     "offset, from its own buffers), aggregate (the ranks send their data to the group's first "
     "rank, which writes it in buffer_size rounds, pipelined) or auto (direct when the group's "
     "ranks share a node, aggregate when it spans nodes).",
     kNoMin, false},
    {"statistics", K::kEnum, "minmax", "", {"minmax", "none"}, "subfile",
     "Per-block statistics kept in the metadata: minmax (each block's min and max, as ADIOS2 "
     "does by default) or none.",
     kNoMin, false},
    {"operator", K::kString, "", "", {}, "subfile",
     "Per-variable compression (docs/format.md, Operators): a spec for every variable "
     "(zstd:level=3, shuffle+zstd, zfp:accuracy=1e-3, zfp:rate=16, zfp:precision=20, none) or "
     "rules GLOB=SPEC separated by ';', the first whose glob matches a variable's name applying; "
     "zfp only on float32/float64 variables; other engines reject it.",
     kNoMin, false},
    {"read_merge_below", K::kSize, "256KiB", "bytes", {}, "subfile",
     "A read of less than this from one block (rounded to its checksum chunks), unless it lands "
     "whole in the reader's buffer, goes through the rank that serves its subfile, which reads "
     "what several ranks want once; other reads each rank makes itself, in parallel.",
     0, false},
    {"metadata", K::kEnum, "gather", "", {"gather", "log", "aligned"}, "subfile",
     "Metadata backend: gather (rank 0 collects every writer's records and writes them), log "
     "(each writer writes its records at its offset, in parallel) or aligned (as log, each "
     "writer's records at a metadata_chunk boundary).",
     kNoMin, false},
    {"metadata_chunk", K::kSize, "4096", "bytes", {}, "subfile",
     "Alignment of each writer's metadata records when metadata = aligned.", 1, false},
    {"metadata_read", K::kEnum, "delegate", "", {"delegate", "all"}, "subfile",
     "Who reads the metadata of a dataset opened for reading: delegate (rank 0 reads and "
     "broadcasts it) or all (every rank reads it).",
     kNoMin, false},
    {"metadata_prefetch", K::kSize, "1MiB", "bytes", {}, "subfile",
     "A reader opening a dataset reads every step's metadata at once when it adds up to at most "
     "this; above it, only the steps later ones refer to, and each other step's when first read.",
     0, false},
    {"writer_timeout", K::kInteger, "3600", "seconds", {}, "subfile",
     "A reader at the last committed step of a dataset whose writer has not closed it, and has "
     "committed nothing (nor opened it) for this long, gets TAPIO_STEP_WRITER_GONE instead of "
     "TAPIO_STEP_NOT_READY; 0: never (wait for the writer forever).",
     0, false},
    // MPI-IO engine.
    {"mpiio_hints", K::kString, "", "", {}, "mpiio",
     "Comma-separated key=value MPI-IO hints, e.g. \"cb_nodes=2,romio_cb_write=enable\".", kNoMin,
     false},
    // Buffering layers behind the file interface (src/io/layers.h), per file through rules.
    {"layers", K::kString, "", "", {}, "serial,subfile",
     "Comma-separated layers between the engine and storage: cache (small-read cache), buffered "
     "(write-behind, read-ahead), aligned (requests cut at layer_align); \"\" for none.",
     kNoMin, false},
    {"layer_buffer_size", K::kSize, "4MiB", "bytes", {}, "serial,subfile",
     "Size of each buffer of the buffered layer (not buffer_size, the aggregation round).", 4096,
     false},
    {"layer_buffers", K::kInteger, "2", "", {}, "serial,subfile",
     "Buffers of the buffered layer: one fills while the others are written behind; 1 writes "
     "each full buffer before returning.",
     1, false},
    {"layer_align", K::kSize, "0", "bytes", {}, "serial,subfile",
     "Unit the aligned layer coalesces and cuts requests at; 0: the stripe_size.", 0, false},
    {"layer_direct", K::kBoolean, "false", "", {}, "serial,subfile",
     "The aligned layer writes whole units with O_DIRECT (aligned memory); where the file "
     "system refuses it (tmpfs), a warning and the page cache.",
     kNoMin, false},
    {"read_cache_page", K::kSize, "1MiB", "bytes", {}, "serial,subfile",
     "Page of the small-read cache: a miss reads this much (more when misses are sequential).",
     512, false},
    {"read_cache_size", K::kSize, "64MiB", "bytes", {}, "serial,subfile",
     "Memory of the small-read cache per open file and rank.", 512, false},
    {"serial_image_limit", K::kSize, "auto", "bytes", {"auto"}, "serial",
     "The largest record of one variable the serial engine accepts (rank 0 holds it whole, and "
     "the gathered pieces too); a larger one fails open. auto: half of rank 0's memory.",
     1, false},
    // Asynchronous output (docs/tuning.md#async).
    {"async", K::kBoolean, "false", "", {}, "serial,subfile,collective,mpiio",
     "end_step returns once the step's data is in tapio's buffers; storage writes, syncs and the "
     "step's commit happen in the background, and a failure is reported by the next call.",
     kNoMin, false},
    {"async_buffer", K::kSize, "256MiB", "bytes", {}, "serial,subfile,collective,mpiio",
     "With async, the bytes a rank may hold for background writes (collective: an aggregator's "
     "round slots, async_buffer / buffer_size of them); a step that needs more waits in end_step "
     "(profile: async_waits, time_async_wait).",
     1, false},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool iequals(std::string_view a, std::string_view b) { return lower(a) == lower(b); }

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::string join(const std::vector<std::string_view>& items, bool quote) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    out += (i ? ", " : "");
    out += quote ? fmt::format("'{}'", items[i]) : std::string(items[i]);
  }
  return out;
}

// Optimal string alignment distance (Damerau-Levenshtein without repeated edits).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string suggestion(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string best = nearest(word, candidates);
  return best.empty() ? "" : fmt::format("; did you mean '{}'?", best);
}

// --- sizes -----------------------------------------------------------------------------------

using u128 = unsigned __int128;

// Why a size did not parse; kGarbage gets no explanation beyond "expected ...".
enum class SizeProblem { kNone, kGarbage, kNegative, kTooLarge, kFraction, kTooPrecise };

int unit_shift(std::string_view unit) {
  static const std::pair<std::string_view, int> kUnits[] = {
      {"", 0},    {"b", 0},    {"k", 10},   {"kb", 10},  {"kib", 10}, {"m", 20},  {"mb", 20},
      {"mib", 20}, {"g", 30},  {"gb", 30},  {"gib", 30}, {"t", 40},   {"tb", 40}, {"tib", 40},
      {"p", 50},  {"pb", 50},  {"pib", 50}, {"e", 60},   {"eb", 60},  {"eib", 60}};
  std::string u = lower(unit);
  for (const auto& [name, shift] : kUnits)
    if (u == name) return shift;
  return -1;
}

size_t count_digits(std::string_view s, size_t from) {
  size_t i = from;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  return i - from;
}

// Exact value of digits * 2^shift / 10^decimals, or a problem. Exact in 128 bits, so at most
// 38 significant digits.
SizeProblem scale(std::string digits, size_t decimals, int shift, uint64_t* out) {
  while (decimals > 0 && digits.back() == '0') digits.pop_back(), --decimals;
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
  if (digits.size() > decimals + 20) return SizeProblem::kTooLarge;
  if (digits.size() > 38 || decimals > 38) return SizeProblem::kTooPrecise;
  u128 m = 0, p10 = 1;
  for (char c : digits) m = m * 10 + static_cast<unsigned>(c - '0');
  for (size_t i = 0; i < decimals; ++i) p10 *= 10;
  if (m > (~u128(0) >> shift)) return SizeProblem::kTooLarge;
  u128 v = m << shift;
  if (v % p10 != 0) return SizeProblem::kFraction;
  v /= p10;
  if (v > std::numeric_limits<uint64_t>::max()) return SizeProblem::kTooLarge;
  *out = static_cast<uint64_t>(v);
  return SizeProblem::kNone;
}

SizeProblem parse_size_impl(std::string_view text, uint64_t* out) {
  std::string_view s = trim(text);
  if (s.size() > 1 && s[0] == '-' && std::isdigit(static_cast<unsigned char>(s[1])))
    return SizeProblem::kNegative;
  size_t whole = count_digits(s, 0);
  if (whole == 0) return SizeProblem::kGarbage;
  size_t decimals = 0;
  if (whole < s.size() && s[whole] == '.') {
    decimals = count_digits(s, whole + 1);
    if (decimals == 0) return SizeProblem::kGarbage;
  }
  size_t end = whole + (decimals ? decimals + 1 : 0);
  int shift = unit_shift(trim(s.substr(end)));
  if (shift < 0) return SizeProblem::kGarbage;
  std::string digits = std::string(s.substr(0, whole));
  if (decimals) digits += s.substr(whole + 1, decimals);
  return scale(digits, decimals, shift, out);
}

std::string_view size_problem_text(SizeProblem p) {
  switch (p) {
    case SizeProblem::kNegative: return "negative";
    case SizeProblem::kTooLarge: return "too large";
    case SizeProblem::kFraction: return "not a whole number of bytes";
    case SizeProblem::kTooPrecise: return "too many digits";
    default: return "";
  }
}

// --- integers and ratios ----------------------------------------------------------------------

bool parse_int64(std::string_view text, int64_t* out) {
  std::string_view s = trim(text);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && ptr == s.data() + s.size();
}

// Why a ratio did not parse; kGarbage gets no explanation beyond "expected ...".
enum class RatioProblem { kNone, kGarbage, kDenominator, kNumerator, kAboveOne };

RatioProblem parse_ratio_impl(std::string_view text, RankRatio* out) {
  const size_t slash = text.find('/');
  int64_t m = 0, n = 0;
  if (slash == std::string_view::npos || !parse_int64(text.substr(0, slash), &m) ||
      !parse_int64(text.substr(slash + 1), &n))
    return RatioProblem::kGarbage;
  if (n < 1) return RatioProblem::kDenominator;
  if (m < 1) return RatioProblem::kNumerator;
  if (m > n) return RatioProblem::kAboveOne;
  const int64_t g = std::gcd(m, n);
  *out = RankRatio{m / g, n / g};
  return RatioProblem::kNone;
}

std::string_view ratio_problem_text(RatioProblem p) {
  switch (p) {
    case RatioProblem::kDenominator: return "with n at least 1";
    case RatioProblem::kNumerator: return "with m at least 1";
    case RatioProblem::kAboveOne: return "with m at most n (at most one per rank)";
    default: return "of whole numbers";
  }
}

// --- per-kind validation ---------------------------------------------------------------------

Status bad_value(const ParamDef& def, std::string_view value, std::string_view extra = "") {
  return error(TAPIO_ERR_CONFIG, "'{}' must be {} (got '{}'){}", def.name, param_expected(def),
               value, extra);
}

Status below_min(const ParamDef& def, std::string_view value) {
  return error(TAPIO_ERR_CONFIG, "'{}' must be at least {} (got '{}')", def.name, def.min_value,
               value);
}

Result<std::string> normalize_integer(const ParamDef& def, std::string_view value) {
  int64_t v = 0;
  if (!parse_int64(value, &v)) return bad_value(def, value);
  if (v < def.min_value) return below_min(def, value);
  return std::to_string(v);
}

// An integer, or a ratio "m/n" kept in lowest terms.
Result<std::string> normalize_count(const ParamDef& def, std::string_view value) {
  if (value.find('/') == std::string_view::npos) return normalize_integer(def, value);
  RankRatio r;
  const RatioProblem p = parse_ratio_impl(value, &r);
  if (p == RatioProblem::kNone) return fmt::format("{}/{}", r.num, r.den);
  if (p == RatioProblem::kGarbage) return bad_value(def, value);
  return error(TAPIO_ERR_CONFIG, "'{}' must be a ratio m/n {} (got '{}')", def.name,
               ratio_problem_text(p), value);
}

Result<std::string> normalize_size(const ParamDef& def, std::string_view value) {
  uint64_t v = 0;
  SizeProblem p = parse_size_impl(value, &v);
  if (p != SizeProblem::kNone) {
    std::string_view why = size_problem_text(p);
    return bad_value(def, value, why.empty() ? "" : fmt::format(": {}", why));
  }
  if (def.min_value > 0 && v < static_cast<uint64_t>(def.min_value)) return below_min(def, value);
  if (def.power_of_two && (v == 0 || (v & (v - 1)) != 0))
    return error(TAPIO_ERR_CONFIG, "'{}' must be a power of two (got '{}')", def.name, value);
  return std::to_string(v);
}

Result<std::string> normalize_boolean(const ParamDef& def, std::string_view value) {
  std::string s = lower(trim(value));
  if (s == "true" || s == "on" || s == "1") return std::string("true");
  if (s == "false" || s == "off" || s == "0") return std::string("false");
  return bad_value(def, value);
}

// An enum value that matched no choice (normalize_param tries the choices first).
Status enum_error(const ParamDef& def, std::string_view value) {
  return bad_value(def, value, suggestion(trim(value), def.choices));
}

Result<std::string> unknown_param(std::string_view name) {
  if (name == "engine")
    return error(TAPIO_ERR_CONFIG,
                 "'engine' is not a parameter: choose the engine when opening, or with a config "
                 "rule");
  std::vector<std::string_view> names;
  for (const ParamDef& def : kRegistry) names.push_back(def.name);
  return error(TAPIO_ERR_CONFIG, "unknown parameter '{}'{}", name, suggestion(name, names));
}

}  // namespace

const std::vector<ParamDef>& param_registry() { return kRegistry; }

const ParamDef* find_param(std::string_view name) {
  for (const ParamDef& def : kRegistry)
    if (def.name == name) return &def;
  return nullptr;
}

const std::vector<std::string_view>& engine_names() {
  static const std::vector<std::string_view> kEngines = {"serial", "mpiio", "collective",
                                                         "subfile"};
  return kEngines;
}

Result<std::string> normalize_engine(std::string_view name) {
  for (std::string_view e : engine_names())
    if (e == name) return std::string(e);
  return error(TAPIO_ERR_CONFIG, "unknown engine '{}' (known engines: {}){}", name,
               join(engine_names(), false), suggestion(name, engine_names()));
}

std::string_view param_kind_name(ParamKind kind) {
  switch (kind) {
    case K::kInteger: return "integer";
    case K::kCount: return "count";
    case K::kSize: return "size";
    case K::kBoolean: return "boolean";
    case K::kEnum: return "enum";
    case K::kString: return "string";
  }
  return "?";
}

std::string param_expected(const ParamDef& def) {
  switch (def.kind) {
    case K::kEnum: return "one of " + join(def.choices, false);
    case K::kBoolean: return "true or false";
    case K::kString: return "a string";
    default: break;
  }
  // "an integer, a ratio like 1/4, 'auto' or 'all'"
  std::vector<std::string> forms;
  if (def.kind == K::kSize) forms.push_back("a size like 16MiB");
  if (def.kind == K::kInteger || def.kind == K::kCount) forms.push_back("an integer");
  if (def.kind == K::kCount) forms.push_back("a ratio like 1/4");
  for (std::string_view word : def.choices) forms.push_back(fmt::format("'{}'", word));
  std::string out;
  for (size_t i = 0; i < forms.size(); ++i)
    out += (i == 0 ? "" : i + 1 == forms.size() ? " or " : ", ") + forms[i];
  return out;
}

std::string nearest(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string w = lower(word);
  const size_t limit = std::max<size_t>(2, w.size() / 3);
  std::string best;
  size_t best_distance = limit + 1;
  for (std::string_view c : candidates) {
    size_t d = edit_distance(w, lower(c));
    if (d < best_distance && d < c.size()) best_distance = d, best = std::string(c);
  }
  return best;
}

Result<uint64_t> parse_size(std::string_view text) {
  uint64_t v = 0;
  SizeProblem p = parse_size_impl(text, &v);
  if (p == SizeProblem::kNone) return v;
  if (p == SizeProblem::kGarbage)
    return error(TAPIO_ERR_CONFIG,
                 "invalid size '{}': expected a number of bytes with an optional unit, like "
                 "4096, 64K or 16MiB",
                 text);
  return error(TAPIO_ERR_CONFIG, "invalid size '{}': {}", text, size_problem_text(p));
}

Result<RankRatio> parse_rank_ratio(std::string_view text) {
  RankRatio r;
  const RatioProblem p = parse_ratio_impl(text, &r);
  if (p == RatioProblem::kNone) return r;
  return error(TAPIO_ERR_CONFIG, "invalid ratio '{}': expected m/n {}", text,
               ratio_problem_text(p));
}

Result<std::string> normalize_param(std::string_view name, std::string_view value) {
  const ParamDef* def = find_param(name);
  if (def == nullptr) return unknown_param(name);
  if (def->kind == K::kString) return std::string(value);
  for (std::string_view word : def->choices)
    if (iequals(trim(value), word)) return std::string(word);
  switch (def->kind) {
    case K::kInteger: return normalize_integer(*def, value);
    case K::kCount: return normalize_count(*def, value);
    case K::kSize: return normalize_size(*def, value);
    case K::kBoolean: return normalize_boolean(*def, value);
    default: return enum_error(*def, value);
  }
}

// --- Params ----------------------------------------------------------------------------------

Status Params::set(std::string_view name, std::string_view value) {
  TAPIO_ASSIGN_OR_RETURN(std::string canonical, normalize_param(name, value));
  values_[std::string(name)] = std::move(canonical);
  return ok_status();
}

bool Params::has(std::string_view name) const { return values_.count(std::string(name)) > 0; }

std::string Params::get(std::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it != values_.end()) return it->second;
  const ParamDef* def = find_param(name);
  if (def == nullptr) return "";
  Result<std::string> canonical = normalize_param(name, def->default_value);
  return canonical.ok() ? *canonical : std::string(def->default_value);
}

int64_t Params::get_int(std::string_view name) const {
  std::string s = get(name);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() ? v : 0;
}

uint64_t Params::get_size(std::string_view name) const {
  std::string s = get(name);
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size() ? v : 0;
}

bool Params::get_bool(std::string_view name) const { return get(name) == "true"; }

}  // namespace tapio
