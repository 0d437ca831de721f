// Subfile writer, opening and closing: the dataset directory and its index (rank 0), the
// aggregation groups, and each group's subfile — created by the group's first rank and, when
// every rank writes its own bytes, then opened by the others.
#include "engine/subfile/subfile_writer.h"
#include "core/out_of_memory.h"
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
  const int per_node = spec.writers.per_node;
  std::vector<int> group(P);
  if (spec.writers.aggregators != "auto") {
    const int groups =
        plan::aggregator_count(P, topology.nodes, spec.writers.aggregators, per_node);
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

Status SubfileWriter::lock_dataset(bool create) {
  // The directory, not its parents: as for a NetCDF file, the parent directory must exist (a
  // mistyped path fails).
  if (create) TAPIO_RETURN_IF_ERROR(p_.storage().make_directory(p_.path()));
  io::LockRequest request;
  request.create = true;  // a dataset written before lock files existed gets one
  request.record_holder = true;
  auto locked = io::lock_writer(p_.storage(), p_.file_path(subfile::kLockName),
                                p_.spec.file_locking, request);
  if (!create && locked.status().code() == TAPIO_ERR_NOT_FOUND)
    return ok_status();  // no dataset to append to: reading its catalog says so
  TAPIO_RETURN_IF_ERROR(locked.status());
  files_.lock = std::move(locked).value();
  return ok_status();
}

Status SubfileWriter::create(const Status& prepared) {
  Status local = prepared;
  if (local.ok() && p_.comm.rank() == 0) {
    local = catch_out_of_memory(fmt::format("creating dataset '{}'", p_.path()),
                                [&] { return create_on_root(); });
  }
  TAPIO_RETURN_IF_ERROR(p_.agree(local));
  return setup_writers();
}

// Rank 0: the locked directory, emptied, with its index (the header, and the open record that
// tells readers a writer is there: one write) and its metadata file.
Status SubfileWriter::create_on_root() {
  TAPIO_RETURN_IF_ERROR(lock_dataset(true));
  TAPIO_RETURN_IF_ERROR(clear_directory(p_.storage(), p_.path()));
  TAPIO_ASSIGN_OR_RETURN(files_.index, p_.storage().open(p_.file_path(subfile::kIndexName),
                                                         io::OpenMode::kCreate, &p_.profile.io));
  std::vector<uint8_t> bytes = subfile::encode_index_header();
  const auto open = subfile::encode_step(open_record());
  bytes.insert(bytes.end(), open.begin(), open.end());
  TAPIO_RETURN_IF_ERROR(files_.index->write_at(0, bytes.data(), bytes.size()));
  files_.index_end = bytes.size();
  return p_.storage()
      .open(p_.file_path(subfile::kMetadataName), io::OpenMode::kCreate, nullptr)
      .status();
}

Status SubfileWriter::open_append(const SubfileReader::Tail& tail) {
  files_.index_end = tail.index_end;
  files_.md_end = tail.md_end;
  files_.version = tail.version;
  files_.generation = tail.max_generation + 1;
  // Reopen for writing; drop whatever a killed writer left past the last committed step.
  Status local = ok_status();
  if (p_.comm.rank() == 0) {
    auto index = p_.storage().open(p_.file_path(subfile::kIndexName), io::OpenMode::kReadWrite,
                                   &p_.profile.io);
    local = index.status();
    if (local.ok()) {
      files_.index = std::move(index).value();
      local = files_.index->truncate(files_.index_end);
      if (local.ok() && records_writer_state()) local = append_index(open_record());
    }
  }
  TAPIO_RETURN_IF_ERROR(p_.agree(local));
  return setup_writers();
}

Status SubfileWriter::setup_writers() {
  const comm::Topology& topology = p_.res.topology;
  const std::vector<int> groups = groups_of_ranks(p_.comm.size(), topology, p_.spec);
  const int mine = groups[p_.comm.rank()];
  group_.subfile = static_cast<uint32_t>(mine);
  bool spans_nodes = false;
  for (int r = 0; r < p_.comm.size(); ++r)
    spans_nodes |= groups[r] == mine && topology.node(r) != topology.node(p_.comm.rank());
  const SubfileSpec::Writers& writers = p_.spec.writers;
  group_.aggregate = !writers.fpp && (writers.write == SubfileSpec::Write::kAggregate ||
                                      (writers.write == SubfileSpec::Write::kAuto && spans_nodes));
  if (!writers.fpp) {
    TAPIO_ASSIGN_OR_RETURN(group_.comm, p_.comm.split(mine, p_.comm.rank()));
  }
  const bool first = !group_.comm || group_.comm->rank() == 0;
  Status local = ok_status();
  if (first) {  // the group's first rank creates its subfile
    auto data = io::open_layered(p_.storage(), data_path(), io::OpenMode::kCreate,
                                 &p_.profile.io, p_.spec.layers, p_.open.striping);
    local = data.status();
    if (local.ok()) group_.data = std::move(data).value();
  }
  const bool md_writer =
      p_.spec.metadata.mode != SubfileSpec::Metadata::kGather || p_.comm.rank() == 0;
  if (local.ok() && md_writer) {
    auto md = p_.storage().open(p_.file_path(subfile::kMetadataName), io::OpenMode::kReadWrite,
                                &p_.profile.io);
    local = md.status();
    if (local.ok()) files_.md = std::move(md).value();
    if (local.ok() && p_.comm.rank() == 0) local = files_.md->truncate(files_.md_end);
  }
  TAPIO_RETURN_IF_ERROR(p_.agree(local));
  return open_subfile();
}

// Direct writes: the group's other ranks open the subfile its first rank created.
Status SubfileWriter::open_subfile() {
  if (p_.spec.writers.fpp || group_.aggregate) return ok_status();
  Status local = ok_status();
  if (group_.comm->rank() != 0) {
    auto data = io::open_layered(p_.storage(), data_path(), io::OpenMode::kReadWrite,
                                 &p_.profile.io, p_.spec.layers);
    local = data.status();
    if (local.ok()) group_.data = std::move(data).value();
  }
  return p_.agree(local);
}

SubfileWriter::~SubfileWriter() {
  (void)writer_.drain();  // queued writes point into the round buffers
  if (!p_.res.buffers) return;
  for (ByteBuffer& b : round_bufs_) p_.res.buffers->give(std::move(b));
}

Status SubfileWriter::close() {
  Status local = settle_pending();  // async: the last step's record
  if (writer_.started()) {
    PhaseTimer t(&p_.profile, Phase::kWrite);
    keep(&local, writer_.drain());
  }
  // Readers following the dataset learn that it ended.
  if (p_.comm.rank() == 0 && local.ok()) local = commit_index(end_record(), files_.md_end);
  for (auto* f : {group_.data.get(), files_.md.get(), files_.index.get()})
    if (f) keep(&local, close_file(f, local.ok() && p_.spec.fsync.close));
  keep_checked_step(local.ok());
  return local;
}

Status SubfileWriter::close_file(io::File* f, bool sync) {
  if (sync) {
    PhaseTimer t(&p_.profile, Phase::kSync);
    TAPIO_RETURN_IF_ERROR(f->sync());
  }
  return f->close();
}

}  // namespace tapio
