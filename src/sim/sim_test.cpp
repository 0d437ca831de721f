// The model's hand-computed cases: a NIC, a storage target and per-message latency each as
// the bottleneck, pipelining, the planner-driven traffic of small workloads, and the errors of
// a bad cluster file.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "plan/domains.h"
#include "sim/auto_params.h"
#include "sim/choose.h"
#include "sim/cluster.h"
#include "sim/model.h"
#include "sim/patterns.h"
#include "sim/traffic.h"
#include "sim/units.h"
#include "sim/workload.h"

namespace tapio::sim {
namespace {

// Two nodes, one aggregator on node 1, one storage target; 1 GB/s everywhere, no latency.
Cluster two_nodes() {
  Cluster c;
  c.nodes = 2;
  c.ranks_per_node = 1;
  c.cores = 1;
  c.nic_bandwidth = 1e9;
  c.nic_latency = 0;
  c.targets = 2;
  c.stripe_count = 2;
  c.target_bandwidth = 1e9;
  c.copy_bandwidth = 1e10;
  return c;
}

Traffic one_round(const Cluster& c) {
  Traffic t;
  t.ranks = 2;
  t.nodes = 2;
  t.ranks_per_node = 1;
  t.writers = 1;
  t.writer_ranks = {1};
  t.swap_bytes.assign(2, 0);
  RoundLoad l;
  for (auto* v : {&l.nic_out, &l.nic_in, &l.msgs_out, &l.msgs_in, &l.shm_copy, &l.shm_pieces,
                  &l.node_write})
    v->assign(2, 0);
  for (auto* v : {&l.agg_copy, &l.agg_pieces, &l.agg_bytes_in, &l.agg_msgs}) v->assign(1, 0);
  for (auto* v : {&l.ost_bytes, &l.ost_requests, &l.ost_conflicts}) v->assign(c.targets, 0);
  t.rounds.push_back(l);
  return t;
}

double phase(const Prediction& p, const std::string& name) {
  for (const auto& [n, s] : p.phases)
    if (n == name) return s;
  return -1;
}

TEST(SimModel, NicBottleneck) {
  const Cluster c = two_nodes();
  Traffic t = one_round(c);
  // Node 0 sends 2 GB in one wave: 2 s at 1 GB/s, whatever the aggregator does.
  t.rounds[0].wave_out = {{2e9f, 0}};
  t.rounds[0].wave_in = {{0, 2e9f}};
  const Prediction p = predict(t, c);
  EXPECT_NEAR(phase(p, "exchange"), 2.0, 1e-6);
  EXPECT_EQ(p.bottleneck.kind, "NIC");
  EXPECT_EQ(p.bottleneck.instance, "node 1 receiving");
}

TEST(SimModel, WavesSerialiseTheNicTheyShare) {
  // Four nodes send 1 GB each to node 0's aggregator in two waves of two: each wave puts 2 GB
  // through node 0's NIC (2 s), so 4 s; spread over two receivers per wave it would be 2 s.
  Cluster c = two_nodes();
  c.nodes = 4;
  Traffic t = one_round(c);
  t.nodes = 4;
  t.rounds[0].wave_in = {{2e9f, 0, 0, 0}, {2e9f, 0, 0, 0}};
  t.rounds[0].wave_out = {{0, 1e9f, 1e9f, 0}, {0, 0, 1e9f, 1e9f}};
  EXPECT_NEAR(phase(predict(t, c), "exchange"), 4.0, 1e-6);
  t.rounds[0].wave_in = {{1e9f, 1e9f, 0, 0}, {1e9f, 1e9f, 0, 0}};
  EXPECT_NEAR(phase(predict(t, c), "exchange"), 2.0, 1e-6);
}

TEST(SimModel, StorageTargetBottleneck) {
  Cluster c = two_nodes();
  c.request_cost = 0.01;
  Traffic t = one_round(c);
  // Target 1 serves 3 GB in 30 requests: 3 s + 0.3 s; target 0 1 GB in 1: 1.01 s.
  t.rounds[0].ost_bytes = {1e9, 3e9};
  t.rounds[0].ost_requests = {1, 30};
  t.rounds[0].node_write = {0, 4e9};
  c.client_bandwidth = 1e10;
  const Prediction p = predict(t, c);
  EXPECT_NEAR(phase(p, "write"), 3.3, 1e-6);
  EXPECT_EQ(p.bottleneck.kind, "storage target");
  EXPECT_EQ(p.bottleneck.instance, "target 1");
}

TEST(SimModel, LockConflictsCostAtTheirTarget) {
  Cluster c = two_nodes();
  c.lock_cost = 0.5;
  Traffic t = one_round(c);
  t.rounds[0].ost_bytes = {1e9, 1e9};
  t.rounds[0].ost_conflicts = {0, 2};
  EXPECT_NEAR(phase(predict(t, c), "write"), 2.0, 1e-6);
}

TEST(SimModel, PerMessageLatencyBottleneck) {
  // IDDIO's DDIO case: 8 KiB arriving as 512 pieces of 16 B, each its own message, at 52 us
  // per message (table 1): 26.6 ms (the paper's 25.64 ms), while the bytes take microseconds.
  Cluster c = two_nodes();
  c.nic_latency = 52e-6;
  Traffic t = one_round(c);
  t.rounds[0].agg_msgs = {512};
  t.rounds[0].agg_bytes_in = {8192};
  const Prediction p = predict(t, c);
  EXPECT_NEAR(phase(p, "exchange"), 512 * 52e-6 + 52e-6, 1e-9);
  EXPECT_EQ(p.bottleneck.kind, "aggregator messages and copies");
}

TEST(SimModel, OneWriterPerNodeCopiesAtOneCoresRate) {
  // Node 1 writes 2 GB; the client takes 8 GB/s, one writer copies 1 GB/s: 2 s with one
  // writer, 1 s with two on 2 cores, still 1 s with four (the cores are the limit).
  Cluster c = two_nodes();
  c.cores = 2;
  c.client_bandwidth = 8e9;
  c.target_bandwidth = 8e9;
  c.writer_bandwidth = 1e9;
  Traffic t = one_round(c);
  t.rounds[0].node_write = {0, 2e9};
  t.rounds[0].ost_bytes = {1e9, 1e9};
  t.node_writers = {0, 1};
  Prediction p = predict(t, c);
  EXPECT_NEAR(phase(p, "write"), 2.0, 1e-6);
  EXPECT_EQ(p.bottleneck.kind, "writers' copies");
  EXPECT_EQ(p.bottleneck.instance, "node 1");
  t.node_writers = {0, 2};
  EXPECT_NEAR(phase(predict(t, c), "write"), 1.0, 1e-6);
  t.node_writers = {0, 4};
  EXPECT_NEAR(phase(predict(t, c), "write"), 1.0, 1e-6);
  // Unset (0), a writer is not a limit: the client's 8 GB/s is.
  c.writer_bandwidth = 0;
  t.node_writers = {0, 1};
  EXPECT_NEAR(phase(predict(t, c), "write"), 0.25, 1e-6);
}

TEST(SimModel, WritersOfOneFileOnOneHostSyncItOnce) {
  Cluster c = two_nodes();
  c.shared_host = true;
  c.sync_cost = 0.01;
  Traffic t = one_round(c);
  t.writers = 4;
  t.files = 1;  // the collective engine's aggregators: one file
  EXPECT_NEAR(phase(predict(t, c), "sync"), 0.01, 1e-12);
  t.files = 6;  // four subfiles, the metadata and the index: a writer each syncs its own
  EXPECT_NEAR(phase(predict(t, c), "sync"), 0.04, 1e-12);
  c.shared_host = false;  // on their own nodes, at once
  EXPECT_NEAR(phase(predict(t, c), "sync"), 0.01, 1e-12);
}

TEST(SimModel, PipelineHidesTheShorterStage) {
  const Cluster c = two_nodes();
  Traffic t = one_round(c);
  t.rounds[0].wave_in = {{0, 1e9f}};  // 1 s exchange per round
  t.rounds[0].wave_out = {{1e9f, 0}};
  t.rounds[0].ost_bytes = {2e9, 0};  // 2 s write per round
  t.rounds.push_back(t.rounds[0]);
  t.rounds.push_back(t.rounds[0]);
  t.pipeline = true;
  Prediction p = predict(t, c);
  // 1 + max(1, 2) + max(1, 2) + 2 = 7; without the pipeline 3 x (1 + 2) = 9.
  EXPECT_NEAR(phase(p, "exchange") + phase(p, "write"), 7.0, 1e-6);
  t.pipeline = false;
  p = predict(t, c);
  EXPECT_NEAR(phase(p, "exchange") + phase(p, "write"), 9.0, 1e-6);
}

Workload hpio(int ranks, const std::string& aggregators) {
  Workload w;
  w.ranks = ranks;
  w.pattern.name = "hpio";
  w.pattern.count = 4;
  w.pattern.size = 1024;
  w.pattern.spacing = 0;
  EXPECT_TRUE(w.params.set("aggregators", aggregators).ok());
  EXPECT_TRUE(w.params.set("buffer_size", "4KiB").ok());
  EXPECT_TRUE(w.params.set("stripe_size", "4KiB").ok());
  EXPECT_TRUE(w.params.set("header_pad", "0").ok());
  EXPECT_TRUE(w.params.set("data_align", "4096").ok());  // the data starts on a stripe
  return w;
}

TEST(SimTraffic, InterleavedRegionsGoEveryRankToEveryAggregator) {
  // 4 ranks on 2 nodes, 2 aggregators (ranks 0 and 2, one per node), 4 regions of 1 KiB per
  // rank interleaved: each 4 KiB stripe holds one region of every rank. Domains of 2 stripes,
  // rounds of one stripe: every round, every rank has one region for each aggregator.
  Cluster c = two_nodes();
  c.ranks_per_node = 2;
  const Workload w = hpio(4, "2");
  auto p = make_pattern(w.pattern, w.ranks);
  ASSERT_TRUE(p.ok());
  auto t = plan_traffic(w, **p, c, nullptr);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->mode, "two-phase");
  EXPECT_EQ(t->bytes, 4u * 4 * 1024);
  EXPECT_EQ(t->writer_ranks, (std::vector<int>{0, 2}));
  ASSERT_EQ(t->rounds.size(), 2u);
  for (const RoundLoad& l : t->rounds) {
    // Per round and aggregator: one region from each of the 2 remote ranks (list + data) ...
    EXPECT_EQ(l.msgs_in[0] + l.msgs_in[1], 8);
    EXPECT_EQ(l.agg_bytes_in[0], 2 * (1024 + 32));
    // ... and one from the other rank of its node, through the shared slot.
    EXPECT_EQ(l.shm_copy[0], 1024);
    // Each aggregator writes its 4 KiB window: one request on one of the 2 targets.
    EXPECT_EQ(l.ost_requests[0] + l.ost_requests[1], 2);
  }
}

TEST(SimTraffic, ContiguousLargePiecesGoDirect) {
  Cluster c = two_nodes();
  Workload w = hpio(2, "1");
  w.pattern.file = "contig";  // rank r's regions back to back: 4 KiB per rank, in rank order
  auto p = make_pattern(w.pattern, w.ranks);
  ASSERT_TRUE(p.ok());
  auto t = plan_traffic(w, **p, c, nullptr);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->mode, "direct");
  EXPECT_EQ(t->rounds[0].node_write[0] + t->rounds[0].node_write[1], 8192);
}

