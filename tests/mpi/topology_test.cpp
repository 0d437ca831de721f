// Topology: real detection and virtual layouts, and that files written with many virtual
// nodes are the same as with one.
#include <gtest/gtest.h>

#include <fstream>

#include "comm/mpi_comm.h"
#include "comm/topology.h"
#include "test_util.h"

namespace tapio::test {
namespace {

TEST(Topology, DetectsOneRealNode) {
  auto comm = comm::MpiComm::duplicate(MPI_COMM_WORLD);
  ASSERT_TRUE(comm.ok());
  auto t = comm::detect_topology(*comm, 0, false);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->nodes, 1);  // the test machine is one node
  EXPECT_EQ(t->node_of_rank.size(), static_cast<size_t>(size()));
}

TEST(Topology, VirtualBlockAndCyclic) {
  auto comm = comm::MpiComm::duplicate(MPI_COMM_WORLD);
  ASSERT_TRUE(comm.ok());
  auto block = comm::detect_topology(*comm, 2, false);
  ASSERT_TRUE(block.ok());
  EXPECT_EQ(block->nodes, (size() + 1) / 2);
  for (int r = 0; r < size(); ++r) EXPECT_EQ(block->node(r), r / 2);
  auto cyclic = comm::detect_topology(*comm, 2, true);
  ASSERT_TRUE(cyclic.ok());
  for (int r = 0; r < size(); ++r) EXPECT_EQ(cyclic->node(r), r % cyclic->nodes);
  const comm::Topology big = comm::virtual_topology(100000, 48, false);
  EXPECT_EQ(big.nodes, 2084);
  EXPECT_EQ(big.node(99999), 2083);
}

TEST(Topology, ManyVirtualNodesWriteTheSameFile) {
  TempDir dir;
  std::vector<std::string> paths;
  for (const char* layout : {"block", "cyclic"}) {
    const std::string path = dir.file(std::string("v_") + layout + ".nc");
    paths.push_back(path);
    Context ctx(MPI_COMM_WORLD);
    IO io = ctx.declare_io("virtual");
    io.set_parameter("ranks_per_node", "1");
    io.set_parameter("node_layout", layout);
    const Dims shape = {static_cast<uint64_t>(size()), 6};
    Variable v = io.define_variable<double>("x", shape);
    Engine out = io.open(path, TAPIO_MODE_WRITE);
    out.begin_step();
    std::vector<double> data;
    for (uint64_t g : box_indices(shape, {static_cast<uint64_t>(rank()), 0}, {1, 6}))
      data.push_back(value(0, 0, g));
    v.set_selection({static_cast<uint64_t>(rank()), 0}, {1, 6});
    out.put(v, data);
    out.end_step();
    out.close();
  }
  if (rank() == 0) {
    std::ifstream a(paths[0], std::ios::binary), b(paths[1], std::ios::binary);
    std::string sa((std::istreambuf_iterator<char>(a)), {}), sb((std::istreambuf_iterator<char>(b)), {});
    EXPECT_FALSE(sa.empty());
    EXPECT_EQ(sa, sb);
  }
}

}  // namespace
}  // namespace tapio::test
