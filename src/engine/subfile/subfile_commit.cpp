// Subfile writer, the commit of a step. Each rank's metadata is its block lists (and, on rank
// 0, the definitions when they changed); the `metadata` backend stores them (seed 004), and
// rank 0 appends the step's index record last, which makes the step visible. In the steady
// state a step costs, besides its data:
//   gather:      one reduction (the vote), one gather of the records to rank 0, which writes
//                them and the index record, and one reduction that agrees on the outcome (rank
//                0's writes, any rank's failed gather: the index record is rolled back if the
//                step failed after rank 0 committed it). When some rank's records changed
//                length, the records' gather is preceded by one of their sizes and a broadcast
//                of rank 0's room for them;
//   log/aligned: one prefix sum that places each rank's records, which it writes itself, the
//                vote, and the outcome's reduction.
// The vote sums {record bytes, record checksums, failed ranks, ranks whose blocks changed
// shape}: a failure anywhere fails the step everywhere (its message then comes from the lowest
// failing rank), and a change of shape anywhere checks the step's blocks for overlaps before
// anything is committed.
#include <climits>
#include <stdexcept>

#include "core/out_of_memory.h"
#include "engine/overlap_check.h"
#include "engine/subfile/subfile_writer.h"

namespace tapio {
namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return a <= 1 ? x : (x + a - 1) / a * a; }

// The vote's sums: flags are summed one by one, each a count of the ranks that set it.
enum VoteSlot {
  kBytes, kChecksum, kFailed, kChanged, kResized, kDefinitions, kSelections, kFixed, kSlots
};
constexpr uint64_t kFlagOf[3] = {subfile::kStepHasDefinitions, subfile::kStepAddsSelections,
                                 subfile::kStepHasFixed};

}  // namespace

// What an allocation that fails in a step's commit was doing.
std::string SubfileWriter::committing(uint64_t step) const {
  return fmt::format("committing step {} of dataset '{}'", step, p_.path());
}

Status SubfileWriter::write_step(const std::vector<PutOp>& puts, uint64_t step,
                                 const Status& given) {
  Status local = given;
  if (p_.spec.async) TAPIO_RETURN_IF_ERROR(settle_pending());
  const size_t known_selections = table_.selections.size();
  const size_t definitions_before = definitions_sent_;
  TAPIO_RETURN_IF_ERROR(write_batch(puts, &local));
  // A buffering layer's bytes reach storage before the index can commit the step.
  if (local.ok() && p_.spec.async) flush_behind();
  if (local.ok() && group_.data && !p_.spec.async) local = group_.data->flush();
  if (local.ok() && p_.spec.fsync.step && group_.data && !p_.spec.async) {
    PhaseTimer t(&p_.profile, Phase::kSync);
    local = group_.data->sync();
  }
  // This rank's part of the commit, listed before its vote: an allocation failing here fails
  // the step there, on every rank.
  std::vector<subfile::BlockShape> checked;
  std::vector<uint64_t> vars;  // the variables' shapes (vars_key)
  uint64_t sum = 0;
  std::vector<uint8_t> records;
  if (local.ok())
    local = catch_out_of_memory([&] { return committing(step); }, [&] {
      checked = checked_shapes(step_.shapes);
      vars = vars_key();
      records = step_records(&sum);
      return ok_status();
    });
  // A dataset's first step may repeat the last step of the context's last dataset of its
  // variables' shapes.
  if (local.ok()) take_checked_step(vars);
  const bool changed = local.ok() && checked != last_step_shapes_ &&
                       !(last_step_shapes_.empty() && same_as_carried(checked));
  carried_.reset();
  const Status st = p_.spec.metadata.mode == SubfileSpec::Metadata::kGather
                        ? commit_gather(step, std::move(records), local, changed)
                        : commit_log(step, records, sum, local, changed);
  if (st.ok()) {
    last_step_shapes_ = std::move(checked);
    last_step_vars_ = std::move(vars);
  } else {  // nothing of this step was committed
    forget_step(known_selections, definitions_before);
  }
  if (st.ok() && async_.pending) {
    async_.pending->selections = known_selections;
    async_.pending->definitions = definitions_before;
  }
  step_ = SubfileStep();
  return st;
}

