// What changed since a git revision, for `--diff BASE_REF`: the added or changed lines of
// each file under the scan root (a file the revision does not hold counts as wholly added),
// and the tree at that revision for the score before the change.
//
// The scanned repository's git configuration is hostile: it may name filters, diff drivers,
// textconv commands, an fsmonitor, or settings that change what `git diff` prints. So tpulint
// never asks git for a diff or a checkout: it lists the revision's tree (`git ls-tree`), reads
// its blobs (`git cat-file --batch`, which runs no filter or driver), reads the working files
// itself and compares lines itself (line_diff.h). git is found on PATH before anything runs
// (never the repository's own `./git`), with hooks, fsmonitor and every transport turned off
// (a partial clone's missing object is never fetched). Nothing is written in the repository.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tpulint::app {

struct GitError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ChangedLines {
  // Path relative to the scan root -> inclusive 1-based line ranges on the new side.
  std::map<std::string, std::vector<std::pair<uint32_t, uint32_t>>, std::less<>> ranges;
  std::set<std::string, std::less<>> whole_files;  // files the revision does not hold

  bool file_changed(std::string_view path) const {
    return whole_files.find(path) != whole_files.end() || ranges.find(path) != ranges.end();
  }
  bool line_changed(std::string_view path, uint32_t line) const;
};

// The changes of `paths` (relative to `root`) since `base_ref`. Throws GitError when git
// cannot be run, `root` is not in a git work tree or `base_ref` is not a revision.
ChangedLines changed_lines(const std::filesystem::path& root, const std::string& base_ref,
                           std::span<const std::string> paths);

// Writes the files of `root`'s part of the tree of `base_ref` that a scan reads (source files
// and ignore files) under `dest`, and returns `dest`.
std::filesystem::path export_revision(const std::filesystem::path& root, const std::string& base_ref,
                                      const std::filesystem::path& dest);

}  // namespace tpulint::app
