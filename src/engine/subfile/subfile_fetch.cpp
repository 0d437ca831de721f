// Subfile reader, merged reads: each subfile is served by one rank. Readers send the server
// their chunk requests in one message; the server reads the union of everybody's requests —
// what several readers need is read from storage once, and neighbouring requests become one
// read — verifies the checksums and answers each reader with one message.
#include <algorithm>
#include <cstring>
#include <deque>

#include "engine/subfile/subfile_reader.h"
#include "plan/domains.h"

namespace tapio {
namespace {

constexpr int kRequestTag = 7001, kReplyTag = 7002;
constexpr uint64_t kMergeGap = 64 * 1024;  // read through holes this small (data sieving)

struct Wire {  // a ChunkRequest on the wire
  uint64_t step, entry, from, to;
};

}  // namespace

int SubfileReader::server_of(uint32_t generation, uint32_t subfile) const {
  return static_cast<int>((static_cast<uint64_t>(generation) * 7919 + subfile) % p_.comm.size());
}

Status SubfileReader::fetch_chunks(const std::vector<ChunkRequest>& requests,
                                   std::vector<std::vector<uint8_t>>* replies) {
  const int P = p_.comm.size();
  // Group my requests by server; one message each.
  std::vector<std::vector<size_t>> by_server(P);
  for (size_t i = 0; i < requests.size(); ++i) {
    const subfile::Entry& e = catalog_.entry(requests[i].step, requests[i].entry);
    by_server[server_of(e.generation, e.subfile)].push_back(i);
  }
  std::vector<uint32_t> flags(P, 0);
  for (int s = 0; s < P; ++s) flags[s] = by_server[s].empty() ? 0 : 1;
  std::vector<uint32_t> expected;
  // A server's receives depend on its count: agreed on before any message moves.
  TAPIO_RETURN_IF_ERROR(
      comm::agree(p_.comm, p_.comm.reduce_scatter_sum(flags, std::vector<int>(P, 1), &expected)));

  std::deque<std::vector<Wire>> outgoing;  // stable while the sends are in flight
  comm::Requests sends;
  Status local = ok_status();
  for (int s = 0; s < P; ++s) {
    if (by_server[s].empty()) continue;
    outgoing.emplace_back();
    for (size_t i : by_server[s])
      outgoing.back().push_back(
          Wire{requests[i].step, requests[i].entry, requests[i].from, requests[i].to});
    keep(&local, p_.comm.isend(comm::Pieces::bytes(outgoing.back().data(),
                                                  outgoing.back().size() * sizeof(Wire)),
                              s, kRequestTag, &sends));
    p_.profile.messages.send(outgoing.back().size() * sizeof(Wire));
  }
  std::vector<std::vector<uint8_t>> served;
  keep(&local, serve_chunks(expected[0], &served, &sends));
  replies->assign(requests.size(), {});
  ByteBuffer msg;
  for (int s = 0; s < P; ++s) {
    if (by_server[s].empty()) continue;
    int from = s;
    const Status got = p_.comm.probe_recv(s, kReplyTag, &msg, &from);
    keep(&local, got);
    p_.profile.messages.receive(msg.size());
    uint64_t pos = 0;
    for (size_t i : by_server[s]) {
      const uint64_t len = requests[i].to - requests[i].from;
      (*replies)[i].assign(len, 0);
      if (got.ok() && pos + len <= msg.size())
        std::memcpy((*replies)[i].data(), msg.data() + pos, len);
      else if (got.ok() && msg.size() > 0)  // (empty: the server failed to send, and reports)
        keep(&local, error(TAPIO_ERR_INTERNAL, "a reply of rank {} is short", s));
      pos += len;
    }
  }
  keep(&local, p_.comm.waitall(&sends));
  return local;
}

struct SubfileReader::Asker {
  int rank;
  std::vector<Wire> wants;
};

Status SubfileReader::serve_chunks(uint32_t expected, std::vector<std::vector<uint8_t>>* out,
                                   comm::Requests* sends) {
  std::vector<Asker> askers;
  Status local = receive_asks(expected, &askers);
  // After an error the replies are zeros and the error is reported when the exchange ends.
  if (local.ok()) local = check_asks(askers);
  Spans spans;
  if (local.ok()) local = read_asked(askers, &spans);
  // Answer each asker: its requests' bytes in order, every chunk verified.
  for (const Asker& a : askers) {
    out->emplace_back();
    std::vector<uint8_t>& reply = out->back();
    answer(a, spans, &reply, &local);
    keep(&local, p_.comm.isend(comm::Pieces::bytes(reply.data(), reply.size()), a.rank, kReplyTag,
                              sends));
    p_.profile.messages.send(reply.size());
  }
  if (!local.ok() && deferred_read_error_.ok()) deferred_read_error_ = local;
  return ok_status();
}

Status SubfileReader::receive_asks(uint32_t expected, std::vector<Asker>* askers) {
  Status local = ok_status();
  ByteBuffer msg;
  for (uint32_t k = 0; k < expected; ++k) {
    int source = -1;
    const Status got = p_.comm.probe_recv(comm::kAnySource, kRequestTag, &msg, &source);
    keep(&local, got);
    if (!got.ok()) continue;
    p_.profile.messages.receive(msg.size());
    Asker a{source, std::vector<Wire>(msg.size() / sizeof(Wire))};
    if (!a.wants.empty()) std::memcpy(a.wants.data(), msg.data(), a.wants.size() * sizeof(Wire));
    askers->push_back(std::move(a));
  }
  return local;
}

// The askers' steps, loaded here if this rank has not read them itself, and their blocks.
Status SubfileReader::check_asks(const std::vector<Asker>& askers) {
  for (const Asker& a : askers)
    for (const Wire& w : a.wants) {
      if (w.step >= catalog_.steps())
        return error(TAPIO_ERR_INTERNAL, "rank {} asks for step {} of {}", a.rank, w.step,
                     catalog_.steps());
      TAPIO_RETURN_IF_ERROR(ensure_loaded(w.step));
      if (w.entry >= catalog_.entries(w.step))
        return error(TAPIO_ERR_INTERNAL, "rank {} asks for block {} of step {}", a.rank, w.entry,
                     w.step);
    }
  return ok_status();
}

// Every file byte range wanted, per subfile, merged, read once; kept by file for lookup.
Status SubfileReader::read_asked(const std::vector<Asker>& askers, Spans* spans) {
  std::map<std::pair<uint32_t, uint32_t>, std::vector<plan::Extent>> ranges;
  for (const Asker& a : askers)
    for (const Wire& w : a.wants) {
      const subfile::Entry& e = catalog_.entry(w.step, static_cast<uint32_t>(w.entry));
      ranges[{e.generation, e.subfile}].push_back(plan::Extent{e.offset + w.from, w.to - w.from});
    }
  for (auto& [file_key, list] : ranges) {
    for (auto& x : list) x.length += kMergeGap;  // merge across small holes...
    std::vector<plan::Extent> merged = plan::coalesce(std::move(list));
    TAPIO_ASSIGN_OR_RETURN(io::File * file, data_file(file_key.first, file_key.second));
    for (plan::Extent& m : merged) {
      m.length -= kMergeGap;  // ...but read only to the last wanted byte
      std::vector<uint8_t> bytes(m.length);
      {
        PhaseTimer t(&p_.profile, Phase::kRead);
        TAPIO_RETURN_IF_ERROR(file->read_exact(m.offset, bytes.data(), m.length));
      }
      (*spans)[file_key].emplace_back(m.offset, std::move(bytes));
    }
  }
  return ok_status();
}

// An asker's reply: its requests' bytes in order (zeros after an error), each verified.
void SubfileReader::answer(const Asker& a, const Spans& spans, std::vector<uint8_t>* reply,
                           Status* local) {
  using Span = std::pair<uint64_t, std::vector<uint8_t>>;
  for (const Wire& w : a.wants) {
    const size_t start = reply->size();
    reply->resize(start + (w.to - w.from), 0);
    if (!local->ok()) continue;
    const subfile::Entry& e = catalog_.entry(w.step, static_cast<uint32_t>(w.entry));
    const auto found = spans.find({e.generation, e.subfile});
    if (found == spans.end()) continue;
    const std::vector<Span>& list = found->second;
    const uint64_t at = e.offset + w.from;
    auto it = std::upper_bound(list.begin(), list.end(), at,
                               [](uint64_t x, const Span& s) { return x < s.first; });
    if (it == list.begin()) continue;
    --it;
    const uint8_t* src = it->second.data() + (at - it->first);
    {
      PhaseTimer t(&p_.profile, Phase::kCopy);
      std::memcpy(reply->data() + start, src, w.to - w.from);
    }
    PhaseTimer t(&p_.profile, Phase::kChecksum);
    *local = verify(ChunkRequest{w.step, static_cast<uint32_t>(w.entry), w.from, w.to}, src);
  }
}

}  // namespace tapio