std::vector<subfile::BlockShape> SubfileWriter::checked_shapes(
    const std::vector<subfile::BlockShape>& all) const {
  std::vector<subfile::BlockShape> out;
  for (const subfile::BlockShape& s : all)
    if (!p_.io().vars[s.var].joined) out.push_back(s);
  return out;
}

void SubfileWriter::forget_step(size_t selections, size_t definitions) {
  table_.selections.resize(selections);
  for (auto it = selection_ids_.begin(); it != selection_ids_.end();)
    it = it->second >= selections ? selection_ids_.erase(it) : std::next(it);
  for (auto it = put_selections_.begin(); it != put_selections_.end();)
    it = it->second.second >= selections ? put_selections_.erase(it) : std::next(it);
  definitions_sent_ = definitions;
}

// This rank's records of the step, back to back, and the sum of their payload checksums.
std::vector<uint8_t> SubfileWriter::step_records(uint64_t* checksum_sum) {
  PhaseTimer t(&p_.profile, Phase::kMetadata);
  std::vector<uint8_t> out;
  auto add = [&](subfile::RecordKind kind, const std::vector<uint8_t>& payload) {
    const auto record = subfile::encode_record(kind, payload);
    out.insert(out.end(), record.begin(), record.end());
    *checksum_sum += subfile::checksum(payload.data(), payload.size());
  };
  if (p_.comm.rank() == 0 && definitions_sent_ != p_.io().vars.size()) {
    add(subfile::RecordKind::kDefinitions,
        subfile::encode_definitions(stored_definitions(), files_.version));
    definitions_sent_ = p_.io().vars.size();
    step_.flags |= subfile::kStepHasDefinitions;
  }
  for (const auto& list : step_.lists) add(subfile::RecordKind::kBlocks, list);
  return out;
}

