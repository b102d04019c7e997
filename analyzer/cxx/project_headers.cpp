#include "cxx/project_headers.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/source_file.h"

namespace tpulint::cxx {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxFilesFollowed = 64;  // per analyzed file: the file and the project headers it reaches
// The opening #include lines a preamble holds at most (each run of them is a key of the parser's
// precompiled headers: a hostile file of thousands would make those keys quadratic).
constexpr size_t kMaxPreambleIncludes = 48;  // below kMaxFilesFollowed: each must have been read

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

// Where Clang finds an #include of a file beneath the root: a quoted one beside its includer first,
// then in the include directories found so far, in order; failing those, the tree's header whose
// path ends with the spelled one, nearest the includer, whose include directory is then added.
class IncludeSearch {
 public:
  explicit IncludeSearch(const SourceTree& tree) : tree_(tree), index_(index_for(tree.root())) {}

  // The header beneath the root, or nullopt (a standard, missing or absolute one).
  std::optional<std::string> find(const SpelledInclude& inc, const std::string& includer) {
    if (inc.path.starts_with('/')) return std::nullopt;
    if (inc.quoted)
      if (auto rel = beneath(fs::path(includer).parent_path().generic_string(), inc.path); rel && exists(*rel))
        return rel;
    for (const std::string& dir : include_dirs_) {
      auto include_dir = tree_.relative_path(dir);
      auto rel = include_dir ? beneath(*include_dir, inc.path) : std::nullopt;
      if (rel && exists(*rel)) return rel;
    }
    std::string name = fs::path(inc.path).filename().string();
    std::string suffix = fs::path(inc.path).lexically_normal().generic_string();
    suffix.insert(suffix.begin(), '/');
    const std::string includer_path = (tree_.root() / includer).generic_string();
    const std::string* best = nullptr;
    if (auto it = index_->by_name.find(name); it != index_->by_name.end())
      for (const std::string& candidate : it->second)
        if (candidate.ends_with(suffix) &&
            (!best || common_prefix(candidate, includer_path) > common_prefix(*best, includer_path)))
          best = &candidate;
    if (!best) return std::nullopt;
    std::string include_dir = best->substr(0, best->size() - suffix.size());
    if (std::find(include_dirs_.begin(), include_dirs_.end(), include_dir) == include_dirs_.end())
      include_dirs_.push_back(std::move(include_dir));
    return tree_.relative_path(*best);
  }

  // The include directories found, in order (absolute): what a parse is given with -I.
  std::vector<std::string> take_include_dirs() { return std::move(include_dirs_); }

 private:
  bool exists(const std::string& rel) const { return tree_.kind(rel) == EntryKind::RegularFile; }
  // `relative` beneath the root of the directory `dir` (beneath the root), when it stays there.
  static std::optional<std::string> beneath(const std::string& dir, const std::string& relative) {
    return normalized_relative_path(dir.empty() ? relative : dir + "/" + relative);
  }

