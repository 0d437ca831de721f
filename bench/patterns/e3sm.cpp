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
#include <sstream>

#include "e3sm_map.h"
#include "sim/e3sm.h"
#include "registry.h"

#ifndef TAPIO_BENCH_E3SM_DATA
#define TAPIO_BENCH_E3SM_DATA "../shared/data/e3sm-io"
#endif

namespace bench {
namespace {

struct E3smArgs {
  std::string kase, map, header, dims, data_dir = TAPIO_BENCH_E3SM_DATA;
  uint64_t steps = 2, vars_per_decomp = 0;
};

using Header = tapio::sim::HistoryHeader;

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

Header parse_header(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw BenchError("e3sm: cannot read header '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  auto h = tapio::sim::parse_history_header(text.str(), path);
  if (!h.ok()) throw BenchError(h.status().message());
  return *h;
}

class E3sm : public Pattern {
 public:
  E3sm(const E3smArgs& o, const Header& h, const std::vector<tapio::e3sm::Decomposition>& decs,
       int rank)
      : o_(o) {
    std::vector<Dims> dec_dims;
    for (const auto& d : decs) dec_dims.push_back(d.dims);
    std::vector<Dims> shapes;
    const std::vector<int> dec_of = tapio::sim::assign_decompositions(h, dec_dims, o.vars_per_decomp, &shapes);
    std::vector<uint64_t> used(decs.size(), 0);
    uint64_t whole = 0;
    // One piece per map, which every variable of it shares (as E3SM's variables share their
    // decomposition); a whole variable's is its own.
    std::vector<int> piece_of_map(decs.size(), -1);
    for (size_t i = 0; i < h.vars.size(); ++i) {
      const auto& hv = h.vars[i];
      for (size_t k = 0; k < hv.dims.size(); ++k) {
        if (hv.dims[k] == h.unlimited && k != 0)
          throw BenchError("e3sm: variable " + hv.name + " has the record dimension not first");
        if (hv.dims[k] != h.unlimited && !h.dims.count(hv.dims[k]))
          throw BenchError("e3sm: variable " + hv.name + " uses unknown dimension " + hv.dims[k]);
      }
      if (dec_of[i] == -2) continue;
      Var v{hv.name, shapes[i], {}};
      for (const std::string& d : hv.dims)
        if (d != h.unlimited) v.dims.push_back(d);
      if (dec_of[i] >= 0) {
        const size_t d = static_cast<size_t>(dec_of[i]);
        ++used[d];
        if (piece_of_map[d] < 0) {
          // Runs ascending (a Piece's contract, and MPI-IO file views need it); the map gives
          // them in map order, which PIO also sorts before writing.
          std::vector<std::pair<uint64_t, uint64_t>> runs;
          for (size_t k = 0; k < decs[d].offsets.size(); ++k)
            runs.push_back({decs[d].offsets[k], decs[d].lengths[k]});
          std::sort(runs.begin(), runs.end());
          Piece pc;
          for (const auto& [off, len] : runs) pc.add_run(off, len);
          piece_of_map[d] = static_cast<int>(pieces_.size());
          pieces_.push_back(std::move(pc));
        }
        piece_of_var_.push_back(piece_of_map[d]);
        decomp_of_.push_back(decs[d].name);
      } else {
        ++whole;
        Piece pc;
        if (rank == 0) pc = Piece::from_box(v.shape, Dims(v.shape.size(), 0), v.shape);
        piece_of_var_.push_back(static_cast<int>(pieces_.size()));
        pieces_.push_back(std::move(pc));
        decomp_of_.push_back("whole");
      }
      vars_.push_back(std::move(v));
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
  const Piece& write_piece(int v) const override { return pieces_[piece_of_var_[v]]; }

 private:
  E3smArgs o_;
  std::vector<Var> vars_;
  std::vector<Piece> pieces_;       // one per map, and one per whole variable
  std::vector<int> piece_of_var_;   // each variable's, in pieces_
  std::vector<std::string> decomp_of_;
  json summary_;
};

}  // namespace

PatternBuilder setup_e3sm(CLI::App* app) {
  auto o = std::make_shared<E3smArgs>();
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
    E3smArgs opt = *o;
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
