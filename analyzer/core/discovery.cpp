#include "core/discovery.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <set>
#include <system_error>

#include "core/ignore_rules.h"
#include "core/source_tree.h"

namespace fs = std::filesystem;

namespace tpulint {

Language language_for_path(const fs::path& path) {
  std::string ext = path.extension().string();
  if (ext == ".py" || ext == ".pyi" || ext == ".ipynb") return Language::Python;  // a notebook's code cells
  if (ext == ".cu" || ext == ".cuh") return Language::Cuda;
  if (ext == ".cmake" || path.filename() == "CMakeLists.txt") return Language::Cmake;
  static constexpr std::array<std::string_view, 8> kCxx = {".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".inl"};
  if (std::find(kCxx.begin(), kCxx.end(), ext) != kCxx.end()) return Language::Cxx;
  return Language::None;
}

bool is_cxx_header_path(const fs::path& path) {
  static constexpr std::array<std::string_view, 5> kHeaders = {".h", ".hh", ".hpp", ".inl", ".cuh"};
  const std::string ext = path.extension().string();
  return std::find(kHeaders.begin(), kHeaders.end(), ext) != kHeaders.end();
}

bool is_always_skipped_dir(std::string_view name) {
  // Ruff's default excludes, plus Python caches and CMake's build trees.
  static constexpr std::array<std::string_view, 24> kNames = {
      ".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".mypy_cache", ".nox",
      ".pants.d", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
      "__pycache__", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
      "site-packages", "venv"};
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  return name.ends_with(".egg-info") || name.starts_with("cmake-build-");
}

namespace {

// An ignore file's text, or nullopt with why it is not applied ("" when there is nothing to
// say: there is none, or it is not a regular file).
struct IgnoreFileText {
  std::optional<std::string> text;
  std::string skip_reason;
};

// The ignore file `relative` beneath `tree`, read following no symlink (nor does git: it could
// lead out of the tree), never blocking on a FIFO, up to kMaxIgnoreFileBytes.
IgnoreFileText read_ignore_file(const SourceTree& tree, const std::string& relative) {
  FileRead read = tree.read(relative, kMaxIgnoreFileBytes);
  switch (read.status) {
    case FileRead::Status::Read: return {std::move(read.text), ""};
    case FileRead::Status::Symlink: return {std::nullopt, "symlinked ignore file: not followed"};
    case FileRead::Status::TooLarge:
      return {std::nullopt, fmt::format("ignore file larger than {} MiB: its rules are not applied", kMaxIgnoreFileBytes >> 20)};
    default: return {};
  }
}

fs::path normalized_absolute(const std::string& p) {
  fs::path a = fs::absolute(fs::path(p)).lexically_normal();
  std::string s = a.string();
  if (s.size() > 1 && s.back() == '/') s.pop_back();
  return fs::path(s);
}

fs::path common_ancestor(const std::vector<fs::path>& dirs) {
  fs::path common = dirs.front();
  for (const fs::path& d : dirs) {
    fs::path next;
    auto a = common.begin(), b = d.begin();
    for (; a != common.end() && b != d.end() && *a == *b; ++a, ++b) next /= *a;
    common = next;
  }
  return common;
}

class Walker {
 public:
  Walker(fs::path root, const DiscoveryOptions& options, Discovery& out)
      : root_(std::move(root)), options_(options), out_(out) {
    std::error_code ec;
    canonical_root_ = fs::canonical(root_, ec);
    if (ec) canonical_root_ = root_;
    top_ = root_;
    if (options_.respect_gitignore) {
      // Ignore files above the root count too, up to the git top-level, as in git.
      for (fs::path d = root_; !d.empty(); d = d.parent_path()) {
        if (fs::exists(d / ".git", ec)) {
          top_ = d;
          break;
        }
        if (d == d.parent_path()) break;
      }
      push_ignore_file(".git/info/exclude", "");
      root_from_top_ = *path_beneath(root_, top_);
      // .gitignore files of the directories from the top down to the root's parent.
      std::string rel;
      push_gitignore(rel);
      std::string remaining = root_from_top_;
      while (!remaining.empty()) {
        size_t slash = remaining.find('/');
        std::string part = remaining.substr(0, slash);
        remaining = slash == std::string::npos ? "" : remaining.substr(slash + 1);
        if (remaining.empty()) break;  // the root's own .gitignore is read by walk_dir
        rel = rel.empty() ? part : rel + "/" + part;
        push_gitignore(rel);
      }
    }
    if (!options_.excludes.empty()) {
      std::string text;
      for (const std::string& e : options_.excludes) text += e + "\n";
      excludes_.push(IgnoreRules("", text));
    }
  }

  void walk_root_dir() { walk_dir(root_, ""); }

  // Whether the excludes cover `abs`, a path named explicitly, or a directory above it beneath
  // the root: an exclude rule (a parent's decides first, as in git), or a directory name a walk
  // never enters. .gitignore rules are not applied: a file named explicitly is the user's.
  bool force_excluded(const fs::path& abs, bool is_dir) const {
    const std::string rel = *path_beneath(abs, root_);
    if (rel.empty()) return false;
    for (size_t start = 0;;) {
      const size_t slash = rel.find('/', start);
      const bool last = slash == std::string::npos;
      const std::string path = rel.substr(0, slash);
      const bool dir = !last || is_dir;
      if (dir && is_always_skipped_dir(std::string_view(rel).substr(start, slash - start))) return true;
      if (excludes_.ignored(path, dir)) return true;
      if (last) return false;
      start = slash + 1;
    }
  }

  // Walks a directory below the root as part of the root's tree: the .gitignore files of the
  // directories between them apply, and --exclude globs stay relative to the root.
  void walk_subdir(const fs::path& abs) {
    std::string rel = *path_beneath(abs, root_);
    size_t pushed = ignores_.size();
    if (options_.respect_gitignore) {
      std::string dir_rel;
      push_gitignore(from_top(dir_rel));
      for (size_t start = 0, slash; (slash = rel.find('/', start)) != std::string::npos; start = slash + 1) {
        dir_rel = rel.substr(0, slash);
        push_gitignore(from_top(dir_rel));
      }
    }
    walk_dir(abs, rel);
    while (ignores_.size() > pushed) ignores_.pop();
  }

  void add_explicit_file(const fs::path& given) {
    fs::path abs = given;
    std::string rel = *path_beneath(abs, root_);
    std::error_code ec;
    if (fs::is_symlink(abs, ec)) {
      // Named on the command line: analyze what it points to, if that is inside the root.
      fs::path target = fs::canonical(abs, ec);
      auto inside = ec ? std::nullopt : path_beneath(target, canonical_root_);
      if (!inside) {
        out_.skipped.push_back({rel, ec ? "broken or looping symlink" : "symlink leaves the scanned root"});
        return;
      }
      abs = root_ / *inside;
      rel = *inside;
    }
    Language lang = language_for_path(abs);
    if (lang == Language::None) {
      out_.skipped.push_back({rel, "not a Python, C/C++ or CUDA file"});
      return;
    }
    out_.files.push_back({abs, rel, lang});
  }

 private:
  // The .gitignore of the directory `rel_from_top` beneath the git top-level (or the root,
  // outside a repository).
  void push_gitignore(const std::string& rel_from_top) {
    push_ignore_file(rel_from_top.empty() ? ".gitignore" : rel_from_top + "/.gitignore", rel_from_top);
  }

  // Applies the ignore file `file` (beneath the top), whose rules are relative to `base` (from
  // the top); one not applied for a reason the user should know is listed as skipped, relative
  // to the root even when it lies above it.
  void push_ignore_file(const std::string& file, std::string base) {
    IgnoreFileText read = read_ignore_file(SourceTree(top_), file);
    if (read.text)
      ignores_.push(IgnoreRules(std::move(base), *read.text));
    else if (!read.skip_reason.empty())
      out_.skipped.push_back({(top_ / file).lexically_relative(root_).generic_string(), std::move(read.skip_reason)});
  }

  std::string from_top(const std::string& rel) const {
    if (root_from_top_.empty()) return rel;
    return rel.empty() ? root_from_top_ : root_from_top_ + "/" + rel;
  }

  bool ignored(const std::string& rel, bool is_dir) const {
    if (options_.respect_gitignore && ignores_.ignored(from_top(rel), is_dir)) return true;
    return excludes_.ignored(rel, is_dir);
  }

  // Returns true if the symlink `p` may be analyzed as a file in place: never, since its target
  // is either analyzed at its own path or outside the root. Records why it is skipped.
  bool check_symlink(const fs::path& p, const std::string& rel) {
    std::error_code ec;
    fs::path target = fs::canonical(p, ec);
    if (ec) {
      out_.skipped.push_back({rel, "broken or looping symlink"});
      return false;
    }
    auto inside = path_beneath(target, canonical_root_);
    if (!inside) {
      out_.skipped.push_back({rel, "symlink leaves the scanned root"});
      return false;
    }
    bool is_dir = fs::is_directory(target, ec);
    out_.skipped.push_back({rel, std::string(is_dir ? "symlink to directory '" : "symlink to '") + *inside +
                                     "' inside the root: not followed"});
    return false;
  }

  void walk_dir(const fs::path& dir, const std::string& rel_dir) {
    size_t pushed = ignores_.size();
    if (options_.respect_gitignore) push_gitignore(from_top(rel_dir));

    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
      out_.skipped.push_back({rel_dir.empty() ? "." : rel_dir, "unreadable directory: " + ec.message()});
    } else {
      std::vector<fs::directory_entry> entries;
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        entries.push_back(*it);
      }
      std::sort(entries.begin(), entries.end(),
                [](const auto& a, const auto& b) { return a.path().filename() < b.path().filename(); });
      for (const auto& entry : entries) visit(entry, rel_dir);
    }
    while (ignores_.size() > pushed) ignores_.pop();
  }

  void visit(const fs::directory_entry& entry, const std::string& rel_dir) {
    std::string name = entry.path().filename().string();
    std::string rel = rel_dir.empty() ? name : rel_dir + "/" + name;
    std::error_code ec;
    if (entry.is_symlink(ec)) {
      if (is_always_skipped_dir(name)) return;  // e.g. a .venv link: skipped like the directory
      bool target_is_dir = entry.is_directory(ec);
      bool in_scope = target_is_dir || language_for_path(entry.path()) != Language::None;
      if (in_scope && !ignored(rel, target_is_dir)) check_symlink(entry.path(), rel);
      return;
    }
    if (entry.is_directory(ec)) {
      if (is_always_skipped_dir(name) || ignored(rel, true)) return;
      walk_dir(entry.path(), rel);
      return;
    }
    if (!entry.is_regular_file(ec)) return;  // sockets, fifos, devices
    Language lang = language_for_path(entry.path());
    if (lang == Language::None || ignored(rel, false)) return;
    out_.files.push_back({entry.path(), rel, lang});
  }

  fs::path root_;
  fs::path canonical_root_;
  fs::path top_;
  std::string root_from_top_;
  const DiscoveryOptions& options_;
  Discovery& out_;
  IgnoreStack ignores_;
  IgnoreStack excludes_;
};

}  // namespace

