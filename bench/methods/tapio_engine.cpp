// tapio engines (serial, mpiio, collective, subfile and its parameter variants) through the C++
// API. Storage requests, bytes and messages come from the engine's own profile (the `profile`
// parameter's JSON). An engine this library build lacks makes tapio_open fail with
// TAPIO_ERR_UNSUPPORTED: reported as unavailable, never hidden.
//
// The subfile methods write a dataset directory (DIR/PATTERN.METHOD/) and, after each write
// (untimed), measure its metadata: the stabilise time of every step (end_step, slowest rank),
// the fetch time (a reader opening the dataset and calling begin_step through every step, no
// data read), and the size of tapio.md per block and step. These go to the JSON as "metadata".
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "registry.h"
#include "results.h"
#include "tapio/tapio.hpp"

namespace bench {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

double max_over(MPI_Comm comm, double v) {
  double m = 0;
  MPI_Allreduce(&v, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

// One repetition's metadata measurements (rank 0).
struct MdRep {
  std::vector<double> end_step_s;  // per step, max over ranks
  double write_s = 0, fetch_s = 0;
  uint64_t md_bytes = 0, blocks_per_step = 0, steps = 0, puts = 0;
  uint64_t stored_bytes = 0;  // the variables' blocks in the data files (operators)
};

// One file's selections: a box as it is, runs through a decomposition made at their piece's
// first use (as a model makes its maps once, PIO's InitDecomp) and given to every variable of
// that piece: variables that share a map (e3sm's) share one, and no step reads a map again.
class Selections {
 public:
  explicit Selections(tapio_context* ctx) : ctx_(ctx) {}
  // `map` is the pattern's piece whose runs `pc` has (pc itself, or the piece it packs). A
  // joined variable's rows change from step to step: it takes them as runs.
  void select(tapio::Variable& var, const Var& def, const Piece& pc, const Piece* map) {
    if (pc.boxes.size() == 1) return var.set_selection(pc.boxes[0].start, pc.boxes[0].count);
    if (def.joined) return var.set_runs(pc.offsets, pc.lengths);
    auto it = made_.find({map, def.shape});
    if (it == made_.end())
      it = made_.emplace(std::make_pair(map, def.shape),
                         tapio::Decomposition::runs(ctx_, def.shape, pc.offsets, pc.lengths))
               .first;
    var.set_decomp(it->second);
  }

 private:
  tapio_context* ctx_;
  std::map<std::pair<const Piece*, Dims>, tapio::Decomposition> made_;
};

class TapioMethod : public Method {
 public:
  TapioMethod(std::string name, std::string engine, Params params)
      : name_(std::move(name)), engine_(std::move(engine)), params_(std::move(params)) {}
  std::string name() const override { return name_; }
  bool computes() const override { return true; }
  // Joined arrays: subfile datasets, and the collective engine's CF ragged arrays.
  bool joins() const override { return subfile() || engine_ == "collective"; }

  Availability available(const RunConfig& cfg) override {
    std::string probe = cfg.dir + "/.tapio-bench-probe." + name_ + suffix();
    for (size_t i = cfg.dir.size() + 1; i < probe.size(); ++i)
      if (probe[i] == '/') probe[i] = '_';
    try {
      tapio::IO io = prepare(cfg, "probe", "");
      tapio::Engine e = io.open(probe, TAPIO_MODE_WRITE);
      const std::string got = e.engine_name();
      e.close();
      drop(cfg, probe);
      if (got != engine_)
        return {Availability::kUnavailable,
                "a config file (TAPIO_CONFIG) turned it into engine '" + got + "'"};
      return {};
    } catch (const tapio::Error& e) {
      drop(cfg, probe);
      if (e.code() == TAPIO_ERR_UNSUPPORTED)
        return {Availability::kUnavailable, "not in this tapio build: " + std::string(e.what())};
      return {Availability::kUnavailable, e.what()};
    }
  }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    const std::string prof = profile_path(cfg, p, "w");
    tapio::IO io = prepare(cfg, "w", prof);
    std::vector<tapio::Variable> vars;
    for (const Var& v : p.vars())
      vars.push_back(
          io.define_variable<double>(v.name, v.shape, v.dims, v.joined ? TAPIO_VAR_JOINED : 0));
    std::vector<std::vector<double>> packs(p.vars().size());
    std::vector<double> end_step(p.steps());
    uint64_t puts = 0;
    double compute_s = 0;
    const double t0 = MPI_Wtime();
    tapio::Engine e = io.open(path(cfg, p, suffix()), TAPIO_MODE_WRITE);
    Selections selections(context(cfg.comm).get());
    for (uint64_t s = 0; s < p.steps(); ++s) {
      e.begin_step();
      for (size_t v = 0; v < vars.size(); ++v) {
        const Piece& pc = p.step_write_piece(static_cast<int>(v), s);
        const double* buf = data[s][v].data();
        if (p.vars()[v].joined) {  // tapio places the rows (an exscan); 0 rows is a put too
          vars[v].set_joined_count(pc.elements / p.vars()[v].row_elements());
          e.put(vars[v], buf);
          puts += s == 0;
          continue;
        }
        if (pc.elements == 0) continue;  // a rank with nothing to write skips the put
        if (pc.boxes.size() > 1) {  // one put per box: a block-based engine stores each as a block
          for (const Box& b : pc.boxes) {
            vars[v].set_selection(b.start, b.count);
            e.put(vars[v], buf);
            buf += b.elements();
            puts += s == 0;
          }
          continue;
        }
        selections.select(vars[v], p.vars()[v], pc, &pc);
        if (!pc.mem_contiguous()) {  // the API takes contiguous data: pack (timed, honestly)
          packs[v].resize(pc.elements);
          pack(pc, buf, packs[v].data());
          buf = packs[v].data();
        }
        e.put(vars[v], buf);
        puts += s == 0;
      }
      const double ts = MPI_Wtime();
      e.end_step();
      end_step[s] = MPI_Wtime() - ts;
      const double tc = MPI_Wtime();
      compute(cfg.compute_s);
      compute_s += MPI_Wtime() - tc;
    }
    e.close();
    const double write_s = MPI_Wtime() - t0;
    if (measures_metadata()) {  // reduced in after_write, outside the timed write
      pending_ = MdRep{};
      pending_.end_step_s = std::move(end_step);
      pending_.write_s = write_s;
      pending_.steps = p.steps();
      pending_.puts = puts;
    }
    Counters c = profile(cfg, prof, "POSIX_WRITES", "POSIX_BYTES_WRITTEN");
    c.compute_s = max_over(cfg.comm, compute_s);
    return c;
  }

  void after_write(const RunConfig& cfg, const Pattern& p) override {
    if (!measures_metadata()) return;
    pending_.write_s = max_over(cfg.comm, pending_.write_s);
    std::vector<double> slowest(pending_.end_step_s.size());
    MPI_Reduce(pending_.end_step_s.data(), slowest.data(), static_cast<int>(slowest.size()),
               MPI_DOUBLE, MPI_MAX, 0, cfg.comm);
    pending_.end_step_s = std::move(slowest);
    pending_.blocks_per_step =
        static_cast<uint64_t>(sum_over_ranks(cfg.comm, static_cast<double>(pending_.puts)));
    // Fetch: open the dataset and walk every step's metadata, no data read.
    MPI_Barrier(cfg.comm);
    const double t0 = MPI_Wtime();
    {
      tapio::IO io = prepare(cfg, "fetch", "");
      tapio::Engine e = io.open(path(cfg, p, suffix()), TAPIO_MODE_READ);
      while (e.begin_step() == TAPIO_STEP_OK) e.end_step();
      e.close();
    }
    pending_.fetch_s = max_over(cfg.comm, MPI_Wtime() - t0);
    pending_.stored_bytes = stored_bytes(cfg, p);
    if (cfg.rank == 0) {
      struct stat st{};
      if (::stat((path(cfg, p, suffix()) + "/tapio.md").c_str(), &st) == 0)
        pending_.md_bytes = static_cast<uint64_t>(st.st_size);
      reps_.push_back(pending_);
    }
  }

  json extras() const override {
    if (reps_.empty()) return nullptr;
    std::vector<double> stab, fetch, e2e;
    for (const MdRep& r : reps_) {
      double sum = 0;
      for (double t : r.end_step_s) sum += t;
      stab.push_back(1e3 * sum / r.steps);
      fetch.push_back(1e3 * r.fetch_s / r.steps);
      e2e.push_back(1e3 * (r.write_s + r.fetch_s) / r.steps);
    }
    auto band = [](const std::vector<double>& v) {
      const Stats s = stats(v);
      return json{{"median", s.median}, {"min", s.min}, {"max", s.max}};
    };
    const MdRep& last = reps_.back();
    json j;
    j["steps"] = last.steps;
    j["blocks_per_step"] = last.blocks_per_step;
    j["md_bytes"] = last.md_bytes;
    j["stored_bytes"] = last.stored_bytes;
    j["md_bytes_per_block_step"] =
        last.blocks_per_step ? json(static_cast<double>(last.md_bytes) /
                                    (static_cast<double>(last.blocks_per_step) * last.steps))
                             : json(nullptr);
    j["stabilise_ms_per_step"] = band(stab);
    j["fetch_ms_per_step"] = band(fetch);
    j["end_to_end_ms_per_step"] = band(e2e);
    // Flatness: mean end_step time of the first and the last window of steps (last repetition).
    const uint64_t w = std::min<uint64_t>(1000, last.steps / 2);
    if (w > 0) {
      double first = 0, lastw = 0;
      for (uint64_t i = 0; i < w; ++i) {
        first += last.end_step_s[i];
        lastw += last.end_step_s[last.steps - w + i];
      }
      j["window_steps"] = w;
      j["stabilise_ms_first_window"] = 1e3 * first / w;
      j["stabilise_ms_last_window"] = 1e3 * lastw / w;
    }
    return j;
  }

  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    const std::string prof = profile_path(cfg, p, "r");
    tapio::IO io = prepare(cfg, "r", prof);
    tapio::Engine e = io.open(path(cfg, p, suffix()), TAPIO_MODE_READ);
    *wrong = 0;
    if (e.steps() != p.steps()) *wrong += 1;
    // A step's gets go together, as a reader of a step would (and ADIOS2's Get ... EndStep):
    // the gets are deferred so that one collective perform_gets moves them all.
    const size_t nv = p.vars().size();
    std::vector<tapio::Variable> vars;
    std::vector<Piece> pieces(nv);
    std::vector<const Piece*> from(nv, nullptr);  // the pattern's piece that pieces[v] packs
    Selections selections(context(cfg.comm).get());
    std::vector<std::vector<double>> bufs(nv);
    for (size_t v = 0; v < nv; ++v) vars.push_back(io.inquire_variable(p.vars()[v].name));
    for (uint64_t s : p.read_steps()) {
      for (size_t v = 0; v < nv; ++v) {
        const Piece& rp = p.step_read_piece(static_cast<int>(v), s);
        if (&rp != from[v]) {  // only when it changes (joined variables): packing is timed
          from[v] = &rp;
          pieces[v] = packed(rp);
          bufs[v].resize(pieces[v].elements);
        }
        if (pieces[v].elements == 0) continue;
        selections.select(vars[v], p.vars()[v], pieces[v], from[v]);
        vars[v].set_step_selection(s, 1);
        e.get(vars[v], bufs[v].data());
      }
      e.perform_gets();
      for (size_t v = 0; v < nv; ++v)
        *wrong += count_wrong(pieces[v], static_cast<int>(v), s, bufs[v].data());
    }
    e.close();
    return profile(cfg, prof, "POSIX_READS", "POSIX_BYTES_READ");
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    MPI_Barrier(cfg.comm);
    drop(cfg, path(cfg, p, suffix()));
  }

 private:
  bool subfile() const { return engine_ == "subfile"; }
  bool measures_metadata() const { return subfile(); }
  // NetCDF engines write PATTERN.METHOD.nc; the subfile engine a directory PATTERN.METHOD/.
  std::string suffix() const { return subfile() ? "" : ".nc"; }
  static void drop(const RunConfig& cfg, const std::string& p) {
    if (cfg.rank != 0) return;
    std::error_code ec;
    std::filesystem::remove_all(p, ec);
  }
  tapio::Context& context(MPI_Comm comm) {
    if (!ctx_) ctx_ = std::make_unique<tapio::Context>(comm);
    return *ctx_;
  }
  tapio::IO prepare(const RunConfig& cfg, const std::string& what, const std::string& prof) {
    tapio::IO io = context(cfg.comm).declare_io("bench." + name_ + "." + what + "." +
                                                std::to_string(ios_++));
    io.set_engine(engine_);
    io.set_parameter("fsync", cfg.fsync ? "close" : "never");
    io.set_parameter("profile", prof);
    for (const auto& [k, v] : params_) io.set_parameter(k, v);
    return io;
  }
  // Untimed: the bytes the dataset's blocks take in its data files (tapio_var_stored_bytes).
  uint64_t stored_bytes(const RunConfig& cfg, const Pattern& p) {
    tapio::IO io = prepare(cfg, "stored", "");
    tapio::Engine e = io.open(path(cfg, p, suffix()), TAPIO_MODE_READ);
    uint64_t stored = 0;
    for (const Var& v : p.vars()) {
      tapio::Variable var = io.inquire_variable(v.name);
      stored += e.stored_bytes(var).second;
    }
    e.close();
    return stored;
  }
  std::string profile_path(const RunConfig& cfg, const Pattern& p, const std::string& what) const {
    return path(cfg, p, ".profile." + what + ".json");
  }
  // Rank 0 reads the engine's profile (counters already summed over ranks) and removes it.
  static Counters profile(const RunConfig& cfg, const std::string& prof, const char* requests,
                          const char* bytes) {
    Counters c;
    if (cfg.rank != 0) return c;
    std::ifstream in(prof);
    if (!in) return c;
    json j = json::parse(in, nullptr, false);
    ::unlink(prof.c_str());
    if (j.is_discarded() || !j.contains("counters")) return c;
    const json& k = j["counters"];
    auto get = [&](const char* name) -> std::optional<double> {
      if (!k.contains(name)) return std::nullopt;
      return k[name]["sum"].get<double>();
    };
    c.requests = get(requests);
    c.bytes = get(bytes);
    c.messages = get("messages_sent");
    c.messages_between_nodes = get("messages_between_nodes");
    if (j.contains("phases")) c.phases = j["phases"];
    if (j.contains("plan_per_batch")) {
      json ms = json::array();
      for (const json& v : j["plan_per_batch"]["median"]) ms.push_back(1e3 * v.get<double>());
      c.plan = {{"per_batch_ms", ms}};
      for (const char* name :
           {"plans_made", "plans_reused", "plan_cache_bytes", "plan_kept_bytes"})
        if (auto v = get(name)) c.plan[name] = *v;
    }
    return c;
  }

  std::string name_, engine_;
  Params params_;
  std::unique_ptr<tapio::Context> ctx_;
  uint64_t ios_ = 0;
  MdRep pending_;
  std::vector<MdRep> reps_;
};

}  // namespace

std::unique_ptr<Method> make_tapio(const std::string& engine) {
  return std::make_unique<TapioMethod>(engine, engine, Params{});
}

std::unique_ptr<Method> make_tapio_variant(const std::string& name, const std::string& engine,
                                           const std::vector<std::pair<std::string, std::string>>& params) {
  return std::make_unique<TapioMethod>(name, engine, params);
}

}  // namespace bench
