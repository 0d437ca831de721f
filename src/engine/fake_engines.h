// Unit tests of the engines on the fake communicator (comm/fake_comm.h): every virtual rank
// opens the same engine, with its own definitions, buffer pool and node memory, in one
// process, without mpiexec. Header-only, for tests.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "comm/fake_comm.h"
#include "comm/topology.h"
#include "core/buffer_pool.h"
#include "engine/engine.h"

namespace tapio::test {

using ParamMap = std::map<std::string, std::string>;

// A directory removed with its files when the object goes out of scope.
class TempDir {
 public:
  TempDir() {
    char templ[] = "/tmp/tapio_unit_XXXXXX";
    path_ = mkdtemp(templ);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// One virtual rank's context: what the C API's context holds for a real one.
struct RankContext {
  IoDef io;
  BufferPool pool{64u << 20};
  std::shared_ptr<comm::NodeMemory> node;
  io::Storage* storage = nullptr;  // where the engine's files live; null: POSIX
};

// Opens `engine` on `path` for this virtual rank; ranks_per_node 0 puts every rank on one node.
inline Result<std::unique_ptr<Engine>> open_on(const comm::Comm& c, RankContext* ctx,
                                               const std::string& engine,
                                               const std::string& path, OpenMode mode,
                                               const ParamMap& params, int ranks_per_node = 0) {
  EngineEnv env;
  env.spec.path = path;
  env.spec.mode = mode;
  env.spec.engine = engine;
  for (const auto& [k, v] : params) TAPIO_RETURN_IF_ERROR(env.spec.params.set(k, v));
  env.res.comm = &c;
  env.res.io = &ctx->io;
  TAPIO_ASSIGN_OR_RETURN(env.res.topology, comm::detect_topology(c, ranks_per_node, false));
  env.res.buffers = &ctx->pool;
  env.res.node_memory = &ctx->node;
  env.res.storage = ctx->storage;
  return open_engine(std::move(env));
}

inline VariableDef variable(const std::string& name, std::vector<uint64_t> shape) {
  VariableDef v;
  v.name = name;
  v.type = TAPIO_FLOAT64;
  v.shape = std::move(shape);
  for (size_t d = 0; d < v.shape.size(); ++d) v.dim_names.push_back(name + std::to_string(d));
  return v;
}

// Element g of variable v at step s.
inline double value(int v, uint64_t s, uint64_t g) {
  return static_cast<double>(g) + v / 4.0 + static_cast<double>(s) * 1048576.0;
}

using Steps = std::vector<std::vector<std::vector<double>>>;  // [step][variable][element]

// Every step of the 1-D double variables of `path`, read whole by `engine` on one rank (from
// `storage`, if given).
inline Steps read_whole(const std::string& engine, const std::string& path,
                        io::Storage* storage = nullptr) {
  Steps steps;
  comm::FakeWorld world(1);
  const Status run = world.run([&](comm::Comm& c) {
    RankContext ctx;
    ctx.io.name = "unit";
    ctx.storage = storage;
    auto e = open_on(c, &ctx, engine, path, OpenMode::kRead, {});
    ASSERT_TRUE(e.ok()) << e.status().message();
    for (StepStatus ss; (*e)->begin_step(&ss).ok() && ss == StepStatus::kOk;) {
      steps.emplace_back();
      for (size_t v = 0; v < ctx.io.vars.size(); ++v) {
        const uint64_t n = ctx.io.vars[v].shape[0];
        steps.back().emplace_back(n);
        ASSERT_TRUE((*e)->get(static_cast<int>(v), plan::shared(plan::Selection::box({0}, {n})),
                              0, 0, TAPIO_FLOAT64, steps.back()[v].data())
                        .ok());
      }
      ASSERT_TRUE((*e)->end_step().ok());
    }
    EXPECT_TRUE((*e)->close().ok());
  });
  EXPECT_TRUE(run.ok()) << run.message();
  return steps;
}

// Per-rank outcomes, gathered from the virtual ranks' threads.
class Outcomes {
 public:
  explicit Outcomes(int ranks) : codes_(ranks, -1), messages_(ranks) {}
  void set(int rank, const Status& st) {
    std::lock_guard<std::mutex> lock(m_);
    codes_[rank] = st.code();
    messages_[rank] = st.message();
  }
  // Every rank got `code` (TAPIO_OK or an error).
  bool all(int code) const {
    for (int c : codes_)
      if (c != code) return false;
    return true;
  }
  std::string describe() const {
    std::string out;
    for (size_t r = 0; r < codes_.size(); ++r)
      out += fmt::format("[rank {}: {} {}] ", r, codes_[r], messages_[r]);
    return out;
  }
  const std::string& message(int rank) const { return messages_[rank]; }

 private:
  std::mutex m_;
  std::vector<int> codes_;
  std::vector<std::string> messages_;
};

}  // namespace tapio::test