  const SourceTree& tree_;
  std::shared_ptr<const HeaderIndex> index_;
  std::vector<std::string> include_dirs_;  // absolute
};

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

namespace {

std::string_view trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The first word of a directive's text: the macro a #define defines.
std::string_view first_word(std::string_view s) { return s.substr(0, s.find_first_of(" \t(")); }

// A directive line split after its '#': the keyword and what follows it, trimmed.
struct Directive {
  std::string_view keyword, rest;
};
std::optional<Directive> directive(std::string_view line) {
  line = trimmed(line);
  if (line.empty() || line[0] != '#') return std::nullopt;
  line = trimmed(line.substr(1));
  size_t end = 0;
  while (end < line.size() && (std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_')) ++end;
  return Directive{line.substr(0, end), trimmed(line.substr(end))};
}

// The target of an #include, from what follows the keyword: "path" or <path>.
std::optional<SpelledInclude> include_target(std::string_view rest) {
  if (rest.empty() || (rest[0] != '"' && rest[0] != '<')) return std::nullopt;
  char close = rest[0] == '"' ? '"' : '>';
  size_t j = rest.find(close, 1);
  if (j == std::string_view::npos || j == 1) return std::nullopt;
  return SpelledInclude{std::string(rest.substr(1, j - 1)), close == '"'};
}

// Calls `visit` with each directive a text opens with (comments and blank lines between them
// skipped) until it returns false or a line holds anything else. A directive continued on the
// next line ends the walk. A directive's views are valid during its call only.
template <typename Visit>
void opening_directives(std::string_view text, Visit visit) {
  bool in_comment = false;
  size_t pos = 0;
  std::string code;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    code.clear();
    for (size_t i = 0; i < line.size();) {
      if (in_comment) {
        size_t end = line.find("*/", i);
        in_comment = end == std::string_view::npos;
        i = in_comment ? line.size() : end + 2;
      } else if (line.substr(i, 2) == "//") {
        break;
      } else if (line.substr(i, 2) == "/*") {
        in_comment = true;
        i += 2;
      } else {
        code += line[i++];
      }
    }
    std::string_view c = trimmed(code);
    if (c.empty()) continue;
    std::optional<Directive> d = directive(c);
    if (!d || c.back() == '\\' || !visit(*d)) return;
  }
}

}  // namespace

std::vector<SpelledInclude> spelled_includes(std::string_view text) {
  std::vector<SpelledInclude> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    std::optional<Directive> d = directive(line);
    if (!d || !d->keyword.starts_with("include")) continue;
    size_t at = d->rest.find_first_of("\"<");
    if (at == std::string_view::npos) continue;
    if (auto target = include_target(d->rest.substr(at))) out.push_back(std::move(*target));
  }
  return out;
}

std::vector<SpelledInclude> leading_includes(std::string_view text) {
  std::vector<SpelledInclude> out;
  enum { NoGuard, GuardOpened, GuardDefined } guard = NoGuard;
  std::string guard_name;  // a copy: a directive's text lives as long as its line
  opening_directives(text, [&](const Directive& d) {
    if (d.keyword == "include" && guard != GuardOpened) {
      std::optional<SpelledInclude> target = include_target(d.rest);
      if (target) out.push_back(std::move(*target));
      return target.has_value();
    }
    if (d.keyword == "pragma" && d.rest == "once") return true;
    if (d.keyword == "ifndef" && guard == NoGuard && out.empty()) {
      guard = GuardOpened;
      guard_name = d.rest;
      return true;
    }
    if (d.keyword == "define" && guard == GuardOpened && first_word(d.rest) == guard_name) {
      guard = GuardDefined;
      return true;
    }
    return false;
  });
  return out;
}

bool has_include_guard(std::string_view text) {
  bool guarded = false;
  std::string guard_name;  // a copy: a directive's text lives as long as its line
  opening_directives(text, [&](const Directive& d) {
    if (!guard_name.empty()) {
      guarded = d.keyword == "define" && first_word(d.rest) == guard_name;
      return false;
    }
    if (d.keyword == "pragma" && d.rest == "once") {
      guarded = true;
      return false;
    }
    if (d.keyword == "ifndef" && !d.rest.empty()) {
      guard_name = d.rest;
      return true;
    }
    return false;
  });
  return guarded;
}

HeaderResolution resolve_project_headers(const SourceFile& file, const SourceTree& tree) {
  HeaderResolution out;
  IncludeSearch search(tree);
  // Files to follow, by their paths beneath the root: nothing outside it is read, and nothing
  // through a symlink (SourceTree).
  std::deque<std::pair<std::string, std::string>> queue;  // (path beneath the root, text)
  std::set<std::string> followed;
  std::map<std::string, bool> guarded;  // the headers read, by path: whether they have an include guard
  std::set<std::string> standard;
  std::optional<std::string> main_path = tree.relative_path(file.absolute_path());
  if (!main_path) return out;
  queue.emplace_back(*main_path, file.text());
  followed.insert(*main_path);
  auto follow = [&](const std::string& rel) {
    if (followed.size() >= kMaxFilesFollowed || !followed.insert(rel).second) return;
    FileRead read = tree.read(rel, kMaxHeaderSize);
    std::string text = read.status == FileRead::Status::Read ? std::move(read.text) : std::string();
    guarded[rel] = has_include_guard(text);
    queue.emplace_back(rel, std::move(text));
  };
  // What each of the main file's #includes resolved to: a header of the tree, or none (a
  // standard, missing or absolute one, told apart by `absolute`).
  struct MainInclude {
    SpelledInclude spelled;
    std::optional<std::string> header;
    bool absolute = false;
  };
  std::vector<MainInclude> main_includes;
  bool reaches_main_file = false;
  while (!queue.empty()) {
    auto [path, text] = std::move(queue.front());
    queue.pop_front();
    const bool is_main = path == *main_path;
    for (SpelledInclude& inc : spelled_includes(text)) {
      if (inc.path.starts_with('/')) {
        if (is_main) main_includes.push_back({std::move(inc), std::nullopt, true});
        continue;
      }
      std::optional<std::string> header = search.find(inc, path);
      if (!header) {
        if (torch_family(inc.path)) {
          out.torch_missing = true;
        } else if (is_standard_library_header(inc.path)) {
          standard.insert(inc.path);
        }
      }
      if (header) {
        reaches_main_file |= !is_main && *header == *main_path;
        follow(*header);
      }
      if (is_main) main_includes.push_back({std::move(inc), header, false});
    }
  }
  out.include_dirs = search.take_include_dirs();
  out.standard_headers.assign(standard.begin(), standard.end());
  if (!reaches_main_file) {
    std::vector<SpelledInclude> leading = leading_includes(file.text());
    for (size_t i = 0; i < leading.size() && i < main_includes.size() && i < kMaxPreambleIncludes; ++i) {
      const MainInclude& inc = main_includes[i];
      if (inc.spelled.path != leading[i].path || inc.spelled.quoted != leading[i].quoted || inc.absolute) break;
      if (inc.header) {
        auto it = guarded.find(*inc.header);
        if (it == guarded.end() || !it->second) break;
      }
      out.preamble.push_back(inc.spelled);
    }
  }
  return out;
}

std::vector<std::pair<SpelledInclude, std::string>> main_include_headers(const SourceFile& file,
                                                                          const SourceTree& tree) {
  std::vector<std::pair<SpelledInclude, std::string>> out;
  std::optional<std::string> main_path = tree.relative_path(file.absolute_path());
  if (!main_path) return out;
  IncludeSearch search(tree);
  for (SpelledInclude& inc : spelled_includes(file.text())) {
    std::optional<std::string> header = search.find(inc, *main_path);
    out.emplace_back(std::move(inc), header.value_or(std::string()));
  }
  return out;
}

namespace {

// Each identifier of a text, in order (comments and strings included: a word there only makes
// a reading more careful).
template <typename Visit>
void words(std::string_view text, Visit visit) {
  auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < text.size();) {
    if (!word_char(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && word_char(text[end])) ++end;
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) visit(text.substr(i, end - i));  // a number is no word
    i = end;
  }
}

// Whether a function-like macro's parameter list and body (`(name) static auto f() -> decltype(name(x))`)
// call one of its parameters: the call's name is then written where the macro is used, not
// followed by its '(' there.
bool calls_a_parameter(std::string_view rest) {
  if (rest.empty() || rest.front() != '(') return false;
  const size_t close = rest.find(')');
  if (close == std::string_view::npos) return false;
  std::vector<std::string_view> parameters;
  words(rest.substr(1, close - 1), [&](std::string_view w) { parameters.push_back(w); });
  if (rest.substr(1, close - 1).find("...") != std::string_view::npos) parameters.push_back("__VA_ARGS__");
  const std::string_view body = rest.substr(close + 1);
  bool found = false;
  words(body, [&](std::string_view w) {
    if (found || std::find(parameters.begin(), parameters.end(), w) == parameters.end()) return;
    size_t after = size_t(w.data() + w.size() - body.data());
    while (after < body.size() && (body[after] == ' ' || body[after] == '\t')) ++after;
    found = after < body.size() && body[after] == '(';
  });
  return found;
}

// Adds the #defines of `text` (a file at `path`) to `index`, with each body's words in `bodies`.
void add_defines(std::string_view text, const std::string& path, MacroIndex& index,
                 std::unordered_map<std::string, std::vector<std::string>>& bodies) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t end = eol == std::string_view::npos ? text.size() : eol;
    // A directive continues over lines that end in a backslash.
    while (end < text.size()) {
      size_t last = end;
      while (last > pos && (text[last - 1] == '\r')) --last;
      if (last == pos || text[last - 1] != '\\') break;
      eol = text.find('\n', end + 1);
      end = eol == std::string_view::npos ? text.size() : eol;
    }
    std::optional<Directive> d = directive(text.substr(pos, end - pos));
    pos = end + 1;
    if (!d || d->keyword != "define") continue;
    const std::string name(first_word(d->rest));
    if (name.empty()) continue;
    std::vector<std::string>& files = index.defined_in[name];
    if (std::find(files.begin(), files.end(), path) == files.end()) files.push_back(path);
    const std::string_view body = d->rest.substr(name.size());
    if (mentions_device_code(body, false)) index.device.insert(name);
    if (mentions_device_code(body, true)) index.device_in_cuda.insert(name);
    if (calls_a_parameter(body)) index.calls_parameter.insert(name);
    words(body, [&](std::string_view w) { bodies[name].emplace_back(w); });
  }
}

