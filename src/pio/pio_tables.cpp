// The id tables. PIO numbers ncids from 16 and ioids from 512, so a program's ids never look
// like small counts; ids are never reused, so a stale id is always PIO_EBADID.
#include "pio/pio_state.h"

namespace tapio_pio {
namespace {

struct Tables {
  std::map<int, std::unique_ptr<IoSystem>> iosystems;
  std::map<int, std::unique_ptr<Decomp>> decomps;
  std::map<int, std::unique_ptr<File>> files;
  int next_iosysid = 0, next_ioid = 512, next_ncid = 16;
  int error_mode = PIO_INTERNAL_ERROR;
};

Tables& tables() {
  static Tables t;
  return t;
}

template <class T>
T* find_in(std::map<int, std::unique_ptr<T>>& m, int id) {
  auto it = m.find(id);
  return it == m.end() ? nullptr : it->second.get();
}

}  // namespace

IoSystem* find_iosystem(int iosysid) { return find_in(tables().iosystems, iosysid); }
Decomp* find_decomp(int ioid) { return find_in(tables().decomps, ioid); }
File* find_file(int ncid) { return find_in(tables().files, ncid); }

IoSystem& add_iosystem(std::unique_ptr<IoSystem> ios) {
  ios->id = tables().next_iosysid++;
  return *(tables().iosystems[ios->id] = std::move(ios));
}

Decomp& add_decomp(std::unique_ptr<Decomp> d) {
  d->id = tables().next_ioid++;
  return *(tables().decomps[d->id] = std::move(d));
}

File& add_file(std::unique_ptr<File> f) {
  f->ncid = tables().next_ncid++;
  return *(tables().files[f->ncid] = std::move(f));
}

void remove_iosystem(int iosysid) { tables().iosystems.erase(iosysid); }
void remove_decomp(int ioid) { tables().decomps.erase(ioid); }
void remove_file(int ncid) { tables().files.erase(ncid); }
int default_error_mode() { return tables().error_mode; }
int64_t& buffer_limit() {
  static int64_t limit = 128 << 20;  // PIO_BUFFER_SIZE of PIO 2.7's default build
  return limit;
}
void set_default_error_mode(int mode) { tables().error_mode = mode; }

int File::unlimited() const {
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].len == 0) return static_cast<int>(d);
  return -1;
}

}  // namespace tapio_pio
