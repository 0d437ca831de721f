// Subfile writer, data: a batch of puts is one region of the group's subfile — this rank's
// blocks back to back (plan/group_layout.h). Each block's statistics and checksums are computed
// piece by piece just before the piece is written or sent, while it is in cache.
//   direct:    every rank writes its region itself with gathered writes straight from the
//              user's buffers (no copy);
//   aggregate: every rank sends its bytes of each round to the group's first rank in one
//              message gathered by MPI from the user's buffers (the one copy), which receives
//              them straight into a round buffer and writes round k behind round k + 1.
#include <cstring>

#include "core/out_of_memory.h"
#include "engine/subfile/put_stream.h"
#include "engine/subfile/subfile_writer.h"
#include "format/subfile/block_sums.h"
#include "format/subfile/selections.h"

namespace tapio {

uint32_t SubfileWriter::selection_id(const plan::Selection& sel, subfile::BlockList* list) {
  const uint64_t key = subfile::selection_hash(sel);
  const uint32_t known = static_cast<uint32_t>(table_.selections.size());
  auto [it, end] = selection_ids_.equal_range(key);
  for (; it != end; ++it) {
    const uint32_t id = it->second;
    const plan::Selection& have =
        id < known ? table_.selections[id] : list->new_selections[id - known];
    if (have == sel) {
      ++p_.profile.plans.reused;
      return id;
    }
  }
  ++p_.profile.plans.made;
  const uint32_t id = known + static_cast<uint32_t>(list->new_selections.size());
  list->new_selections.push_back(sel);
  selection_ids_.emplace(key, id);
  return id;
}

uint32_t SubfileWriter::put_selection_id(const PutOp& put, subfile::BlockList* list) {
  auto& [sel, id] = put_selections_[put.var];
  if (sel == put.sel) {
    ++p_.profile.plans.reused;
    return id;
  }
  id = selection_id(*put.sel, list);
  sel = put.sel;
  return id;
}

subfile::BlockList SubfileWriter::describe(const std::vector<PutOp>& puts) {
  PhaseTimer t(&p_.profile, Phase::kPlan);
  subfile::BlockList list;
  list.writer = static_cast<uint32_t>(p_.comm.rank());
  list.subfile = group_.subfile;
  list.stats = p_.spec.stats;
  for (const PutOp& p : puts) {
    const uint64_t bytes = p.elements * type_size(p_.io().vars[p.var].type);
    list.shapes.push_back(
        subfile::BlockShape{static_cast<uint32_t>(p.var), put_selection_id(p, &list), bytes});
  }
  list.sums.resize(puts.size());
  return list;
}

Result<plan::GroupLayout> SubfileWriter::place(uint64_t bytes, bool room, bool* leader_room) {
  *leader_room = room;
  if (!group_.comm) return plan::layout_group(group_.data_end, {bytes}, p_.spec.block_align);
  // A region is far below 2^63 bytes: the top bit of a size carries "no round buffers".
  constexpr uint64_t kNoRoom = uint64_t{1} << 63;
  std::vector<uint64_t> sizes;
  {
    PhaseTimer t(&p_.profile, Phase::kAgree);
    TAPIO_RETURN_IF_ERROR(group_.comm->allgather(room ? bytes : bytes | kNoRoom, &sizes));
  }
  *leader_room = (sizes[0] & kNoRoom) == 0;
  for (uint64_t& size : sizes) size &= ~kNoRoom;
  return plan::layout_group(group_.data_end, sizes, p_.spec.block_align);
}

Status SubfileWriter::write_puts(const std::vector<PutOp>& puts) {
  Status local = ok_status();
  TAPIO_RETURN_IF_ERROR(write_batch(puts, &local));
  return local;
}

Status SubfileWriter::write_batch(const std::vector<PutOp>& puts, Status* local) {
  p_.profile.phases.begin_batch();  // a writer's plan is its table of selections (selection_id)
  static const std::vector<PutOp> kNothing;
  if (local->ok())  // variables defined since the last batch
    *local = resolve_operators().with_context(fmt::format("dataset '{}'", p_.path()));
  // A failed rank writes nothing, and one that cannot list its blocks fails so.
  const std::vector<PutOp>* mine = local->ok() ? &puts : &kNothing;
  subfile::BlockList list;
  StoredPuts stored;
  const auto writing = [&] { return fmt::format("writing a step of dataset '{}'", p_.path()); };
  keep(local, catch_out_of_memory(writing, [&] {
    list = describe(*mine);
    stored = encode_puts(*mine, &list);
    return ok_status();
  }));
  if (!local->ok() && mine != &kNothing) {
    mine = &kNothing;
    list = describe(kNothing);
    stored = StoredPuts{};
  }
  const subfile::PutStream stream(stored.puts, list.shapes);
  const size_t me = group_.comm ? static_cast<size_t>(group_.comm->rank()) : 0;
  // The aggregating rank takes its two round buffers before the group's sizes are gathered,
  // and says there whether it could: then nobody sends it anything, and it fails the step.
  const bool rounds_here = group_.aggregate && me == 0 && !p_.spec.async;
  const bool room = !rounds_here || (round_bufs_[0].try_prepare(p_.spec.writers.round) &&
                                     round_bufs_[1].try_prepare(p_.spec.writers.round));
  bool leader_room = true;
  TAPIO_ASSIGN_OR_RETURN(const plan::GroupLayout layout,
                         place(stream.bytes(), room, &leader_room));
  list.offset = layout.offsets[me];
  Status st;
  if (!group_.aggregate && p_.spec.async)
    st = catch_out_of_memory(writing, [&] {
      return write_direct_behind(stream, layout.offsets[me], &list.sums);
    });
  else if (!group_.aggregate)
    st = catch_out_of_memory(
        writing, [&] { return write_direct(stream, layout.offsets[me], &list.sums); });
  else if (!room)
    st = out_of_memory(fmt::format("aggregating a step of dataset '{}' into rounds", p_.path()),
                       p_.spec.writers.round);
  else if (me == 0)
    st = write_rounds(stream, layout, &list.sums);
  else if (leader_room)
    st = send_rounds(stream, layout, &list.sums);
  group_.data_end = layout.end;
  if (!st.ok() && local->ok()) *local = st;
  if (!local->ok()) return ok_status();
  keep(local, catch_out_of_memory(writing, [&] {
    for (const subfile::BlockShape& s : list.shapes) {
      step_.shapes.push_back(s);
      step_.flags |= p_.io().vars[s.var].record ? 0 : subfile::kStepHasFixed;
    }
    if (!list.new_selections.empty()) step_.flags |= subfile::kStepAddsSelections;
    if (!mine->empty()) {
      PhaseTimer t(&p_.profile, Phase::kMetadata);
      step_.lists.push_back(subfile::encode_block_list(list));
      table_.apply(list);
    }
    return ok_status();
  }));
  return ok_status();
}

Status SubfileWriter::write_direct(const subfile::PutStream& stream, uint64_t offset,
                                   std::vector<subfile::BlockSums>* sums) {
  subfile::BlockSummers summers(stream, p_.io(), p_.spec.stats, sums);
  std::vector<io::ConstBytes> pieces;
  for (uint64_t from = 0; from < stream.bytes(); from += kPiece) {
    const uint64_t to = std::min(stream.bytes(), from + kPiece);
    {
      PhaseTimer t(&p_.profile, Phase::kChecksum);
      summers.add(from, to);
    }
    pieces.clear();
    stream.for_each(from, to, [&](size_t, const uint8_t* data, uint64_t n) {
      pieces.push_back(io::ConstBytes{data, n});
    });
    PhaseTimer t(&p_.profile, Phase::kWrite);
    TAPIO_RETURN_IF_ERROR(
        group_.data->write_gathered_at(offset + from, pieces.data(), pieces.size()));
    if (p_.spec.fsync.close) group_.data->start_writeback(offset + from, to - from);
  }
  return ok_status();
}

}  // namespace tapio
