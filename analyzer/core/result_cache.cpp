#include "core/result_cache.h"

#include "core/file_replace.h"
#include "core/result_codec.h"

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cstdlib>
#include <fmt/format.h>
#include <cstring>
#include <fstream>
#include <link.h>
#include <sstream>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

namespace fs = std::filesystem;

namespace tpulint {

namespace {

constexpr int kFormatVersion = 11;  // bump when encode_result or the entry line changes

}  // namespace

uint64_t content_hash(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

std::string_view executable_build_id() {
  static const std::string_view id = [] {
    std::string_view found;
    // The executable is the first object dl_iterate_phdr reports; its notes are in memory.
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE) continue;
            const size_t align = ph.p_align == 8 ? 8 : 4;  // a note's name and data are padded to it
            auto pad = [align](size_t n) { return (n + align - 1) / align * align; };
            const char* p = reinterpret_cast<const char*>(info->dlpi_addr + ph.p_vaddr);
            const char* end = p + ph.p_memsz;
            while (size_t(end - p) >= sizeof(ElfW(Nhdr))) {
              const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(p);
              const char* name = p + sizeof(ElfW(Nhdr));
              const char* desc = name + pad(note->n_namesz);
              if (desc + note->n_descsz > end) break;
              if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
                *static_cast<std::string_view*>(data) = std::string_view(desc, note->n_descsz);
                return 1;
              }
              p = desc + pad(note->n_descsz);
            }
          }
          return 1;  // the executable only
        },
        &found);
    return found;
  }();
  return id;
}

uint64_t tool_build_hash() {
  static const uint64_t hash = [] {
    // The linker's build ID is a hash of the binary already: read from memory, not from the
    // 4 MB file (which cost a cached run a tenth of its page faults).
    if (std::string_view id = executable_build_id(); !id.empty()) return content_hash(id);
    std::ifstream in("/proc/self/exe", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return content_hash(ss.str());
  }();
  return hash;
}

std::optional<fs::path> default_cache_dir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "tpulint";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "tpulint";
  return std::nullopt;
}

// The cache file: a header line, then one line per entry,
//   <checksum> <size> <mtime_ns> <ctime_ns> <inode> <hash> <dependency key> <path length> <path><encoded result>
// The checksum (16 hex digits) is the content hash of the rest of the line: an entry that does
// not match it is dropped. The path is length-prefixed (a file name may hold any byte but NUL);
// the encoded result is one line (result_codec escapes line breaks). Reading the file is a
// split, not a parse: a result is decoded only when its file is looked up.
ResultCache::ResultCache(fs::path dir, const fs::path& root, std::string_view settings_key) {
  std::string key = fmt::format("{}\n{}\n{}\n{}", kFormatVersion, tool_build_hash(), root.string(), settings_key);
  file_ = dir / fmt::format("results-{:016x}.cache", content_hash(key));
  // Mapped whole and at once (MAP_POPULATE: one call rather than a page fault per page). save()
  // replaces the file by a rename, so the mapping keeps the contents it was made with. (Only a
  // program truncating the file in place during a scan could pull pages from under it; git maps
  // its index and packs on the same terms.)
  int fd = open(file_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    void* p = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p != MAP_FAILED) {
      mapped_ = static_cast<const char*>(p);
      mapped_size_ = size_t(st.st_size);
    }
  }
  close(fd);
  const std::string_view text(mapped_, mapped_size_);
  const std::string header = fmt::format("tpulint-results {}\n", kFormatVersion);
  if (!text.starts_with(header)) return;
  // Reads the number at the front of `rest` and the space after it.
  auto number = [](std::string_view& rest, auto& value, int base = 10) {
    auto [stop, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), value, base);
    if (ec != std::errc() || stop == rest.data() + rest.size() || *stop != ' ') return false;
    rest.remove_prefix(size_t(stop - rest.data()) + 1);
    return true;
  };
  for (size_t at = header.size(); at < text.size();) {
    // A damaged entry is skipped to the next line break, where the next entry is looked for.
    auto skip_line = [&] {
      size_t nl = text.find('\n', at);
      at = nl == std::string_view::npos ? text.size() : nl + 1;
    };
    std::string_view rest = text.substr(at);
    uint64_t checksum = 0, size = 0, inode = 0, hash = 0, headers_key = 0, path_length = 0;
    int64_t mtime = 0, ctime = 0;
    if (!number(rest, checksum, 16)) {
      skip_line();
      continue;
    }
    const std::string_view checked = rest;  // what the checksum covers starts here
    if (!number(rest, size) || !number(rest, mtime) || !number(rest, ctime) || !number(rest, inode) ||
        !number(rest, hash) || !number(rest, headers_key) || !number(rest, path_length) || path_length > rest.size()) {
      skip_line();
      continue;
    }
    // The path may hold line breaks: the entry's line ends at the first one after it. An entry
    // without its line break was cut short.
    size_t nl = rest.find('\n', path_length);
    if (nl == std::string_view::npos) break;
    const std::string_view entry = checked.substr(0, size_t(rest.data() - checked.data()) + nl);
    if (content_hash(entry) != checksum) {
      skip_line();
      continue;
    }
    at = size_t(entry.data() + entry.size() - text.data()) + 1;
    std::string path(rest.substr(0, path_length));
    entries_[std::move(path)] =
        Entry{{size, mtime, ctime, inode}, hash, headers_key, rest.substr(path_length, nl - path_length)};
  }
}