// Decompositions are planned once (docs/design.md): the first step describes each distinct
// decomposition, every later step costs only the reuse — placing and routing the plans in the
// collective engine, nothing in the subfile engine.
TEST(SimTraffic, LaterStepsPlanAtTheReuseCost) {
  Cluster c = two_nodes();
  c.ranks_per_node = 2;
  Workload w;
  w.ranks = 4;
  w.pattern.name = "licom";
  w.pattern.grid = "64x32x8";  // equal blocks of 32 x 16 on a 2 x 2 grid
  w.pattern.steps = 3;
  // One rank's segments for one variable of each kind, then for 3 + 2 of them.
  const auto traffic = [&](uint64_t vars3d, uint64_t vars2d) {
    w.pattern.vars3d = vars3d;
    w.pattern.vars2d = vars2d;
    auto p = make_pattern(w.pattern, w.ranks);
    EXPECT_TRUE(p.ok()) << p.status().message();
    auto t = plan_traffic(w, **p, c, nullptr);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return *t;
  };
  const uint64_t s3 = traffic(1, 0).max_rank_segments, s2 = traffic(0, 1).max_rank_segments;
  const Traffic t = traffic(3, 2);
  // Five variables of two decompositions: every step places and routes all their segments,
  // the first describes one 3-D and one 2-D plan.
  EXPECT_EQ(t.max_rank_routed, 3 * s3 + 2 * s2);
  EXPECT_EQ(t.max_rank_described, s3 + s2);
  const Prediction pr = predict(t, c);
  const double reuse = kRouteCost * static_cast<double>(t.max_rank_routed);
  EXPECT_DOUBLE_EQ(pr.plan_later_step, reuse);
  EXPECT_DOUBLE_EQ(pr.plan_first_step, reuse + kDescribeCost * static_cast<double>(s3 + s2));
  EXPECT_NEAR(phase(pr, "plan"), pr.plan_first_step + 2 * pr.plan_later_step, 1e-15);
  w.engine = "subfile";
  const Traffic sub = traffic(3, 2);
  EXPECT_EQ(sub.max_rank_described, s3 + s2);
  const Prediction ps = predict(sub, c);
  EXPECT_EQ(ps.plan_later_step, 0);
  EXPECT_DOUBLE_EQ(ps.plan_first_step, kDescribeCost * static_cast<double>(s3 + s2));
}

