#include "core/result_cache.h"

#include "core/result_codec.h"

#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

namespace fs = std::filesystem;
using nlohmann::json;

namespace tpulint {

namespace {

constexpr int kFormatVersion = 4;  // bump when encode_result changes

}  // namespace

std::optional<FileStamp> stamp_of(const fs::path& file) {
  struct stat st;
  if (stat(file.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

uint64_t content_hash(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

uint64_t tool_build_hash() {
  static const uint64_t hash = [] {
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

ResultCache::ResultCache(fs::path dir, const fs::path& root, std::string_view settings_key) {
  std::string key = fmt::format("{}\n{}\n{}\n{}", kFormatVersion, tool_build_hash(), root.string(), settings_key);
  file_ = dir / fmt::format("results-{:016x}.json", content_hash(key));
  std::ifstream in(file_);
  if (!in) return;
  try {
    json j = json::parse(in);
    for (const auto& [path, e] : j.at("entries").items()) {
      Entry entry;
      entry.stamp = {e.at(0).get<uint64_t>(), e.at(1).get<int64_t>()};
      entry.hash = e.at(2).get<uint64_t>();
      entry.headers_key = e.at(3).get<uint64_t>();
      entry.result_json = e.at(4).get<std::string>();
      entries_[path] = std::move(entry);
    }
  } catch (const std::exception&) {
    entries_.clear();  // a damaged cache is an empty one
  }
}

std::optional<FileResult> ResultCache::find_by_stamp(const std::string& path, const FileStamp& stamp,
                                                     uint64_t headers_key) const {
  auto it = entries_.find(path);
  if (it == entries_.end() || !(it->second.stamp == stamp) || it->second.headers_key != headers_key) return std::nullopt;
  return decode_result(path, it->second.result_json);
}

std::optional<FileResult> ResultCache::find_by_hash(const std::string& path, uint64_t hash, uint64_t headers_key) const {
  auto it = entries_.find(path);
  if (it == entries_.end() || it->second.hash != hash || it->second.headers_key != headers_key) return std::nullopt;
  return decode_result(path, it->second.result_json);
}

void ResultCache::store(const std::string& path, const FileStamp& stamp, uint64_t hash, uint64_t headers_key,
                        const FileResult& result) {
  // A file modified in the last seconds could change again within the file system's time
  // stamp granularity without its stamp changing (git's "racy" entries): such an entry is
  // only ever matched by its content hash.
  FileStamp kept = stamp;
  auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  if (now - stamp.mtime_ns < 2'000'000'000LL) kept.mtime_ns = -1;
  entries_[path] = Entry{kept, hash, headers_key, encode_result(result)};
}

void ResultCache::save(const std::vector<std::string>& live_paths) {
  json entries = json::object();
  for (const std::string& p : live_paths) {
    auto it = entries_.find(p);
    if (it == entries_.end()) continue;
    const Entry& e = it->second;
    entries[p] = json::array({e.stamp.size, e.stamp.mtime_ns, e.hash, e.headers_key, e.result_json});
  }
  std::error_code ec;
  fs::create_directories(file_.parent_path(), ec);
  fs::path tmp = file_;
  tmp += fmt::format(".tmp.{}", getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << json{{"version", kFormatVersion}, {"entries", entries}}.dump();
    if (!out) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, file_, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace tpulint
