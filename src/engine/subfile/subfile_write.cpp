// Subfile engine, write side: N ranks -> M subfiles. Each rank describes its blocks (min, max,
// chunk checksums: the hashing is spread over all ranks) and sends descriptors and data to its
// group's aggregator in one message; the aggregator appends them, aligned, with one write.
// At commit every writer's block list becomes metadata through the chosen backend (gather,
// log, aligned), and rank 0 appends the step's index record last.
#include <cstring>
#include <filesystem>

#include "engine/subfile/block_stats.h"
#include "engine/subfile/subfile_engine.h"
#include "plan/domains.h"

namespace tapio {
namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return a <= 1 ? x : (x + a - 1) / a * a; }

// Remove a previous dataset's files (only tapio's own) and make the directory; not its
// parents: as for a NetCDF file, the parent directory must exist (a mistyped path fails).
Status prepare_directory(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directory(path, ec);
  if (ec == std::errc::no_such_file_or_directory)
    return error(TAPIO_ERR_NOT_FOUND, "cannot create directory '{}': its parent directory '{}' "
                 "does not exist", path, fs::path(path).parent_path().string());
  if (ec) return error(TAPIO_ERR_IO, "cannot create directory '{}': {}", path, ec.message());
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == subfile::kIndexName || name == subfile::kMetadataName || name.rfind("data.", 0) == 0)
      fs::remove(entry.path(), ec);
  }
  return ok_status();
}

// The aggregation group of `rank`: one per node (aggregators = auto, times
// aggregators_per_node), or otherwise as many groups of consecutive ranks as the collective
// engine would have aggregators (all: one per rank; "1/4": one per 4 ranks).
int group_of(const EngineEnv& env, int rank) {
  const std::string agg = env.params.get("aggregators");
  const int P = env.comm->size();
  const int per_node = static_cast<int>(env.params.get_int("aggregators_per_node"));
  if (agg != "auto") {
    const int groups = plan::aggregator_count(P, env.topology.nodes, agg, per_node);
    return static_cast<int>(static_cast<int64_t>(rank) * groups / P);
  }
  const int node = env.topology.node(rank);
  int index_in_node = 0;
  for (int r = 0; r < rank; ++r) index_in_node += env.topology.node(r) == node;
  return node * per_node + index_in_node % per_node;
}

}  // namespace

Status SubfileEngine::create() {
  Status local = comm().rank() == 0 ? prepare_directory(env_.path) : ok_status();
  if (local.ok() && comm().rank() == 0) {
    auto index = io::open_posix(file_path(subfile::kIndexName), io::OpenMode::kCreate, &profile().io);
    local = index.status();
    if (local.ok()) {
      index_ = std::move(index).value();
      const auto header = subfile::encode_index_header();
      local = index_->write_at(0, header.data(), header.size());
      index_end_ = header.size();
    }
    if (local.ok()) {
      local = io::open_posix(file_path(subfile::kMetadataName), io::OpenMode::kCreate, nullptr)
                  .status();
    }
  }
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  return setup_writers();
}

Status SubfileEngine::open_append() {
  TAPIO_RETURN_IF_ERROR(open_read());  // the catalog: definitions, steps, generations
  for (const VariableDef& v : io().vars) {
    const int i = catalog_.definitions().find_var(v.name);
    if (i < 0) continue;  // new variables are fine: the definitions record describes them
    const VariableDef& f = catalog_.definitions().vars[i];
    if (f.type != v.type || f.shape != v.shape || f.record != v.record)
      return error(TAPIO_ERR_SHAPE, "variable '{}' is declared differently from the dataset",
                   v.name);
  }
  IoDef merged = catalog_.definitions();
  merged.engine = io().engine;
  merged.params = io().params;
  for (const auto& a : io().attrs) set_attribute(merged.attrs, a);
  for (const VariableDef& v : io().vars) {
    const int i = merged.find_var(v.name);
    if (i < 0) {
      merged.vars.push_back(v);
    } else {
      for (const auto& a : v.attrs) set_attribute(merged.vars[i].attrs, a);
    }
  }
  *env_.io = std::move(merged);
  step_ = catalog_.steps();
  generation_ = catalog_.max_generation() + 1;
  // Reopen for writing; drop whatever a killed writer left past the last committed step.
  Status local = ok_status();
  if (comm().rank() == 0) {
    index_.reset();
    auto index = io::open_posix(file_path(subfile::kIndexName), io::OpenMode::kReadWrite,
                                &profile().io);
    local = index.status();
    if (local.ok()) {
      index_ = std::move(index).value();
      local = index_->truncate(index_end_);
    }
  }
  md_.reset();
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  return setup_writers();
}

