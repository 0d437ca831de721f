// The engine registry against the parameter table: the engines config validation knows are
// the engines that open, and each implements what the table says every engine reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/params.h"
#include "engine/engine.h"

namespace tapio {
namespace {

TEST(EngineRegistry, HoldsExactlyTheEngineNamesInTheirOrder) {
  std::vector<std::string_view> registered;
  for (const EngineEntry& entry : engine_registry()) registered.push_back(entry.name);
  EXPECT_EQ(registered, engine_names());
}

// The registry opens without checking `async`: every engine must implement it.
TEST(EngineRegistry, EveryEngineReadsAsync) {
  std::stringstream list{std::string(find_param("async")->engines)};
  std::vector<std::string> readers;
  for (std::string name; std::getline(list, name, ',');) readers.push_back(name);
  for (const EngineEntry& entry : engine_registry())
    EXPECT_NE(std::find(readers.begin(), readers.end(), entry.name), readers.end())
        << entry.name;
}

TEST(EngineRegistry, OnlyTheParametersOperatorReadersStoreCodedBlocks) {
  const std::string_view readers = find_param("operator")->engines;
  for (const EngineEntry& entry : engine_registry())
    EXPECT_EQ(entry.capabilities.operators, readers.find(entry.name) != std::string_view::npos)
        << entry.name;
}

}  // namespace
}  // namespace tapio
