// e3sm: the E3SM F, G and I cases of E3SM-IO (../shared/data/e3sm-io): the variables of a
// history header written with the real decomposition maps, one record per step (what PIO and
// SCORPIO do inside E3SM). `--case f|g|i` picks a map and header from the data directory;
// `--map FILE --header FILE` takes any map in the E3SM-IO CDF-5 format and any `ncdump -h` text.
//
// How a header maps to decompositions (docs/benchmarks.md):
//  - the unlimited dimension is the record (step) dimension and is dropped from each shape;
//  - a variable whose remaining dimension sizes equal a decomposition's dims (the map's
//    D*.dims) is written with that decomposition's runs, re-split over the ranks
//    (examples/e3sm/e3sm_map.h); when several decompositions have the same dims, matching
//    variables take them in turn (F: D1 and D2 are both ncol);
//  - every other variable (lev, ilev, time-only scalars, ...) is written whole by rank 0;
//  - every variable is a double record variable (written every step), whatever its type and
//    whether or not it has the record dimension in the header;
//  - `--dims NAME=SIZE,...` overrides header dimension sizes first: the G header is from a
//    larger grid (nCells = 28571) than the 16-process map (285), so `--case g` sets nCells,
//    nEdges and nVertices to the map's sizes.
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "e3sm_map.h"
#include "registry.h"

#ifndef TAPIO_BENCH_E3SM_DATA
#define TAPIO_BENCH_E3SM_DATA "../shared/data/e3sm-io"
#endif

namespace bench {
namespace {

struct Options {
  std::string kase, map, header, dims, data_dir = TAPIO_BENCH_E3SM_DATA;
  uint64_t steps = 2, vars_per_decomp = 0;
};

struct HeaderVar {
  std::string name;
  std::vector<std::string> dims;
};

struct Header {
  std::map<std::string, uint64_t> dims;  // fixed dimensions
  std::string unlimited;
  std::vector<HeaderVar> vars;
};

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

Header parse_header(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw BenchError("e3sm: cannot read header '" + path + "'");
  Header h;
  static const std::regex dim_re(R"(^\s*(\S+)\s*=\s*(UNLIMITED|\d+)\s*;.*$)");
  static const std::regex var_re(
      R"(^\s*(byte|char|short|int|long|float|real|double|ubyte|ushort|uint|int64|uint64)\s+([^\s(]+)\s*(\(([^)]*)\))?\s*;\s*$)");
  enum { kNone, kDims, kVars } section = kNone;
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    if (t == "dimensions:") { section = kDims; continue; }
    if (t == "variables:") { section = kVars; continue; }
    if (t.rfind("// global attributes", 0) == 0 || t == "data:" || t == "}") { section = kNone; continue; }
    if (section == kDims && std::regex_match(line, m, dim_re)) {
      if (m[2] == "UNLIMITED") h.unlimited = m[1];
      else h.dims[m[1]] = std::stoull(m[2]);
    } else if (section == kVars && std::regex_match(line, m, var_re)) {
      HeaderVar v{m[2], {}};
      std::stringstream ds(m[4].str());
      std::string d;
      while (std::getline(ds, d, ','))
        if (!trim(d).empty()) v.dims.push_back(trim(d));
      h.vars.push_back(std::move(v));
    }
  }
  if (h.vars.empty()) throw BenchError("e3sm: no variables found in header '" + path + "' (ncdump -h text?)");
  return h;
}

class E3sm : public Pattern {
 public:
  E3sm(const Options& o, const Header& h, const std::vector<tapio::e3sm::Decomposition>& decs,
       int rank)
      : o_(o) {
    std::map<Dims, std::vector<size_t>> by_dims;  // decompositions with these dims
    for (size_t d = 0; d < decs.size(); ++d) by_dims[decs[d].dims].push_back(d);
    std::map<Dims, size_t> turn;
    std::vector<uint64_t> used(decs.size(), 0);
    uint64_t whole = 0;
    for (const HeaderVar& hv : h.vars) {
      Var v{hv.name, {}, {}};
      for (size_t k = 0; k < hv.dims.size(); ++k) {
        if (hv.dims[k] == h.unlimited) {
          if (k != 0) throw BenchError("e3sm: variable " + hv.name + " has the record dimension not first");
          continue;
        }
        auto it = h.dims.find(hv.dims[k]);
        if (it == h.dims.end()) throw BenchError("e3sm: variable " + hv.name + " uses unknown dimension " + hv.dims[k]);
        v.shape.push_back(it->second);
        v.dims.push_back(hv.dims[k]);
      }
      auto match = by_dims.find(v.shape);
      Piece pc;
      if (match != by_dims.end() && !v.shape.empty()) {
        const auto& cands = match->second;
        const size_t d = cands[turn[v.shape]++ % cands.size()];
        if (o.vars_per_decomp && used[d] >= o.vars_per_decomp) continue;
        ++used[d];
        // Runs ascending (a Piece's contract, and MPI-IO file views need it); the map gives
        // them in map order, which PIO also sorts before writing.
        std::vector<std::pair<uint64_t, uint64_t>> runs;
        for (size_t i = 0; i < decs[d].offsets.size(); ++i) runs.push_back({decs[d].offsets[i], decs[d].lengths[i]});
        std::sort(runs.begin(), runs.end());
        for (const auto& [off, len] : runs) pc.add_run(off, len);
        decomp_of_.push_back(decs[d].name);
      } else {
        ++whole;
        if (rank == 0) pc = Piece::from_box(v.shape, Dims(v.shape.size(), 0), v.shape);
        decomp_of_.push_back("whole");
      }
      vars_.push_back(std::move(v));
      pieces_.push_back(std::move(pc));
    }
    json per = json::object();
    for (size_t d = 0; d < decs.size(); ++d) {
      per[decs[d].name] = {{"dims", decs[d].dims}, {"variables", used[d]}};
    }
    summary_ = {{"decompositions", per}, {"whole_variables", whole}, {"variables", vars_.size()}};
  }
  std::string name() const override { return "e3sm"; }
  json params() const override {
    json j = {{"case", o_.kase.empty() ? json(nullptr) : json(o_.kase)},
              {"map", o_.map}, {"header", o_.header}, {"steps", o_.steps},
              {"dims", o_.dims}, {"vars_per_decomp", o_.vars_per_decomp}};
    j.update(summary_);
    return j;
  }
  const std::vector<Var>& vars() const override { return vars_; }
  uint64_t steps() const override { return o_.steps; }
  const Piece& write_piece(int v) const override { return pieces_[v]; }