Status SubfileEngine::setup_writers() {
  const int group = group_of(env_, comm().rank());
  TAPIO_ASSIGN_OR_RETURN(comm::Comm g, comm::Comm::split(comm(), group, comm().rank()));
  group_ = std::move(g);
  writer_ = static_cast<uint32_t>(group);
  is_writer_ = group_->rank() == 0;
  Status local = ok_status();
  const bool md_writer = is_writer_ || comm().rank() == 0;
  if (is_writer_) {
    auto data = io::open_posix(file_path(subfile::data_name(generation_, writer_)),
                               io::OpenMode::kCreate, &profile().io);
    local = data.status();
    if (local.ok()) data_ = std::move(data).value();
  }
  if (local.ok() && md_writer) {
    auto md = io::open_posix(file_path(subfile::kMetadataName), io::OpenMode::kReadWrite,
                             &profile().io);
    local = md.status();
    if (local.ok()) md_ = std::move(md).value();
    if (local.ok() && comm().rank() == 0) local = md_->truncate(md_end_);
  }
  step_blocks_.writer = writer_;
  return comm::agree(comm(), local);
}

Status SubfileEngine::write_puts(const std::vector<PutOp>& puts, uint64_t) {
  // My message: [descriptor bytes u64][descriptors (a block list)][data of each block].
  subfile::BlockList mine;
  uint64_t data_bytes = 0;
  {
    ScopedTimer t(&profile().metadata_time);
    for (const PutOp& p : puts) {
      subfile::Block b;
      b.var = static_cast<uint32_t>(p.var);
      b.sel = p.sel;
      subfile::describe_data(io().vars[p.var].type, p.data, p.elements, &b);
      data_bytes += b.length;
      mine.blocks.push_back(std::move(b));
    }
  }
  const std::vector<uint8_t> descriptors = subfile::encode_blocks(mine, nullptr);
  std::vector<uint8_t> message(8 + descriptors.size() + data_bytes);
  const uint64_t n = descriptors.size();
  std::memcpy(message.data(), &n, 8);
  std::memcpy(message.data() + 8, descriptors.data(), n);
  uint8_t* out = message.data() + 8 + n;
  for (size_t i = 0; i < puts.size(); ++i) {
    std::memcpy(out, puts[i].data, mine.blocks[i].length);
    out += mine.blocks[i].length;
  }
  std::vector<uint8_t> gathered;
  std::vector<uint64_t> counts;
  {
    ScopedTimer t(&profile().exchange_time);
    TAPIO_RETURN_IF_ERROR(group_->gather_bytes(message, 0, &gathered, &counts));
  }
  if (!is_writer_) {
    profile().messages_sent += 1;
    profile().bytes_sent += message.size();
    return ok_status();
  }
  profile().messages_received += group_->size() - 1;
  profile().bytes_received += gathered.size() - message.size();
  // Lay the group's blocks out in the subfile, each aligned, and write them with one request.
  const uint64_t align = env_.params.get_size("block_align");
  const uint64_t start = align_up(data_end_, align);
  std::vector<std::pair<const uint8_t*, subfile::Block>> placed;
  uint64_t pos = 0, end = start;
  for (uint64_t count : counts) {
    const uint8_t* msg = gathered.data() + pos;
    pos += count;
    uint64_t dn = 0;
    std::memcpy(&dn, msg, 8);
    auto list = subfile::decode_blocks(msg + 8, dn, nullptr);
    if (!list.ok()) return list.status();
    const uint8_t* data = msg + 8 + dn;
    for (subfile::Block& b : list->blocks) {
      b.subfile = writer_;
      // Blocks smaller than the alignment are packed: aligning a 64-byte block to 4 KiB would
      // store 64x its size (metadata-heavy workloads have thousands of them).
      b.offset = b.length >= align ? align_up(end, align) : end;
      end = b.offset + b.length;
      placed.emplace_back(data, std::move(b));
      data += placed.back().second.length;
    }
  }
  std::vector<uint8_t> buffer(end - start, 0);
  for (auto& [data, b] : placed) {
    std::memcpy(buffer.data() + (b.offset - start), data, b.length);
    step_blocks_.blocks.push_back(std::move(b));
  }
  ScopedTimer t(&profile().write_time);
  if (!buffer.empty()) TAPIO_RETURN_IF_ERROR(data_->write_at(start, buffer.data(), buffer.size()));
  data_end_ = end;
  return ok_status();
}

