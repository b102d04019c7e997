// File discovery: which files a scan covers, and which it skips and why.
//
// Respects .gitignore files (from the git top-level down to each directory) and
// .git/info/exclude, skips VCS, dependency and build-output directories, never follows a
// symlink (one that stays inside the root is analyzed at its real path; one that leaves it is
// reported as skipped), and returns files sorted by path so the output never depends on the
// order the file system lists them in.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/types.h"

namespace tpulint {

// The language a file name is analyzed as: .py .pyi, and .ipynb (a Jupyter notebook's code
// cells, core/notebook.h) -> Python; .cu .cuh -> CUDA;
// .c .cc .cpp .cxx .h .hh .hpp .inl -> C/C++; anything else -> None.
Language language_for_path(const std::filesystem::path& path);
// Whether the scan discovers `path` as a C/C++/CUDA header (.h, .hh, .hpp, .inl, .cuh): what a C/C++
// file's analysis reads of the tree besides the file itself (its includes' declarations, the
// project's macros), so that a change to one invalidates the cached results of C/C++ files.
bool is_cxx_header_path(const std::filesystem::path& path);

struct DiscoveryOptions {
  std::vector<std::string> excludes;  // --exclude: gitignore-style globs relative to the root
  bool respect_gitignore = true;
  // The project root (where the configuration lives): when it contains every scanned path,
  // it is the scan root, so paths and globs are the project's whatever subdirectory is scanned.
  std::optional<std::filesystem::path> root;
  // The excludes (and the directories a walk never enters) apply to paths named explicitly
  // too, and to whatever is beneath an excluded directory among them (Ruff's force-exclude):
  // pre-commit names every staged file, and an excluded one must not be analyzed.
  bool force_exclude = false;
};

struct DiscoveredFile {
  std::filesystem::path absolute_path;
  std::string path;  // relative to the scan root, '/'-separated
  Language language = Language::None;
};

struct Discovery {
  std::filesystem::path root;  // absolute, normalized; every reported path is relative to it
  std::vector<DiscoveredFile> files;
  std::vector<SkippedFile> skipped;
  size_t force_excluded = 0;  // paths named explicitly that force_exclude left out
};

// A path given on the command line that cannot be scanned (missing, unreadable).
struct DiscoveryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Walks `paths` (files or directories). The scan root is `options.root` when it contains them
// all, else the deepest directory containing all of them. A file named explicitly is analyzed
// even if an ignore rule matches it, unless `options.force_exclude` and an exclude covers it.
Discovery discover(std::span<const std::string> paths, const DiscoveryOptions& options);

// The largest ignore file (.gitignore, .git/info/exclude) applied: a larger one is listed as
// skipped and its rules are not applied, as git does past 100 MB. A hostile one costs matching
// time for every path below it, in proportion to its size; real ones are a few kilobytes.
inline constexpr uint64_t kMaxIgnoreFileBytes = uint64_t(1) << 20;

// Directory names never descended into: VCS data, dependencies, caches and build outputs.
bool is_always_skipped_dir(std::string_view name);

}  // namespace tpulint
