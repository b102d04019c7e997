#include "cxx/project_headers.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "core/source_file.h"

namespace tpulint::cxx {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxFilesFollowed = 64;  // per analyzed file: the file and the project headers it reaches

bool header_extension(const fs::path& p) {
  static const std::set<std::string> kExtensions = {".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc",
                                                    ".ipp", ".tcc", ".cu", ".h++"};
  return kExtensions.count(p.extension().string()) > 0;
}

// The scanned tree's headers by file name, built once per root and shared by all workers.
struct HeaderIndex {
  std::unordered_map<std::string, std::vector<std::string>> by_name;  // file name -> absolute paths, sorted
};

std::shared_ptr<const HeaderIndex> index_for(const fs::path& root) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const HeaderIndex>> indexes;
  std::lock_guard lock(mutex);
  auto& slot = indexes[root.string()];
  if (slot) return slot;
  auto index = std::make_shared<HeaderIndex>();
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& e = *it;
    std::string name = e.path().filename().string();
    if (e.is_directory(ec) && !e.is_symlink(ec) && (name.starts_with('.') || name == "node_modules")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!e.is_symlink(ec) && e.is_regular_file(ec) && header_extension(e.path()))
      index->by_name[name].push_back(e.path().generic_string());
  }
  for (auto& [name, paths] : index->by_name) std::sort(paths.begin(), paths.end());
  slot = index;
  return slot;
}

// A header the resolver follows is read whole to find its includes; a larger one is not followed.
constexpr uint64_t kMaxHeaderSize = uint64_t(16) << 20;

bool torch_family(std::string_view spelled) {
  for (std::string_view p : {"torch/", "ATen/", "c10/", "pybind11/", "caffe2/"})
    if (spelled.starts_with(p)) return true;
  return false;
}

}  // namespace

bool is_standard_library_header(std::string_view spelled) {
  static const std::set<std::string, std::less<>> kHeaders = {
      // C++17
      "algorithm", "any", "array", "atomic", "bitset", "cassert", "cctype", "cerrno", "cfenv", "cfloat",
      "charconv", "chrono", "cinttypes", "climits", "clocale", "cmath", "codecvt", "complex",
      "condition_variable", "csetjmp", "csignal", "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib",
      "cstring", "ctime", "cwchar", "cwctype", "deque", "exception", "execution", "filesystem",
      "forward_list", "fstream", "functional", "future", "initializer_list", "iomanip", "ios", "iosfwd",
      "iostream", "istream", "iterator", "limits", "list", "locale", "map", "memory", "memory_resource",
      "mutex", "new", "numeric", "optional", "ostream", "queue", "random", "ratio", "regex",
      "scoped_allocator", "set", "shared_mutex", "sstream", "stack", "stdexcept", "streambuf", "string",
      "string_view", "system_error", "thread", "tuple", "type_traits", "typeindex", "typeinfo",
      "unordered_map", "unordered_set", "utility", "valarray", "variant", "vector",
      // The C library's headers
      "assert.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h", "limits.h", "locale.h", "math.h",
      "setjmp.h", "signal.h", "stdarg.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h",
      "wchar.h", "wctype.h"};
  return kHeaders.contains(spelled);
}

std::vector<SpelledInclude> spelled_includes(std::string_view text) {
  std::vector<SpelledInclude> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string_view::npos || line[i] != '#') continue;
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string_view::npos || line.substr(i, 7) != "include") continue;
    i = line.find_first_of("\"<", i + 7);
    if (i == std::string_view::npos) continue;
    char close = line[i] == '"' ? '"' : '>';
    size_t j = line.find(close, i + 1);
    if (j == std::string_view::npos || j == i + 1) continue;
    out.push_back({std::string(line.substr(i + 1, j - i - 1)), close == '"'});
  }
  return out;
}

HeaderResolution resolve_project_headers(const SourceFile& file, const SourceTree& tree) {
  HeaderResolution out;
  std::shared_ptr<const HeaderIndex> index = index_for(tree.root());
  // Files to follow, by their paths beneath the root: nothing outside it is read, and nothing
  // through a symlink (SourceTree).
  std::deque<std::pair<std::string, std::string>> queue;  // (path beneath the root, text)
  std::set<std::string> followed;
  std::set<std::string> standard;
  std::optional<std::string> main_path = tree.relative_path(file.absolute_path());
  if (!main_path) return out;
  queue.emplace_back(*main_path, file.text());
  followed.insert(*main_path);
  auto exists = [&](const std::string& rel) { return tree.kind(rel) == EntryKind::RegularFile; };
  auto follow = [&](const std::string& rel) {
    if (followed.size() >= kMaxFilesFollowed || !followed.insert(rel).second) return;
    FileRead read = tree.read(rel, kMaxHeaderSize);
    queue.emplace_back(rel, read.status == FileRead::Status::Read ? std::move(read.text) : std::string());
  };
  // `relative` beneath the root of the directory `dir` (beneath the root), when it stays there.
  auto beneath = [](const std::string& dir, const std::string& relative) {
    return normalized_relative_path(dir.empty() ? relative : dir + "/" + relative);
  };
  while (!queue.empty()) {
    auto [path, text] = std::move(queue.front());
    queue.pop_front();
    const std::string dir = fs::path(path).parent_path().generic_string();
    for (const SpelledInclude& inc : spelled_includes(text)) {
      if (inc.path.starts_with('/')) continue;
      if (inc.quoted) {
        if (auto rel = beneath(dir, inc.path); rel && exists(*rel)) {
          follow(*rel);
          continue;
        }
      }
      std::optional<std::string> known;
      for (const std::string& d : out.include_dirs) {
        auto include_dir = tree.relative_path(d);
        auto rel = include_dir ? beneath(*include_dir, inc.path) : std::nullopt;
        if (rel && exists(*rel)) {
          known = rel;
          break;
        }
      }
      if (known) {
        follow(*known);
        continue;
      }
      // A header of the tree whose path ends with the spelled one; the nearest to the includer.
      std::string name = fs::path(inc.path).filename().string();
      std::string suffix = fs::path(inc.path).lexically_normal().generic_string();
      suffix.insert(suffix.begin(), '/');
      const std::string includer = (tree.root() / path).generic_string();
      const std::string* best = nullptr;
      if (auto it = index->by_name.find(name); it != index->by_name.end())
        for (const std::string& candidate : it->second)
          if (candidate.ends_with(suffix) &&
              (!best || common_prefix(candidate, includer) > common_prefix(*best, includer)))
            best = &candidate;
      if (best) {
        out.include_dirs.push_back(best->substr(0, best->size() - suffix.size()));
        if (auto rel = tree.relative_path(*best)) follow(*rel);
      } else if (torch_family(inc.path)) {
        out.torch_missing = true;
      } else if (is_standard_library_header(inc.path)) {
        standard.insert(inc.path);
      }
    }
  }
  out.standard_headers.assign(standard.begin(), standard.end());
  return out;
}

}  // namespace tpulint::cxx