Status SubfileEngine::commit_step(uint64_t step) {
  ScopedTimer t(&profile().metadata_time);
  std::vector<uint8_t> mine;
  uint64_t sum = 0;
  auto add = [&](subfile::RecordKind kind, const std::vector<uint8_t>& payload) {
    const auto record = subfile::encode_record(kind, payload);
    mine.insert(mine.end(), record.begin(), record.end());
    sum += subfile::checksum(payload.data(), payload.size());
  };
  if (comm().rank() == 0 && definitions_sent_ != io().vars.size()) {
    add(subfile::RecordKind::kDefinitions, subfile::encode_definitions(io()));
    definitions_sent_ = io().vars.size();
  }
  if (is_writer_) {
    add(subfile::RecordKind::kBlocks,
        subfile::encode_blocks(step_blocks_, has_previous_ ? &previous_blocks_ : nullptr));
    previous_blocks_ = std::move(step_blocks_);
    step_blocks_ = subfile::BlockList{writer_, {}};
    has_previous_ = true;
  }
  // A local failure (sync, write) must not make this rank skip the collectives below: keep
  // it, take part, and agree on it before the step can become visible.
  Status local = ok_status();
  if (env_.params.get("fsync") == "step" && data_) local = data_->sync();
  subfile::StepRecord record;
  record.step = step;
  record.generation = generation_;
  const Status written = write_metadata(mine, sum, &record);
  if (local.ok()) local = written;
  // Every writer's data and metadata are written: only now may the step become visible.
  TAPIO_RETURN_IF_ERROR(comm::agree(comm(), local));
  return comm().rank() == 0 ? append_index(record) : ok_status();
}

// The metadata backends of seed 004: where each writer's records go, and who writes them.
Status SubfileEngine::write_metadata(const std::vector<uint8_t>& mine, uint64_t mine_sum,
                                     subfile::StepRecord* record) {
  const std::string backend = env_.params.get("metadata");
  const bool sync = env_.params.get("fsync") == "step";
  if (backend == "gather") {  // rank 0 collects every record and writes the region
    std::vector<uint8_t> all;
    TAPIO_RETURN_IF_ERROR(comm().gather_bytes(mine, 0, &all, nullptr));
    if (comm().rank() != 0) return ok_status();
    // The region's checksum from the records themselves: no reduction needed.
    TAPIO_ASSIGN_OR_RETURN(const auto records, subfile::split_records(all.data(), all.size(), 0));
    record->md_checksum = 0;
    for (const auto& r : records) record->md_checksum += subfile::checksum(r.payload, r.length);
    record->md_offset = md_end_;
    record->md_length = all.size();
    md_end_ += all.size();
    TAPIO_RETURN_IF_ERROR(md_->write_at(record->md_offset, all.data(), all.size()));
    return sync ? md_->sync() : ok_status();
  }
  // log / aligned: one prefix sum places each writer's records, one reduction gives the
  // region's size and checksum; every writer writes its records at its own offset.
  const uint64_t chunk = backend == "aligned" ? env_.params.get_size("metadata_chunk") : 1;
  const uint64_t region = align_up(md_end_, chunk);
  const uint64_t size = mine.empty() ? 0 : align_up(mine.size(), chunk);
  uint64_t before = 0, sums[2] = {size, mine_sum};
  TAPIO_RETURN_IF_ERROR(comm().exscan_sum(size, &before));
  TAPIO_RETURN_IF_ERROR(comm().allreduce_sum(sums, 2));
  Status local = ok_status();
  if (!mine.empty()) {
    std::vector<uint8_t> padded = mine;
    padded.resize(size, 0);
    local = md_->write_at(region + before, padded.data(), padded.size());
    if (local.ok() && sync) local = md_->sync();
  }
  record->md_offset = region;
  record->md_length = sums[0];
  record->md_checksum = sums[1];
  record->md_align = chunk > 1 ? static_cast<uint32_t>(chunk) : 0;
  md_end_ = region + sums[0];
  return local;
}

Status SubfileEngine::append_index(const subfile::StepRecord& record) {
  const auto bytes = subfile::encode_step(record);
  TAPIO_RETURN_IF_ERROR(index_->write_at(index_end_, bytes.data(), bytes.size()));
  index_end_ += bytes.size();
  if (env_.params.get("fsync") == "step") return index_->sync();
  return ok_status();
}

}  // namespace tapio