 private:
  Options o_;
  std::vector<Var> vars_;
  std::vector<Piece> pieces_;
  std::vector<std::string> decomp_of_;
  json summary_;
};

}  // namespace

PatternBuilder setup_e3sm(CLI::App* app) {
  auto o = std::make_shared<Options>();
  app->add_option("--case", o->kase, "f, g or i: the E3SM-IO map and header of that case")
      ->check(CLI::IsMember({"f", "g", "i"}));
  app->add_option("--map", o->map, "a decomposition map in the E3SM-IO CDF-5 format");
  app->add_option("--header", o->header, "a history header as `ncdump -h` text");
  app->add_option("--dims", o->dims, "override header dimension sizes: NAME=SIZE,...");
  app->add_option("--vars-per-decomp", o->vars_per_decomp,
                  "at most this many variables per decomposition (0: all)")->capture_default_str();
  app->add_option("--data-dir", o->data_dir, "where the E3SM-IO files of --case are")->capture_default_str();
  app->add_option("--steps", o->steps, "steps (records)")->capture_default_str()->check(CLI::PositiveNumber);
  return [o](int rank, int size) -> std::unique_ptr<Pattern> {
    Options opt = *o;
    if (!opt.kase.empty()) {
      if (!opt.map.empty() || !opt.header.empty())
        throw BenchError("e3sm: give --case or --map and --header, not both");
      const std::string dir = opt.data_dir + "/";
      opt.map = dir + "map_" + opt.kase + "_case_16p.nc";
      opt.header = dir + (opt.kase == "f" ? "f_case_h0.txt" : opt.kase == "g" ? "g_case_hist.txt" : "i_case_h0.txt");
      if (opt.kase == "g" && opt.dims.empty()) opt.dims = "nCells=285,nEdges=879,nVertices=593";
    } else if (opt.map.empty() || opt.header.empty()) {
      throw BenchError("e3sm: give --case f|g|i, or --map FILE and --header FILE");
    }
    Header h = parse_header(opt.header);
    std::stringstream ds(opt.dims);
    std::string item;
    while (std::getline(ds, item, ',')) {
      const auto eq = item.find('=');
      if (item.empty()) continue;
      if (eq == std::string::npos) throw BenchError("e3sm: --dims wants NAME=SIZE, got '" + item + "'");
      const std::string name = trim(item.substr(0, eq));
      if (!h.dims.count(name)) throw BenchError("e3sm: --dims: the header has no dimension " + name);
      h.dims[name] = std::stoull(item.substr(eq + 1));
    }
    std::vector<tapio::e3sm::Decomposition> decs;
    try {
      tapio::Context ctx(MPI_COMM_WORLD);
      decs = tapio::e3sm::read_maps(ctx, opt.map, MPI_COMM_WORLD);
    } catch (const tapio::Error& e) {
      throw BenchError("e3sm: cannot read map '" + opt.map + "': " + e.what());
    }
    (void)size;
    return std::make_unique<E3sm>(opt, h, decs, rank);
  };
}

}  // namespace bench