Discovery discover(std::span<const std::string> paths, const DiscoveryOptions& options) {
  std::vector<std::string> inputs(paths.begin(), paths.end());
  if (inputs.empty()) inputs.push_back(".");

  std::vector<fs::path> absolute;
  std::vector<fs::path> dirs;
  for (const std::string& p : inputs) {
    fs::path a = normalized_absolute(p);
    std::error_code ec;
    auto status = fs::status(a, ec);
    if (ec || !fs::exists(status)) throw DiscoveryError("'" + p + "': no such file or directory");
    if (fs::is_directory(status)) {
      fs::directory_iterator probe(a, ec);
      if (ec) throw DiscoveryError("'" + p + "': cannot read directory: " + ec.message());
      dirs.push_back(a);
    } else {
      dirs.push_back(a.parent_path());
    }
    absolute.push_back(a);
  }

  Discovery out;
  out.root = common_ancestor(dirs);
  if (options.root) {
    fs::path project = normalized_absolute(options.root->string());
    if (path_beneath(out.root, project)) out.root = project;
  }
  Walker walker(out.root, options, out);
  std::set<fs::path> seen;
  for (const fs::path& a : absolute) {
    if (!seen.insert(a).second) continue;
    if (options.force_exclude && walker.force_excluded(a, fs::is_directory(a))) {
      ++out.force_excluded;
      continue;
    }
    if (fs::is_directory(a)) {
      if (a == out.root)
        walker.walk_root_dir();
      else
        walker.walk_subdir(a);
    } else {
      walker.add_explicit_file(a);
    }
  }

  auto by_path = [](const auto& a, const auto& b) { return a.path < b.path; };
  std::sort(out.files.begin(), out.files.end(), by_path);
  out.files.erase(std::unique(out.files.begin(), out.files.end(),
                              [](const auto& a, const auto& b) { return a.path == b.path; }),
                  out.files.end());
  std::sort(out.skipped.begin(), out.skipped.end(), by_path);
  out.skipped.erase(std::unique(out.skipped.begin(), out.skipped.end(),
                                [](const auto& a, const auto& b) { return a.path == b.path; }),
                    out.skipped.end());
  return out;
}

}  // namespace tpulint