// Adds to `device` the macros whose body names one of its macros, until none is added.
void close_over_bodies(std::unordered_set<std::string>& device,
                       const std::unordered_map<std::string, std::vector<std::string>>& bodies) {
  for (bool added = true; added;) {
    added = false;
    for (const auto& [name, body] : bodies) {
      if (device.contains(name)) continue;
      for (const std::string& w : body)
        if (w != name && device.contains(w)) {
          device.insert(name);
          added = true;
          break;
        }
    }
  }
}

void close_device(MacroIndex& index, const std::unordered_map<std::string, std::vector<std::string>>& bodies) {
  close_over_bodies(index.device, bodies);
  close_over_bodies(index.device_in_cuda, bodies);
  close_over_bodies(index.calls_parameter, bodies);
}

}  // namespace

bool mentions_device_code(std::string_view text, bool cuda) {
  if (text.find("<<<") != std::string_view::npos) return true;
  static const std::set<std::string, std::less<>> kWords = {
      "__global__", "__device__", "__shared__", "__constant__", "__managed__", "__launch_bounds__",
      "__CUDA_ARCH__", "asm", "__asm", "__asm__", "launch_bounds"};
  // `__attribute__((device))` and its kin: the built-in declarations' spelling of the keywords.
  static const std::set<std::string, std::less<>> kAttributes = {"device", "global", "shared", "constant", "managed"};
  bool found = false;
  std::string_view before;
  words(text, [&](std::string_view w) {
    if (kWords.contains(w) || (before == "__attribute__" && kAttributes.contains(w)) || (cuda && w == "constexpr"))
      found = true;
    before = w;
  });
  return found;
}