// The vote, then what it asks for: the lowest failing rank's error, or the overlap check.
Status SubfileWriter::vote(const Vote& mine, const Status& local, bool changed, Vote* total) {
  uint64_t votes[kSlots] = {mine.bytes, mine.checksum, local.ok() ? 0u : 1u, changed ? 1u : 0u,
                            mine.resized};
  for (int f = 0; f < 3; ++f) votes[kDefinitions + f] = (mine.flags & kFlagOf[f]) ? 1 : 0;
  {
    PhaseTimer t(&p_.profile, Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(p_.comm.allreduce_sum(votes, kSlots));
  }
  if (votes[kFailed] > 0) return p_.agree(local);
  if (votes[kChanged] > 0) {
    const uint64_t step = p_.step();
    // A rank that cannot list its shapes still enters the check, with none.
    std::vector<PutShape> mine;
    Status listed = catch_out_of_memory([&] { return committing(step); }, [&] {
      for (const subfile::BlockShape& s : checked_shapes(step_.shapes))
        mine.push_back(PutShape{static_cast<int>(s.var), &table_.selections[s.selection]});
      return ok_status();
    });
    if (!listed.ok()) mine.clear();
    keep(&listed, check_overlaps(p_.comm, p_.res.topology, p_.io(), mine,
                                 [&](int var) { return p_.at_step(var, step); }, &p_.profile));
    TAPIO_RETURN_IF_ERROR(p_.agree(listed));
  }
  total->bytes = votes[kBytes];
  total->checksum = votes[kChecksum];
  total->resized = votes[kResized];
  total->flags = 0;
  for (int f = 0; f < 3; ++f) total->flags |= votes[kDefinitions + f] > 0 ? kFlagOf[f] : 0;
  return ok_status();
}

// Rank 0, before the vote: room for the last gather's records again (false if none was made,
// or there is no room: then the vote tells every rank to gather the sizes first).
bool SubfileWriter::room_for_last_gather(std::vector<uint8_t>* all) const {
  if (p_.comm.rank() != 0) return true;
  if (gathered_.counts.empty()) return false;
  uint64_t total = 0;
  for (uint64_t n : gathered_.counts) total += n;
  try {
    all->resize(total);
  } catch (const std::bad_alloc&) {
    return false;
  } catch (const std::length_error&) {
    return false;
  }
  return true;
}

Status SubfileWriter::commit_gather(uint64_t step, std::vector<uint8_t> records,
                                    const Status& local, bool changed) {
  std::vector<uint8_t> all;
  const uint64_t mine = records.size();
  const bool resized = mine != gathered_.mine || !room_for_last_gather(&all);
  Vote total;
  gathered_.mine = UINT64_MAX;  // until this step is committed
  TAPIO_RETURN_IF_ERROR(
      vote(Vote{mine, 0, step_.flags, resized ? 1u : 0u}, local, changed, &total));
  if (total.bytes > static_cast<uint64_t>(INT_MAX))
    return error(TAPIO_ERR_UNSUPPORTED,
                 "step {}: its metadata ({} bytes) exceeds the 2 GiB the gather backend moves in "
                 "one step; use metadata = log",
                 step, total.bytes);
  std::vector<uint64_t> counts;
  const Ends before{files_.index_end, files_.md_end};
  Status outcome = ok_status();
  {
    // A gather that failed here is this rank's error; the agreement below reports it.
    PhaseTimer t(&p_.profile, Phase::kMetadata);
    if (total.resized == 0) {  // every rank's records the last gather's lengths, and room
      counts = gathered_.counts;
      outcome = p_.comm.gather_known_bytes(records, 0, counts, &all);
    } else {
      outcome = p_.comm.gather_fitting_bytes(records, 0, &all, &counts);
    }
  }
  if (p_.comm.rank() == 0) gathered_.counts = counts;
  subfile::StepRecord record = new_record(step);
  // Rank 0 between the gather and the agreement: an allocation failing there is its error.
  if (p_.comm.rank() == 0 && outcome.ok())
    outcome = catch_out_of_memory([&] { return committing(step); },
                                  [&] { return commit_on_root(std::move(all), total, &record); });
  // Rank 0's writes or any rank's failed gather: one reduction, as cheap as broadcasting rank
  // 0's status, and no rank leaves alone.
  const Status agreed = p_.agree(outcome);
  if (agreed.ok()) gathered_.mine = mine;  // on every rank alike: the lengths rank 0 kept
  if (agreed.ok() && p_.spec.async) async_.pending = Pending{record};
  if (agreed.ok() || p_.comm.rank() != 0 || !outcome.ok()) return agreed;
  if (!p_.spec.async) return roll_back(agreed, before);
  files_.md_end = before.md;  // async: no index record of the step was written yet
  return agreed;
}

// Rank 0: the step's metadata region (the gathered records and the commit record, in one
// write) and its index record, or with async the region queued.
Status SubfileWriter::commit_on_root(std::vector<uint8_t> all, const Vote& total,
                                     subfile::StepRecord* record) {
  PhaseTimer t(&p_.profile, Phase::kMetadata);
  record->md_offset = files_.md_end;
  record->md_length = all.size();
  record->flags = static_cast<uint32_t>(total.flags);
  // The region's checksum from the records themselves: no reduction needed.
  auto split = subfile::split_records(all.data(), all.size(), 0);
  Status outcome = split.status();
  if (outcome.ok())
    for (const auto& r : *split) record->md_checksum += subfile::checksum(r.payload, r.length);
  const auto commit = commit_record(*record);  // written with the region, in one write
  all.insert(all.end(), commit.begin(), commit.end());
  if (outcome.ok() && p_.spec.async) {  // the index record waits for the next agreement
    files_.md_end += all.size();
    const auto bytes = std::make_shared<const std::vector<uint8_t>>(std::move(all));
    write_behind(files_.md.get(), record->md_offset, bytes, bytes->data(), bytes->size(),
                 "its metadata");
  } else {
    if (outcome.ok()) outcome = files_.md->write_at(record->md_offset, all.data(), all.size());
    if (outcome.ok() && p_.spec.fsync.step) outcome = files_.md->sync();
    if (outcome.ok()) outcome = append_index(*record);
    if (outcome.ok()) files_.md_end += all.size();
  }
  return outcome;
}

// The step failed on another rank after rank 0 had committed it: the index forgets the record
// (the step is retried or abandoned, never read as the failed attempt).
Status SubfileWriter::roll_back(Status failed, const Ends& before) {
  files_.index_end = before.index;
  files_.md_end = before.md;
  const Status undone = files_.index->truncate(files_.index_end);
  if (undone.ok()) return failed;
  return Status(failed.code(), fmt::format("{} (and the step committed on rank 0 could not be "
                                           "rolled back: {})",
                                           failed.message(), undone.message()))
      .as_agreed();
}

Status SubfileWriter::commit_log(uint64_t step, const std::vector<uint8_t>& records, uint64_t sum,
                                 Status local, bool changed) {
  const uint64_t chunk = p_.spec.metadata.chunk;
  const uint64_t region = align_up(files_.md_end, chunk);
  const uint64_t size = records.empty() ? 0 : align_up(records.size(), chunk);
  uint64_t before = 0;
  {
    // A failed scan is this rank's error, which the vote below spreads.
    PhaseTimer t(&p_.profile, Phase::kAgree);
    keep(&local, p_.comm.exscan_sum(size, &before));
  }
  if (local.ok() && size > 0) {
    PhaseTimer t(&p_.profile, Phase::kMetadata);
    std::vector<uint8_t> padded = records;
    padded.resize(size, 0);
    local = files_.md->write_at(region + before, padded.data(), padded.size());
    if (local.ok() && p_.spec.fsync.step) local = files_.md->sync();
  }
  Vote total;
  TAPIO_RETURN_IF_ERROR(vote(Vote{size, sum, step_.flags}, local, changed, &total));
  Status at_root = ok_status();
  if (p_.comm.rank() == 0) {
    subfile::StepRecord record = new_record(step);
    record.md_offset = region;
    record.md_length = total.bytes;
    record.md_checksum = total.checksum;
    record.md_align = chunk > 1 ? static_cast<uint32_t>(chunk) : 0;
    record.flags = static_cast<uint32_t>(total.flags);
    at_root = commit_index(record, region + total.bytes);
  }
  // Every rank (they place the next region alike): it follows this one's commit record.
  files_.md_end = region + total.bytes + commit_record(subfile::StepRecord()).size();
  return p_.agree(at_root);
}

Status SubfileWriter::commit_index(const subfile::StepRecord& record, uint64_t at) {
  const auto commit = commit_record(record);
  if (!commit.empty()) {
    PhaseTimer t(&p_.profile, Phase::kMetadata);
    TAPIO_RETURN_IF_ERROR(files_.md->write_at(at, commit.data(), commit.size()));
    if (p_.spec.fsync.step) TAPIO_RETURN_IF_ERROR(files_.md->sync());
  }
  return append_index(record);
}

Status SubfileWriter::append_index(const subfile::StepRecord& record) {
  PhaseTimer t(&p_.profile, Phase::kMetadata);
  const auto bytes = subfile::encode_step(record);
  TAPIO_RETURN_IF_ERROR(files_.index->write_at(files_.index_end, bytes.data(), bytes.size()));
  files_.index_end += bytes.size();
  if (p_.spec.fsync.step) return files_.index->sync();
  return ok_status();
}

subfile::StepRecord SubfileWriter::end_record() const {
  subfile::StepRecord end = new_record(p_.step());
  end.kind = subfile::StepKind::kEnd;
  return end;
}

subfile::StepRecord SubfileWriter::open_record() const {
  subfile::StepRecord open = new_record(p_.step());
  open.kind = subfile::StepKind::kOpen;
  return open;
}

subfile::StepRecord SubfileWriter::new_record(uint64_t step) const {
  subfile::StepRecord record;
  record.step = step;
  record.generation = files_.generation;
  if (records_writer_state()) record.time = subfile::record_time();
  return record;
}

// Zero-padded to the next metadata_chunk boundary (metadata = aligned), where the next region
// starts: no stale bytes of a failed attempt stay between the two for `tapio repair` to meet.
std::vector<uint8_t> SubfileWriter::commit_record(const subfile::StepRecord& record) const {
  if (!records_writer_state()) return {};
  auto bytes = subfile::encode_record(subfile::RecordKind::kCommit, subfile::encode_step(record));
  const uint64_t chunk = p_.spec.metadata.chunk;
  bytes.resize((bytes.size() + chunk - 1) / chunk * chunk, 0);
  return bytes;
}

}  // namespace tapio
