// What the whole scanned project says about each of its files, found in one cheap pass over the
// discovered paths before any file is analyzed: the project's own top-level Python modules
// (an import of one of them is the project's code, never a third-party library, even when a
// CUDA-only library has the same name). A file's cached result depends on it: key().
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint {

class ProjectIndex {
 public:
  ProjectIndex() = default;
  // From the scan's discovered paths, relative to the root ('/'-separated): each Python package
  // whose parent directory is not a package (a directory with __init__.py, at any depth: `pkg/`,
  // `src/pkg/`, `python/pkg/`), and each Python module at the top of the tree or beside such a
  // package root.
  static ProjectIndex from_paths(std::span<const std::string> paths);

  // Whether `module`'s top-level name ("liger_kernel" of "liger_kernel.ops") is the project's own.
  bool is_own_module(std::string_view module) const;
  const std::vector<std::string>& own_modules() const { return own_modules_; }  // sorted, unique
  // A hash of everything above, never 0: part of every Python result's cache key.
  uint64_t key() const;

 private:
  std::vector<std::string> own_modules_;
};

}  // namespace tpulint