TEST(SimTraffic, LicomGridMatchesMpiDimsCreate) {
  int rows = 0, cols = 0;
  // 72 ranks: MPI_Dims_create's 12 x 6 grid (tapio-bench's), not the most balanced 9 x 8. On
  // 24 lat x 12 lon points every rank has 2 x 2; rank 7 is process row 1, column 1.
  PatternOptions o;
  o.grid = "12x24x1";
  o.vars3d = 1;
  o.vars2d = 0;
  auto p = make_pattern(o, 72);
  ASSERT_TRUE(p.ok());
  (*p)->for_each_put(7, [&](int, const plan::Selection& sel, int) {
    EXPECT_EQ(sel.start, (std::vector<uint64_t>{0, 2, 2}));
    rows = static_cast<int>(sel.count[1]);
    cols = static_cast<int>(sel.count[2]);
  });
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(cols, 2);
}

TEST(SimCluster, ReadsUnitsAndTopology) {
  auto c = parse_cluster(
      "[nodes]\ncount = 64\nranks_per_node = 12\n[nic]\nbandwidth = \"6.5GiB/s\"\n"
      "latency = \"1.5us\"\n[network]\ntopology = \"fat-tree\"\nnodes_per_switch = 16\n"
      "[storage]\ntargets = 8\nstripe_size = \"4MiB\"\nstripe_count = -1\n",
      "c.toml", {"storage.targets=16"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ranks(), 768);
  EXPECT_DOUBLE_EQ(c->nic_bandwidth, 6.5 * (1ull << 30));
  EXPECT_DOUBLE_EQ(c->nic_latency, 1.5e-6);
  EXPECT_EQ(c->topology, Topology::kFatTree);
  EXPECT_EQ(c->stripe_size, 4u << 20);
  EXPECT_EQ(c->stripes_per_file(), 16);
}

TEST(SimCluster, ErrorsNameTheKeyAndLine) {
  auto bad = parse_cluster("[nodes]\ncount = 4\n\n[nic]\nbandwith = \"1GiB/s\"\n", "c.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "cluster file 'c.toml', line 5: unknown key 'nic.bandwith'; did you mean 'bandwidth'?");
  bad = parse_cluster("[nic]\nbandwidth = \"fast\"\n", "c.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("line 2: 'nic.bandwidth' must be a rate"), std::string::npos)
      << bad.status().message();
  bad = parse_cluster("[storage]\ntargets = 0\n", "c.toml");
  EXPECT_NE(bad.status().message().find("line 2: 'storage.targets' must be an integer of at least 1"),
            std::string::npos) << bad.status().message();
  bad = parse_cluster("[network]\ntopology = \"dragonfy\"\n", "c.toml");
  EXPECT_NE(bad.status().message().find("did you mean 'dragonfly'?"), std::string::npos);
  bad = parse_cluster("[storge]\ntargets = 2\n", "c.toml");
  EXPECT_NE(bad.status().message().find("line 1: unknown section [storge]; did you mean 'storage'?"),
            std::string::npos) << bad.status().message();
  bad = parse_cluster("[nodes]\ncount = 2\n", "c.toml", {"nic.latency=soon"});
  EXPECT_NE(bad.status().message().find("--set 'nic.latency=soon'"), std::string::npos);
}

TEST(SimWorkload, ParamsGoThroughTheRegistry) {
  auto w = parse_workload("ranks = 8\n[pattern]\nname = \"hpio\"\n[params]\nbufer_size = \"1MiB\"\n",
                          "w.toml", {}, "");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("line 5: unknown parameter 'bufer_size'; did you mean 'buffer_size'?"),
            std::string::npos) << w.status().message();
  w = parse_workload("ranks = 8\n[pattern]\nname = \"hpio\"\n", "w.toml",
                     {"params.aggregators=1/2", "pattern.count=16"}, "");
  ASSERT_TRUE(w.ok()) << w.status().message();
  EXPECT_EQ(w->params.get("aggregators"), "1/2");
  EXPECT_EQ(w->pattern.count, 16u);
}

TEST(SimChoose, AutoSizesBecomeNumbersTheModelPrefers) {
  IoDef io;
  for (const char* name : {"a", "b"}) {
    VariableDef v;
    v.name = name;
    v.shape = {name[0] == 'a' ? 1u << 20 : 3u << 16};  // 8 MiB and 1.5 MiB of doubles
    v.dim_names = {"n"};
    io.vars.push_back(v);
  }
  Params params;
  ASSERT_TRUE(params.set("buffer_size", "auto").ok());
  ASSERT_TRUE(params.set("stripe_size", "auto").ok());
  ASSERT_TRUE(resolve_auto(&params, "collective", io, {0, 0, 1, 1}, 2).ok());
  const uint64_t buffer = params.get_size("buffer_size"), stripe = params.get_size("stripe_size");
  EXPECT_GE(buffer, 1u << 20);
  EXPECT_GE(stripe, 1u << 20);
  EXPECT_EQ(params.get("aggregators"), "auto");  // no cluster file: one per node, as ever
  // Opening for reading (no variables yet) takes the registry's defaults.
  Params reading;
  ASSERT_TRUE(reading.set("buffer_size", "auto").ok());
  ASSERT_TRUE(resolve_auto(&reading, "collective", IoDef{}, {0, 1}, 2).ok());
  EXPECT_EQ(reading.get("buffer_size"), std::to_string(16u << 20));
}

// two_level = auto: off without a cluster file and on one node (nothing leaves it); on for
// the TSUBAME2.5-like machine when 12 ranks a node each send 64-byte pieces to every
// aggregator (an aggregator's per-message costs are what two-level divides).
TEST(SimChoose, TwoLevelAutoIsTheModelsChoice) {
  IoDef io;
  VariableDef v;
  v.name = "x";
  v.type = TAPIO_FLOAT64;
  v.shape = {256, 96 * 8};  // rows of 8 doubles a rank
  v.dim_names = {"y", "x"};
  io.vars.push_back(v);
  std::vector<int> eight_nodes(96), one_node(12, 0);
  for (int r = 0; r < 96; ++r) eight_nodes[r] = r / 12;
  const std::string cluster = TAPIO_SOURCE_DIR "/examples/sim/tsubame25.toml";
  auto resolved = [&](const std::string& file, const std::vector<int>& nodes, int count) {
    Params params;
    EXPECT_TRUE(params.set("cluster", file).ok());
    EXPECT_EQ(params.get("two_level"), "auto");
    EXPECT_TRUE(resolve_auto(&params, "collective", io, nodes, count).ok());
    return params.get("two_level");
  };
  EXPECT_EQ(resolved("", eight_nodes, 8), "false");
  EXPECT_EQ(resolved(cluster, one_node, 1), "false");
  EXPECT_EQ(resolved(cluster, eight_nodes, 8), "true");
}

// plan_traffic with two_level = true is the one-level traffic gathered per node, and
// compare_two_level predicts exactly those two.
TEST(SimChoose, TwoLevelTrafficIsGatheredPerNode) {
  Cluster c = two_nodes();
  c.ranks_per_node = 4;
  c.nic_latency = 1e-6;
  Workload w = hpio(8, "2");
  auto p = make_pattern(w.pattern, w.ranks);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(w.params.set("ranks_per_node", "4").ok());
  auto one = plan_traffic(w, **p, c, nullptr);
  ASSERT_TRUE(w.params.set("two_level", "true").ok());
  auto two = plan_traffic(w, **p, c, nullptr);
  ASSERT_TRUE(one.ok() && two.ok());
  double msgs_one = 0, msgs_two = 0, copy_one = 0, copy_two = 0, out_one = 0;
  for (size_t r = 0; r < one->rounds.size(); ++r)
    for (size_t n = 0; n < one->rounds[r].msgs_out.size(); ++n) {
      msgs_one += one->rounds[r].msgs_out[n];
      msgs_two += two->rounds[r].msgs_out[n];
      copy_one += one->rounds[r].shm_copy[n];
      copy_two += two->rounds[r].shm_copy[n];
      out_one += one->rounds[r].nic_out[n];
    }
  EXPECT_GT(msgs_one, 0);
  EXPECT_DOUBLE_EQ(msgs_two, msgs_one / 4);  // a message per node instead of per rank
  EXPECT_DOUBLE_EQ(copy_two, copy_one + out_one);  // the node's outgoing bytes copied once more
  auto both = compare_two_level(w, **p, c);
  ASSERT_TRUE(both.ok());
  EXPECT_DOUBLE_EQ(both->one_level.total, predict(*one, c).total);
  EXPECT_DOUBLE_EQ(both->two_level.total, predict(*two, c).total);
}

// aggregators = auto with a cluster file: one per node where the network limits a node's
// output (more writers add messages, not bandwidth), more per node where one writer's copy
// into the file system does (docs/sim.md, "Choosing with the model"). Memory copies are made
// free so that only the writers' copies can favour more aggregators.
TEST(SimChoose, AutoAggregatorsFollowWhatLimitsANode) {
  IoDef io;
  VariableDef v;
  v.name = "x";
  v.type = TAPIO_FLOAT64;
  v.shape = {256, 16 * 4096};  // 128 MiB, each of 16 ranks a band of every row
  v.dim_names = {"y", "x"};
  io.vars.push_back(v);
  std::vector<int> node_of(16);
  for (int r = 0; r < 16; ++r) node_of[r] = r / 4;
  const std::string common =
      "[nodes]\ncount = 4\nranks_per_node = 4\ncores = 4\n[memory]\ncopy_bandwidth = \"1000GiB/s\"\n"
      "[storage]\ntargets = 8\nstripe_count = -1\ntarget_bandwidth = \"10GiB/s\"\n";
  const auto chosen = [&](const std::string& name, const std::string& text) {
    const std::string path = testing::TempDir() + name;
    std::ofstream(path) << common << text;
    Params params;
    EXPECT_TRUE(params.set("cluster", path).ok());
    EXPECT_TRUE(params.set("aggregators", "auto").ok());
    // Rounds of buffer_size: with min_rounds' smaller rounds, one and two aggregators per node
    // behind a slow network are predicted about 1% apart (the pipeline's fill), and this test
    // is about which bottleneck the choice follows.
    EXPECT_TRUE(params.set("min_rounds", "1").ok());
    const Status st = resolve_auto(&params, "collective", io, node_of, 4);
    EXPECT_TRUE(st.ok()) << st.message();
    std::remove(path.c_str());
    return plan::aggregator_count(16, 4, params.get("aggregators"), 1);
  };
  // A slow network, clients and writers that keep up: one aggregator per node.
  EXPECT_EQ(chosen("net.toml", "client_bandwidth = \"8GiB/s\"\nwriter_bandwidth = \"8GiB/s\"\n"
                               "[nic]\nbandwidth = \"1GiB/s\"\nlatency = \"2us\"\n"),
            4);
  // A fast network, a client of 8 GiB/s, and one writer copying 1 GiB/s: four per node.
  EXPECT_EQ(chosen("copy.toml", "client_bandwidth = \"8GiB/s\"\nwriter_bandwidth = \"1GiB/s\"\n"
                                "[nic]\nbandwidth = \"100GiB/s\"\nlatency = \"2us\"\n"),
            16);
}

// aggregators = auto when reading a collective file on a described machine: as many
// aggregators per node as the node's client needs readers, each reading at reader_bandwidth
// (at most the node's ranks); one where a reader keeps up, or none is described; what the
// program asked for stays.
TEST(SimChoose, AutoAggregatorsReadWithTheReadersANodeNeeds) {
  std::vector<int> node_of(16);
  for (int r = 0; r < 16; ++r) node_of[r] = r / 4;
  const auto per_node = [&](const std::string& name, const std::string& storage,
                            const std::map<std::string, std::string>& asked = {}) {
    const std::string path = testing::TempDir() + name;
    std::ofstream(path) << "[nodes]\ncount = 4\nranks_per_node = 4\n[storage]\n" << storage;
    Params params;
    EXPECT_TRUE(params.set("cluster", path).ok());
    EXPECT_TRUE(params.set("aggregators", "auto").ok());
    for (const auto& [k, v] : asked) EXPECT_TRUE(params.set(k, v).ok());
    const Status st = resolve_auto(&params, "collective", IoDef{}, node_of, 4);
    EXPECT_TRUE(st.ok()) << st.message();
    std::remove(path.c_str());
    EXPECT_EQ(params.get("aggregators"), "auto");
    return params.get_int("aggregators_per_node");
  };
  EXPECT_EQ(per_node("r3.toml", "client_read_bandwidth = \"6GiB/s\"\n"
                                "reader_bandwidth = \"2.5GiB/s\"\n"), 3);
  EXPECT_EQ(per_node("r4.toml", "client_bandwidth = \"40GiB/s\"\n"
                                "reader_bandwidth = \"2GiB/s\"\n"), 4);  // the node's ranks
  EXPECT_EQ(per_node("r1.toml", "client_read_bandwidth = \"2GiB/s\"\n"
                                "reader_bandwidth = \"3GiB/s\"\n"), 1);
  // Within 10% of the client is reaching it (this machine's /dev/shm, calibrated): 2, not 3.
  EXPECT_EQ(per_node("r2.toml", "client_read_bandwidth = \"9273MiB/s\"\n"
                                "reader_bandwidth = \"4548MiB/s\"\n"), 2);
  EXPECT_EQ(per_node("r0.toml", "client_bandwidth = \"8GiB/s\"\n"), 1);
  EXPECT_EQ(per_node("rasked.toml", "client_read_bandwidth = \"6GiB/s\"\n"
                                    "reader_bandwidth = \"2GiB/s\"\n",
                     {{"aggregators_per_node", "2"}}), 2);
}

TEST(SimChoose, ExplainRanksEveryCandidate) {
  Cluster c = two_nodes();
  c.ranks_per_node = 2;
  c.nic_latency = 1e-6;
  const Workload w = hpio(4, "auto");
  auto p = make_pattern(w.pattern, w.ranks);
  ASSERT_TRUE(p.ok());
  auto choice = choose(w, **p, c, {"aggregators", "buffer_size"});
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  // 7 aggregator texts name 3 counts at 4 ranks on 2 nodes (2, 4, 1), x 4 buffer sizes.
  EXPECT_EQ(choice->tried.size(), 3u * 4u);
  for (size_t i = 1; i < choice->tried.size(); ++i)
    EXPECT_LE(choice->tried[i - 1].seconds, choice->tried[i].seconds);
  EXPECT_LE(choice->best.seconds, choice->tried.front().seconds * 1.01);
  EXPECT_EQ(choice->best.stripe_size, 4096u);  // not free: the workload's
}

TEST(SimChoose, ANearTieTakesTheLeastBufferMemory) {
  const uint64_t MiB = 1u << 20;
  // 4 MiB predicted 0.5% faster than 1 MiB: the model cannot tell them apart, take less memory.
  std::vector<Candidate> tried = {{"auto", 4 * MiB, MiB, 1.000, {}},
                                  {"auto", MiB, MiB, 1.005, {}},
                                  {"auto", 16 * MiB, MiB, 1.006, {}}};
  EXPECT_EQ(least_memory_near_fastest(tried).buffer_size, MiB);
  // 2% faster is a difference the model sees: the fastest stays.
  tried[1].seconds = tried[2].seconds = 1.02;
  EXPECT_EQ(least_memory_near_fastest(tried).buffer_size, 4 * MiB);
  // Among equal buffers, the faster (earlier) one.
  tried = {{"auto", MiB, 4 * MiB, 1.000, {}}, {"2", MiB, MiB, 1.001, {}}};
  EXPECT_EQ(least_memory_near_fastest(tried).aggregators, "auto");
  // Each aggregator holds a buffer: four predicted 0.2% faster than one hold four times the
  // memory, and one wins; 2% faster is seen, and four stay.
  tried = {{"4", MiB, MiB, 1.000, {}, 4}, {"auto", MiB, MiB, 1.002, {}, 1}};
  EXPECT_EQ(least_memory_near_fastest(tried).aggregators, "auto");
  tried[1].seconds = 1.02;
  EXPECT_EQ(least_memory_near_fastest(tried).aggregators, "4");
}

TEST(SimChoose, TheTieBreakSaysWhichRuleChose) {
  const uint64_t MiB = 1u << 20;
  // Four within 1% of the fastest; two of them with the smallest buffer, predicted alike.
  const std::vector<Candidate> tried = {{"auto", 4 * MiB, MiB, 1.000, {}},
                                        {"auto", MiB, MiB, 1.005, {}},
                                        {"2", MiB, MiB, 1.005, {}},
                                        {"auto", 16 * MiB, MiB, 1.006, {}},
                                        {"all", MiB, MiB, 1.5, {}}};
  const Candidate best = least_memory_near_fastest(tried);
  EXPECT_EQ(best.aggregators, "auto");
  const TieBreak why = tie_break(tried, best);
  EXPECT_EQ(why.near, 4u);
  EXPECT_EQ(why.least_memory, 2u);
  EXPECT_EQ(why.equal, 2u);
  const std::string text = describe(why, best);
  EXPECT_NE(text.find("4 candidates are predicted within 1% of the fastest"), std::string::npos);
  EXPECT_NE(text.find("least buffer memory among them (1 MiB)"), std::string::npos) << text;
  EXPECT_NE(text.find("2 are predicted exactly as fast (1 s): the first tried wins"),
            std::string::npos) << text;
  // Alone within 1%: no tie to break.
  const std::vector<Candidate> clear = {tried[0], tried[4]};
  EXPECT_EQ(describe(tie_break(clear, clear[0]), clear[0]),
            "the fastest; no other candidate is predicted within 1% of it");
}

TEST(SimUnits, RatesAndDurations) {
  EXPECT_DOUBLE_EQ(*parse_rate("800 MiB/s"), 800.0 * (1 << 20));
  EXPECT_DOUBLE_EQ(*parse_duration("7.4ms"), 7.4e-3);
  EXPECT_DOUBLE_EQ(*parse_duration("52us"), 52e-6);
  EXPECT_FALSE(parse_rate("12GiB").ok());
  EXPECT_FALSE(parse_duration("3 fortnights").ok());
}

}  // namespace
}  // namespace tapio::sim
