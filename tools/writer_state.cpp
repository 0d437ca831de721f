#include "writer_state.h"

#include <fmt/format.h>

#include <ctime>
#include <memory>

#include "io/storage.h"

namespace tapio::cli {

Result<std::vector<uint8_t>> read_whole(const std::string& path) {
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<io::File> file,
                         io::posix_storage().open(path, io::OpenMode::kReadOnly, nullptr));
  TAPIO_ASSIGN_OR_RETURN(const uint64_t size, file->size());
  std::vector<uint8_t> bytes(size);
  TAPIO_RETURN_IF_ERROR(file->read_exact(0, bytes.data(), bytes.size()));
  return bytes;
}

Result<WriterState> read_writer_state(const std::string& dir) {
  const std::string path = dir + "/" + subfile::kIndexName;
  TAPIO_ASSIGN_OR_RETURN(const std::vector<uint8_t> bytes, read_whole(path));
  const uint64_t size = bytes.size();
  WriterState state;
  TAPIO_RETURN_IF_ERROR(subfile::check_index_header(bytes.data(), bytes.size(), &state.version)
                            .with_context(fmt::format("file '{}'", path)));
  const uint64_t records = (size - subfile::kIndexHeaderSize) / subfile::kStepRecordSize;
  for (uint64_t i = 0; i < records; ++i) {
    const uint8_t* at = bytes.data() + subfile::kIndexHeaderSize + i * subfile::kStepRecordSize;
    Result<subfile::StepRecord> r = subfile::decode_step(at, subfile::kStepRecordSize);
    if (!r.ok() && i + 1 == records) break;  // torn by a crash: not committed
    if (!r.ok())
      return r.status().with_context(fmt::format("file '{}', index record {}", path, i));
    state.closed = r->kind == subfile::StepKind::kEnd;
    state.last_time = r->time;
    if (r->kind == subfile::StepKind::kStep) state.steps.push_back(*r);
  }
  return state;
}

std::string utc_text(uint32_t seconds) {
  const std::time_t t = seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

}  // namespace tapio::cli
