#include "engine/profile.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace tapio {
namespace {

struct Named {
  std::vector<std::string> names;
  std::vector<double> values;
  void add(const std::string& name, double v) {
    names.push_back(name);
    values.push_back(v);
  }
};

Named flatten(const Profile& p) {
  Named n;
  n.names = io::Counters::names();
  n.values = p.io.values();
  n.add("messages_sent", static_cast<double>(p.messages_sent));
  n.add("bytes_sent", static_cast<double>(p.bytes_sent));
  n.add("messages_received", static_cast<double>(p.messages_received));
  n.add("bytes_received", static_cast<double>(p.bytes_received));
  n.add("rounds", static_cast<double>(p.rounds));
  n.add("time_exchange", p.exchange_time);
  n.add("time_write", p.write_time);
  n.add("time_read", p.read_time);
  n.add("time_metadata", p.metadata_time);
  n.add("time_wait", p.wait_time);
  n.add("time_total", p.total_time);
  return n;
}

}  // namespace

Status Profile::write_json(const comm::Comm& comm, const std::string& path,
                           const std::string& engine, const std::string& file) const {
  Named mine = flatten(*this);
  const int n = static_cast<int>(mine.values.size());
  std::vector<double> sum, lo, hi;
  TAPIO_RETURN_IF_ERROR(comm.allreduce_sum_min_max(mine.values, &sum, &lo, &hi));
  Status local = ok_status();
  if (comm.rank() == 0) {
    nlohmann::ordered_json j;
    j["engine"] = engine;
    j["file"] = file;
    j["ranks"] = comm.size();
    j["steps"] = steps;
    for (int i = 0; i < n; ++i)
      j["counters"][mine.names[i]] = {{"sum", sum[i]}, {"min", lo[i]}, {"max", hi[i]}};
    std::ofstream out(path);
    out << j.dump(2) << "\n";
    if (!out)
      local = error(TAPIO_ERR_IO, "cannot write the profile '{}' of file '{}'", path, file);
  }
  return comm::agree(comm, local);
}

}  // namespace tapio
