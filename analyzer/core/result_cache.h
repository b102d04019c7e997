// The result cache: each file's findings, kept between runs so that an unchanged tree is not
// analyzed again. One cache file per scan root and settings, in a directory outside the
// scanned tree (by default $XDG_CACHE_HOME/tpulint or ~/.cache/tpulint).
//
// An entry is valid while the file's bytes are the same (checked by size, modification and
// change times and inode, then by a content hash when those changed), the tool binary is the same, the
// settings that shape a file's findings are the same, and, for C/C++/CUDA files, no header in
// the scanned tree changed (their analysis can depend on any of them). Each entry carries a
// checksum of its bytes: a damaged entry (a truncated or corrupted cache file) is a miss,
// never a wrong result.
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/source_tree.h"

namespace tpulint {

uint64_t content_hash(std::string_view bytes);

// A hash of the running tpulint binary, so a rebuilt tool never trusts an older one's results.
uint64_t tool_build_hash();
// The GNU build ID of the running executable, as bytes; empty if it was linked without one.
std::string_view executable_build_id();

class ResultCache {
 public:
  // The cache for `root` under `dir`; `settings_key` names everything else the results depend on.
  // A missing or unreadable cache file is an empty cache, never an error.
  ResultCache(std::filesystem::path dir, const std::filesystem::path& root, std::string_view settings_key);
  ~ResultCache();
  ResultCache(const ResultCache&) = delete;  // entries point into the mapped file
  ResultCache& operator=(const ResultCache&) = delete;

  // The cached result of `path` if its stamp matches (no need to read the file).
  std::optional<FileResult> find_by_stamp(const std::string& path, const FileStamp& stamp,
                                          uint64_t headers_key) const;
  // The same, with the result's findings appended to `findings` (a scan's list of them).
  std::optional<FileResult> find_by_stamp(const std::string& path, const FileStamp& stamp, uint64_t headers_key,
                                          std::vector<Finding>& findings) const;
  // The cached result of `path` if its content hash matches.
  std::optional<FileResult> find_by_hash(const std::string& path, uint64_t hash, uint64_t headers_key) const;

  // Records a file's result (call from one thread, after the parallel part).
  void store(const std::string& path, const FileStamp& stamp, uint64_t hash, uint64_t headers_key,
             const FileResult& result);
  // The same, with `findings` as the result's findings (kept apart from it, in a scan's list).
  void store(const std::string& path, const FileStamp& stamp, uint64_t hash, uint64_t headers_key,
             const FileResult& result, std::span<const Finding> findings);
  // Drops entries of files not seen in this run, then writes the cache atomically. Errors are
  // ignored: a cache that cannot be written only costs time.
  void save(const std::vector<std::string>& live_paths);

 private:
  struct Entry {
    FileStamp stamp;
    uint64_t hash = 0;
    // What the result depends on besides the file: 0 for Python files, a key of the project's
    // headers for C/C++/CUDA, of the discovered paths for CMake.
    uint64_t headers_key = 0;
    std::string_view result;  // the FileResult, encoded: in the mapped file, or in stored_
  };
  std::filesystem::path file_;
  // The cache file as read, mapped rather than copied: a million-line tree's file is tens of MB,
  // and reading it into memory was a quarter of a cached run.
  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;
  std::deque<std::string> stored_;  // the results stored in this run (a deque: they never move)
  std::map<std::string, Entry> entries_;
  bool changed_ = false;  // an entry was stored since the file was read
};

// The default cache directory: $XDG_CACHE_HOME/tpulint, else $HOME/.cache/tpulint, else none.
std::optional<std::filesystem::path> default_cache_dir();

}  // namespace tpulint