MacroIndex macros_of(const std::vector<std::pair<std::string, std::string_view>>& texts) {
  MacroIndex index;
  std::unordered_map<std::string, std::vector<std::string>> bodies;
  for (const auto& [path, text] : texts) add_defines(text, path, index, bodies);
  close_device(index, bodies);
  return index;
}

std::shared_ptr<const MacroIndex> project_macros(const SourceTree& tree) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const MacroIndex>> indexes;
  std::shared_ptr<const HeaderIndex> headers = index_for(tree.root());
  std::lock_guard lock(mutex);
  auto& slot = indexes[tree.root().string()];
  if (slot) return slot;
  std::vector<std::string> paths;
  // Every file an #include may reach (the resolver's headers, a `.cu` or `.inc` among them), as a
  // parse would read it.
  for (const auto& [name, absolute] : headers->by_name)
    for (const std::string& a : absolute)
      if (auto rel = tree.relative_path(a)) paths.push_back(*rel);
  std::sort(paths.begin(), paths.end());
  auto index = std::make_shared<MacroIndex>();
  std::unordered_map<std::string, std::vector<std::string>> bodies;
  for (const std::string& rel : paths) {
    FileRead read = tree.read(rel, kMaxHeaderSize);
    if (read.status == FileRead::Status::Read) add_defines(read.text, rel, *index, bodies);
  }
  close_device(*index, bodies);
  slot = index;
  return slot;
}

}  // namespace tpulint::cxx
