// tapio engines (serial, mpiio, collective, ...) through the C++ API. Storage requests, bytes
// and messages come from the engine's own profile (the `profile` parameter's JSON). An engine
// this library build lacks makes tapio_open fail with TAPIO_ERR_UNSUPPORTED: reported as
// unavailable, never hidden.
#include <unistd.h>

#include <fstream>

#include "registry.h"
#include "tapio/tapio.hpp"

namespace bench {
namespace {

class TapioMethod : public Method {
 public:
  explicit TapioMethod(std::string engine) : engine_(std::move(engine)) {}
  std::string name() const override { return engine_; }

  Availability available(const RunConfig& cfg) override {
    const std::string probe = cfg.dir + "/.tapio-bench-probe." + engine_ + ".nc";
    try {
      tapio::IO io = prepare(cfg, "probe", "");
      tapio::Engine e = io.open(probe, TAPIO_MODE_WRITE);
      const std::string got = e.engine_name();
      e.close();
      if (cfg.rank == 0) ::unlink(probe.c_str());
      if (got != engine_)
        return {Availability::kUnavailable,
                "a config file (TAPIO_CONFIG) turned it into engine '" + got + "'"};
      return {};
    } catch (const tapio::Error& e) {
      if (cfg.rank == 0) ::unlink(probe.c_str());
      if (e.code() == TAPIO_ERR_UNSUPPORTED)
        return {Availability::kUnavailable, "not in this tapio build: " + std::string(e.what())};
      return {Availability::kUnavailable, e.what()};
    }
  }

  Counters write(const RunConfig& cfg, const Pattern& p, const StepData& data) override {
    const std::string prof = profile_path(cfg, p, "w");
    tapio::IO io = prepare(cfg, "w", prof);
    std::vector<tapio::Variable> vars;
    for (const Var& v : p.vars()) vars.push_back(io.define_variable<double>(v.name, v.shape, v.dims));
    std::vector<std::vector<double>> packs(p.vars().size());
    tapio::Engine e = io.open(path(cfg, p, ".nc"), TAPIO_MODE_WRITE);
    for (uint64_t s = 0; s < p.steps(); ++s) {
      e.begin_step();
      for (size_t v = 0; v < vars.size(); ++v) {
        const Piece& pc = p.write_piece(static_cast<int>(v));
        select(vars[v], pc);
        const double* buf = data[s][v].data();
        if (!pc.mem_contiguous()) {  // the API takes contiguous data: pack (timed, honestly)
          packs[v].resize(pc.elements);
          pack(pc, buf, packs[v].data());
          buf = packs[v].data();
        }
        e.put(vars[v], buf);
      }
      e.end_step();
    }
    e.close();
    return profile(cfg, prof, "POSIX_WRITES", "POSIX_BYTES_WRITTEN");
  }

  Counters read_verify(const RunConfig& cfg, const Pattern& p, uint64_t* wrong) override {
    const std::string prof = profile_path(cfg, p, "r");
    tapio::IO io = prepare(cfg, "r", prof);
    tapio::Engine e = io.open(path(cfg, p, ".nc"), TAPIO_MODE_READ);
    *wrong = 0;
    if (e.steps() != p.steps()) *wrong += 1;
    for (size_t v = 0; v < p.vars().size(); ++v) {
      tapio::Variable var = io.inquire_variable(p.vars()[v].name);
      const Piece rp = packed(p.read_piece(static_cast<int>(v)));
      std::vector<double> buf(rp.elements);
      for (uint64_t s = 0; s < p.steps(); ++s) {
        select(var, rp);
        var.set_step_selection(s, 1);
        e.get(var, buf.data());
        e.perform_gets();
        *wrong += count_wrong(rp, static_cast<int>(v), s, buf.data());
      }
    }
    e.close();
    return profile(cfg, prof, "POSIX_READS", "POSIX_BYTES_READ");
  }

  void remove(const RunConfig& cfg, const Pattern& p) override {
    if (cfg.rank == 0) ::unlink(path(cfg, p, ".nc").c_str());
  }

 private:
  tapio::Context& context(MPI_Comm comm) {
    if (!ctx_) ctx_ = std::make_unique<tapio::Context>(comm);
    return *ctx_;
  }
  tapio::IO prepare(const RunConfig& cfg, const std::string& what, const std::string& prof) {
    tapio::IO io = context(cfg.comm).declare_io("bench." + engine_ + "." + what + "." +
                                                std::to_string(ios_++));
    io.set_engine(engine_);
    io.set_parameter("fsync", cfg.fsync ? "close" : "never");
    io.set_parameter("profile", prof);
    return io;
  }
  static void select(tapio::Variable& var, const Piece& pc) {
    if (pc.box)
      var.set_selection(pc.box->first, pc.box->second);
    else
      var.set_runs(pc.offsets, pc.lengths);
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
    return c;
  }

  std::string engine_;
  std::unique_ptr<tapio::Context> ctx_;
  uint64_t ios_ = 0;
};

}  // namespace

std::unique_ptr<Method> make_tapio(const std::string& engine) {
  return std::make_unique<TapioMethod>(engine);
}

}  // namespace bench