ResultCache::~ResultCache() {
  if (mapped_) munmap(const_cast<char*>(mapped_), mapped_size_);
}

std::optional<FileResult> ResultCache::find_by_stamp(const std::string& path, const FileStamp& stamp,
                                                     uint64_t headers_key) const {
  std::vector<Finding> findings;
  std::optional<FileResult> r = find_by_stamp(path, stamp, headers_key, findings);
  if (r) r->findings = std::move(findings);
  return r;
}

std::optional<FileResult> ResultCache::find_by_stamp(const std::string& path, const FileStamp& stamp,
                                                     uint64_t headers_key, std::vector<Finding>& findings) const {
  auto it = entries_.find(path);
  if (it == entries_.end() || !(it->second.stamp == stamp) || it->second.headers_key != headers_key) return std::nullopt;
  return decode_result_into(path, it->second.result, findings);
}

std::optional<FileResult> ResultCache::find_by_hash(const std::string& path, uint64_t hash, uint64_t headers_key) const {
  auto it = entries_.find(path);
  if (it == entries_.end() || it->second.hash != hash || it->second.headers_key != headers_key) return std::nullopt;
  return decode_result(path, it->second.result);
}

void ResultCache::store(const std::string& path, const FileStamp& stamp, uint64_t hash, uint64_t headers_key,
                        const FileResult& result) {
  store(path, stamp, hash, headers_key, result, result.findings);
}

void ResultCache::store(const std::string& path, const FileStamp& stamp, uint64_t hash, uint64_t headers_key,
                        const FileResult& result, std::span<const Finding> findings) {
  // A file modified in the last seconds could change again within the file system's time
  // stamp granularity without its stamp changing (git's "racy" entries): such an entry is
  // only ever matched by its content hash.
  FileStamp kept = stamp;
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  if (now - stamp.mtime_ns < 2'000'000'000LL) kept.mtime_ns = -1;
  std::string& encoded = stored_.emplace_back();
  append_encoded_result(encoded, result, findings);
  entries_[path] = Entry{kept, hash, headers_key, encoded};
  changed_ = true;
}

void ResultCache::save(const std::vector<std::string>& live_paths) {
  // Unchanged since it was read (no entry stored, none to drop): nothing to write.
  if (!changed_ && live_paths.size() == entries_.size() &&
      std::all_of(live_paths.begin(), live_paths.end(), [&](const std::string& p) { return entries_.count(p) > 0; }))
    return;
  std::string text = fmt::format("tpulint-results {}\n", kFormatVersion);
  for (const std::string& p : live_paths) {
    auto it = entries_.find(p);
    if (it == entries_.end()) continue;
    const Entry& e = it->second;
    std::string entry = fmt::format("{} {} {} {} {} {} {} {}{}", e.stamp.size, e.stamp.mtime_ns, e.stamp.ctime_ns,
                                    e.stamp.inode, e.hash, e.headers_key, p.size(), p, e.result);
    text += fmt::format("{:016x} {}\n", content_hash(entry), entry);
  }
  std::error_code ec;
  fs::create_directories(file_.parent_path(), ec);
  try {
    replace_file(file_, text, /*sync=*/false);  // a cache lost in a crash only costs time
  } catch (const std::exception&) {
  }
}

}  // namespace tpulint
