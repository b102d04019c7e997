// What changed since a git revision, for `--diff BASE_REF`: the added or changed lines of
// each file under the scan root (untracked files count as wholly added), and the tree at that
// revision for the score before the change. Uses the git command line; writes nothing in the
// repository.
#pragma once

#include <filesystem>
#include <map>
#include <set>
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
  std::set<std::string, std::less<>> whole_files;  // untracked (new) files

  bool file_changed(std::string_view path) const {
    return whole_files.find(path) != whole_files.end() || ranges.find(path) != ranges.end();
  }
  bool line_changed(std::string_view path, uint32_t line) const;
};

// Throws GitError when `root` is not in a git work tree or `base_ref` is not a revision.
ChangedLines changed_lines(const std::filesystem::path& root, const std::string& base_ref);

// Parses `git diff --unified=0` output (exposed for tests).
ChangedLines parse_unified_diff(const std::string& diff);

// Writes the tree of `base_ref` under `dest` (git archive + tar) and returns the directory that
// corresponds to `root` in it.
std::filesystem::path export_revision(const std::filesystem::path& root, const std::string& base_ref,
                                      const std::filesystem::path& dest);

}  // namespace tpulint::app
