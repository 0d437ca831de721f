// The buffering layers as a stack behind io::File, chosen per file by its parameters (Cray
// FFIO's `assign -F bufa:256:2`): `layers = "cache,buffered,aligned"`. From the engine down the
// stack is always cache -> buffered -> aligned -> POSIX, whatever the order of the words, so
// small reads are answered before anything is read ahead, and buffered writes are cut into
// aligned units last. No layers (the default) is the storage's file itself.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/params.h"
#include "io/file.h"
#include "io/storage.h"

namespace tapio::io {

// Plain data, parsed once at open.
struct LayerSpec {
  bool cache = false;     // ReadCache: read_cache_page pages, read_cache_size in all
  uint64_t cache_page = 0;
  uint64_t cache_pages = 0;
  bool buffered = false;  // BufferedFile: layer_buffers buffers of layer_buffer_size
  uint64_t buffer_size = 0;
  uint32_t buffers = 0;
  bool aligned = false;   // AlignedFile: units of layer_align (default: the stripe size)
  uint64_t align = 0;
  bool direct = false;    // layer_direct: whole aligned units with O_DIRECT

  bool any() const { return cache || buffered || aligned; }
  // The layer parameters of `params`; an unknown layer name is TAPIO_ERR_CONFIG naming it.
  // `stripe_size`: the file's stripe or block size, the default unit of `aligned`.
  static Result<LayerSpec> parse(const Params& params, uint64_t stripe_size);
};

// Stacks the layers of `spec` on `file`, which `storage` opened. With spec.direct, the aligned
// layer gets the file opened a second time for direct I/O (Storage::open_direct, O_DIRECT on
// POSIX); a storage that refuses (tmpfs, memory) or an align that is not a multiple of 4096
// gets a warning naming the file, and the layer writes through the page cache.
std::unique_ptr<File> stack_layers(Storage& storage, std::unique_ptr<File> file,
                                   const LayerSpec& spec, OpenMode mode, Counters* counters);

// storage.open(...), then stack_layers.
Result<std::unique_ptr<File>> open_layered(Storage& storage, const std::string& path,
                                           OpenMode mode, Counters* counters,
                                           const LayerSpec& spec,
                                           const std::optional<LustreLayout>& striping = {});

}  // namespace tapio::io
