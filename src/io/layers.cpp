#include "io/layers.h"

#include <sstream>

#include "core/warnings.h"
#include "io/aligned_file.h"
#include "io/buffered_file.h"
#include "io/read_cache.h"

namespace tapio::io {
namespace {

constexpr uint64_t kDirectBlock = 4096;  // what O_DIRECT needs of offsets and lengths

// The O_DIRECT twin of a file the aligned layer writes whole units through, or null (and a
// warning) where it cannot be had.
std::unique_ptr<File> direct_twin(Storage& storage, const File& file, const LayerSpec& spec,
                                  Counters* counters) {
  if (spec.align % kDirectBlock != 0) {
    warn(fmt::format("'{}': layer_direct needs layer_align to be a multiple of {} (it is {}); "
                     "writing through the page cache",
                     file.path(), kDirectBlock, spec.align));
    return nullptr;
  }
  auto direct = storage.open_direct(file.path(), counters);
  if (direct.ok()) return std::move(direct).value();
  warn(fmt::format("{}; writing through the page cache instead", direct.status().message()));
  return nullptr;
}

}  // namespace

Result<LayerSpec> LayerSpec::parse(const Params& params, uint64_t stripe_size) {
  LayerSpec spec;
  std::stringstream words(params.get("layers"));
  for (std::string word; std::getline(words, word, ',');) {
    word.erase(0, word.find_first_not_of(" \t"));
    word.erase(word.find_last_not_of(" \t") + 1);
    if (word == "cache") {
      spec.cache = true;
    } else if (word == "buffered") {
      spec.buffered = true;
    } else if (word == "aligned") {
      spec.aligned = true;
    } else if (!word.empty()) {
      return error(TAPIO_ERR_CONFIG,
                   "parameter 'layers': unknown layer '{}' (known: cache, buffered, aligned)",
                   word);
    }
  }
  spec.cache_page = params.get_size("read_cache_page");
  spec.cache_pages = std::max<uint64_t>(params.get_size("read_cache_size") / spec.cache_page, 1);
  spec.buffer_size = params.get_size("layer_buffer_size");
  spec.buffers = static_cast<uint32_t>(params.get_int("layer_buffers"));
  spec.align = params.get_size("layer_align") > 0 ? params.get_size("layer_align") : stripe_size;
  if (spec.align == 0) spec.align = uint64_t{1} << 20;  // stripe_size = auto, not yet chosen
  spec.direct = params.get_bool("layer_direct");
  return spec;
}

std::unique_ptr<File> stack_layers(Storage& storage, std::unique_ptr<File> file,
                                   const LayerSpec& spec, OpenMode mode, Counters* counters) {
  if (spec.aligned) {
    std::unique_ptr<File> direct;
    if (spec.direct && mode != OpenMode::kReadOnly)
      direct = direct_twin(storage, *file, spec, counters);
    file = std::make_unique<AlignedFile>(std::move(file), spec.align, std::move(direct));
  }
  if (spec.buffered)
    file = std::make_unique<BufferedFile>(std::move(file), spec.buffer_size, spec.buffers);
  if (spec.cache) file = std::make_unique<ReadCache>(std::move(file), spec.cache_page, spec.cache_pages);
  return file;
}

Result<std::unique_ptr<File>> open_layered(Storage& storage, const std::string& path,
                                           OpenMode mode, Counters* counters,
                                           const LayerSpec& spec,
                                           const std::optional<LustreLayout>& striping) {
  TAPIO_ASSIGN_OR_RETURN(std::unique_ptr<File> file, storage.open(path, mode, counters, striping));
  return stack_layers(storage, std::move(file), spec, mode, counters);
}

}  // namespace tapio::io
