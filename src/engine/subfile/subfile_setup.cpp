// Subfile engine, opening for writing: the dataset directory and its index (rank 0), the
// aggregation groups, and each group's subfile — created by the group's first rank and, when
// every rank writes its own bytes, then opened by the others.
#include "engine/subfile/subfile_engine.h"
#include "plan/domains.h"

namespace tapio {
namespace {

// Remove a previous dataset's files (only tapio's own; the lock file stays, held).
Status clear_directory(io::Storage& storage, const std::string& path) {
  TAPIO_ASSIGN_OR_RETURN(std::vector<io::StoredFile> files, storage.list(path));
  for (const io::StoredFile& f : files) {
    if (f.name == subfile::kIndexName || f.name == subfile::kMetadataName ||
        f.name.rfind(subfile::kDataPrefix, 0) == 0)
      TAPIO_RETURN_IF_ERROR(storage.remove(path + "/" + f.name));
  }
  return ok_status();
}

// Every rank's aggregation group: one per node (aggregators = auto, times
// aggregators_per_node), or as many groups of consecutive ranks as the collective engine would
// have aggregators (all: one per rank; "1/4": one per 4 ranks). O(P).
std::vector<int> groups_of_ranks(int P, const comm::Topology& topology, const SubfileSpec& spec) {
  const int per_node = spec.aggregators_per_node;
  std::vector<int> group(P);
  if (spec.aggregators != "auto") {
    const int groups = plan::aggregator_count(P, topology.nodes, spec.aggregators, per_node);
    for (int r = 0; r < P; ++r) group[r] = static_cast<int>(static_cast<int64_t>(r) * groups / P);
    return group;
  }
  std::vector<int> seen(topology.nodes, 0);  // ranks of each node met so far
  for (int r = 0; r < P; ++r) {
    const int node = topology.node(r);
    group[r] = node * per_node + seen[node]++ % per_node;
  }
  return group;
}

}  // namespace

Status SubfileEngine::lock_dataset(bool create) {
  // The directory, not its parents: as for a NetCDF file, the parent directory must exist (a
  // mistyped path fails).
  if (create) TAPIO_RETURN_IF_ERROR(storage().make_directory(path()));
  io::LockRequest request;
  request.create = true;  // a dataset written before lock files existed gets one
  request.record_holder = true;
  auto locked =
      io::lock_writer(storage(), file_path(subfile::kLockName), spec_.file_locking, request);
  if (!create && locked.status().code() == TAPIO_ERR_NOT_FOUND)
    return ok_status();  // no dataset to append to: reading its catalog says so
  TAPIO_RETURN_IF_ERROR(locked.status());
  lock_ = std::move(locked).value();
  return ok_status();
}

Status SubfileEngine::create() {
  Status local = ok_status();
  if (comm().rank() == 0) {
    local = lock_dataset(true);
    if (local.ok()) local = clear_directory(storage(), path());
  }
  if (local.ok() && comm().rank() == 0) {
    auto index =
        storage().open(file_path(subfile::kIndexName), io::OpenMode::kCreate, &profile().io);
    local = index.status();
    if (local.ok()) {
      index_ = std::move(index).value();
      // The header, and the open record that tells readers a writer is there: one write.
      std::vector<uint8_t> bytes = subfile::encode_index_header();
      const auto open = subfile::encode_step(open_record());
      bytes.insert(bytes.end(), open.begin(), open.end());
      local = index_->write_at(0, bytes.data(), bytes.size());
      index_end_ = bytes.size();
    }
    if (local.ok()) {
      local = storage().open(file_path(subfile::kMetadataName), io::OpenMode::kCreate, nullptr)
                  .status();
    }
  }
  TAPIO_RETURN_IF_ERROR(agree(local));
  return setup_writers();
}

// The program's variables that the dataset has must be declared as the dataset has them; new
// variables are fine (the definitions record describes them).
Status SubfileEngine::check_redeclared() const {
  for (const VariableDef& v : io().vars) {
    const int i = catalog_.definitions().find_var(v.name);
    if (i < 0) continue;
    const VariableDef& f = catalog_.definitions().vars[i];
    if (f.type != v.type || f.shape != v.shape || f.record != v.record || f.joined != v.joined)
      return error(TAPIO_ERR_SHAPE, "variable '{}' is declared differently from the dataset",
                   v.name);
  }
  return ok_status();
}

Status SubfileEngine::open_append() {
  // Before the catalog is read: no other writer may add to it or recreate the dataset.
  TAPIO_RETURN_IF_ERROR(agree(comm().rank() == 0 ? lock_dataset(false) : ok_status()));
  TAPIO_RETURN_IF_ERROR(open_read());  // the catalog: definitions, steps, generations
  TAPIO_RETURN_IF_ERROR(check_redeclared());
  TAPIO_RETURN_IF_ERROR(check_declared_dims_kept(io(), catalog_.definitions()));
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
  *mutable_io() = std::move(merged);
  start_at_step(catalog_.steps());
  generation_ = catalog_.max_generation() + 1;
  // Reopen for writing; drop whatever a killed writer left past the last committed step.
  Status local = ok_status();
  if (comm().rank() == 0) {
    index_.reset();
    auto index = storage().open(file_path(subfile::kIndexName), io::OpenMode::kReadWrite,
                                &profile().io);
    local = index.status();
    if (local.ok()) {
      index_ = std::move(index).value();
      local = index_->truncate(index_end_);
      if (local.ok() && records_writer_state()) local = append_index(open_record());
    }
  }
  md_.reset();
  TAPIO_RETURN_IF_ERROR(agree(local));
  return setup_writers();
}

Status SubfileEngine::setup_writers() {
  const comm::Topology& topology = resources().topology;
  const std::vector<int> groups = groups_of_ranks(comm().size(), topology, spec_);
  const int mine = groups[comm().rank()];
  subfile_ = static_cast<uint32_t>(mine);
  bool spans_nodes = false;
  for (int r = 0; r < comm().size(); ++r)
    spans_nodes |= groups[r] == mine && topology.node(r) != topology.node(comm().rank());
  aggregate_ = !spec_.fpp && (spec_.write == SubfileSpec::Write::kAggregate ||
                              (spec_.write == SubfileSpec::Write::kAuto && spans_nodes));
  if (!spec_.fpp) {
    TAPIO_ASSIGN_OR_RETURN(group_, comm().split(mine, comm().rank()));
  }
  const bool first = !group_ || group_->rank() == 0;
  Status local = ok_status();
  if (first) {  // the group's first rank creates its subfile
    auto data = io::open_layered(storage(), file_path(subfile::data_name(generation_, subfile_)),
                                 io::OpenMode::kCreate, &profile().io, spec_.layers,
                                 open_spec().striping);
    local = data.status();
    if (local.ok()) data_ = std::move(data).value();
  }
  const bool md_writer = spec_.metadata != SubfileSpec::Metadata::kGather || comm().rank() == 0;
  if (local.ok() && md_writer) {
    auto md = storage().open(file_path(subfile::kMetadataName), io::OpenMode::kReadWrite,
                             &profile().io);
    local = md.status();
    if (local.ok()) md_ = std::move(md).value();
    if (local.ok() && comm().rank() == 0) local = md_->truncate(md_end_);
  }
  TAPIO_RETURN_IF_ERROR(agree(local));
  return open_subfile();
}

// Direct writes: the group's other ranks open the subfile its first rank created.
Status SubfileEngine::open_subfile() {
  if (spec_.fpp || aggregate_) return ok_status();
  Status local = ok_status();
  if (group_->rank() != 0) {
    auto data = io::open_layered(storage(), file_path(subfile::data_name(generation_, subfile_)),
                                 io::OpenMode::kReadWrite, &profile().io, spec_.layers);
    local = data.status();
    if (local.ok()) data_ = std::move(data).value();
  }
  return agree(local);
}

}  // namespace tapio
