#include "app/git_diff.h"

#include <charconv>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/line_diff.h"
#include "app/process.h"
#include "core/discovery.h"
#include "core/source_tree.h"

namespace fs = std::filesystem;

namespace tpulint::app {

namespace {

// A working file larger than this is taken as wholly changed rather than compared.
constexpr uint64_t kMaxComparedSize = uint64_t(64) << 20;

class Git {
 public:
  explicit Git(fs::path root) : root_(std::move(root)) {
    std::optional<fs::path> git = find_executable("git");
    if (!git) throw GitError("--diff needs git, which was not found on PATH");
    git_ = git->string();
  }

  // git in the scan root, with nothing the repository configures run: no fsmonitor, no hooks,
  // no transport (a partial clone's missing objects are not fetched).
  ProcessResult run(const std::vector<std::string>& args, const std::string& input = {}) const {
    std::vector<std::string> argv = {git_, "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
                                     "-c", "protocol.allow=never"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, root_, input);
  }

  // The commit `base_ref` names, or the empty tree for `HEAD` before the first commit (every
  // file is new: pre-commit's hook runs `--diff HEAD` on a repository's first commit too).
  // Throws GitError when it names none.
  std::string commit(const std::string& base_ref) const {
    if (base_ref.starts_with('-')) throw GitError(fmt::format("--diff: '{}' is not a revision", base_ref));
    ProcessResult verify = run({"rev-parse", "--verify", "--quiet", base_ref + "^{commit}"});
    if (verify.exit_code == -1) throw GitError("--diff needs git, which could not be run");
    if (verify.exit_code != 0 && base_ref == "HEAD" && run({"symbolic-ref", "--quiet", "HEAD"}).exit_code == 0) {
      ProcessResult empty = run({"hash-object", "-t", "tree", "--no-filters", "/dev/null"});
      if (empty.exit_code == 0) return empty.out.substr(0, empty.out.find('\n'));
    }
    if (verify.exit_code != 0) {
      // Asked only now: which of the two is wrong, the revision or the repository.
      ProcessResult repository = run({"rev-parse", "--git-dir"});
      if (repository.exit_code != 0 && repository.err.find("not a git repository") != std::string::npos)
        throw GitError(fmt::format("--diff: '{}' is not in a git repository (--diff compares the files with a "
                                   "revision of theirs)",
                                   root_.string()));
      if (repository.exit_code != 0)
        throw GitError(fmt::format("--diff: git cannot read the repository at '{}': {}", root_.string(),
                                   repository.err.substr(0, repository.err.find('\n'))));
      throw GitError(fmt::format("--diff: '{}' is not a revision of the repository at '{}'", base_ref, root_.string()));
    }
    return verify.out.substr(0, verify.out.find('\n'));
  }

  struct Blob {
    std::string mode;  // 100644, 100755 (files), 120000 (symlinks)
    std::string id;
  };
  // The blobs of the commit's tree beneath the scan root, by their paths relative to it.
  std::map<std::string, Blob> blobs(const std::string& commit) const {
    ProcessResult tree = run({"ls-tree", "-r", "-z", commit});
    if (tree.exit_code != 0) throw GitError("--diff: git ls-tree failed: " + tree.err);
    std::map<std::string, Blob> out;
    for (size_t start = 0; start < tree.out.size();) {
      size_t end = tree.out.find('\0', start);
      if (end == std::string::npos) end = tree.out.size();
      std::string_view entry(tree.out.data() + start, end - start);
      start = end + 1;
      // <mode> SP <type> SP <id> TAB <path>
      size_t tab = entry.find('\t'), sp1 = entry.find(' '), sp2 = entry.find(' ', sp1 + 1);
      if (tab == std::string_view::npos || sp2 == std::string_view::npos || sp2 > tab) continue;
      if (entry.substr(sp1 + 1, sp2 - sp1 - 1) != "blob") continue;
      out[std::string(entry.substr(tab + 1))] = {std::string(entry.substr(0, sp1)), std::string(entry.substr(sp2 + 1, tab - sp2 - 1))};
    }
    return out;
  }

  // The contents of the blobs `ids`, in order, read without any filter or conversion; nullopt
  // for one the repository does not have.
  std::vector<std::optional<std::string>> contents(const std::vector<std::string>& ids) const {
    std::vector<std::optional<std::string>> out;
    if (ids.empty()) return out;
    std::string input;
    for (const std::string& id : ids) input += id + "\n";
    ProcessResult batch = run({"cat-file", "--batch"}, input);
    if (batch.exit_code != 0) throw GitError("--diff: git cat-file failed: " + batch.err);
    std::string_view rest = batch.out;
    for (size_t k = 0; k < ids.size(); ++k) {
      // <id> SP <type> SP <size> LF <bytes> LF, or <id> SP missing LF
      size_t nl = rest.find('\n');
      if (nl == std::string_view::npos) throw GitError("--diff: git cat-file printed a short answer");
      std::string_view header = rest.substr(0, nl);
      rest.remove_prefix(nl + 1);
      size_t sp = header.rfind(' ');
      uint64_t size = 0;
      if (header.ends_with(" missing") || sp == std::string_view::npos ||
          std::from_chars(header.data() + sp + 1, header.data() + header.size(), size).ec != std::errc() ||
          size + 1 > rest.size()) {
        out.emplace_back(std::nullopt);
        continue;
      }
      out.emplace_back(std::string(rest.substr(0, size)));
      rest.remove_prefix(size + 1);
    }
    return out;
  }

 private:
  fs::path root_;
  std::string git_;
};

// Whether a path from a tree object can be written beneath a directory: no empty, ".", ".."
// or ".git" component (git refuses those in a checkout too).
bool safe_tree_path(std::string_view path) {
  if (path.empty() || path.starts_with('/')) return false;
  for (size_t start = 0; start <= path.size();) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(start, slash - start);
    if (part.empty() || part == "." || part == ".." || part == ".git") return false;
    start = slash + 1;
  }
  return true;
}

// Writes `content` to `path` beneath `dest` (a fresh private directory), making its directories;
// no existing file or symlink is ever written through.
void write_beneath(const fs::path& dest, const std::string& path, const std::string& content) {
  fs::path target = dest / path;
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw GitError(fmt::format("--diff-score: cannot write '{}'", target.string()));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      ::close(fd);
      throw GitError(fmt::format("--diff-score: cannot write '{}'", target.string()));
    }
    done += size_t(n);
  }
  ::close(fd);
}

}  // namespace

bool ChangedLines::line_changed(std::string_view path, uint32_t line) const {
  if (whole_files.find(path) != whole_files.end()) return true;
  auto it = ranges.find(path);
  if (it == ranges.end()) return false;
  for (auto [first, last] : it->second)
    if (first <= line && line <= last) return true;
  return false;
}

ChangedLines changed_lines(const fs::path& root, const std::string& base_ref, std::span<const std::string> paths) {
  Git git(root);
  const std::string commit = git.commit(base_ref);
  const std::map<std::string, Git::Blob> blobs = git.blobs(commit);
  ChangedLines out;
  std::vector<std::string> compared, ids;
  for (const std::string& path : paths) {
    auto it = blobs.find(path);
    if (it == blobs.end() || it->second.mode == "120000") {
      out.whole_files.insert(path);
      continue;
    }
    compared.push_back(path);
    ids.push_back(it->second.id);
  }
  std::vector<std::optional<std::string>> before = git.contents(ids);
  const SourceTree tree(root);
  for (size_t k = 0; k < compared.size(); ++k) {
    FileRead now = tree.read(compared[k], kMaxComparedSize);
    if (!before[k] || now.status != FileRead::Status::Read) {
      out.whole_files.insert(compared[k]);
      continue;
    }
    auto ranges = added_line_ranges(*before[k], now.text);
    if (!ranges.empty()) out.ranges[compared[k]] = std::move(ranges);
  }
  return out;
}

fs::path export_revision(const fs::path& root, const std::string& base_ref, const fs::path& dest) {
  Git git(root);
  const std::string commit = git.commit(base_ref);
  std::vector<std::string> paths, ids;
  for (const auto& [path, blob] : git.blobs(commit)) {
    if (blob.mode != "100644" && blob.mode != "100755") continue;  // no symlink or submodule
    const bool read_by_scan = language_for_path(path) != Language::None || fs::path(path).filename() == ".gitignore";
    if (!read_by_scan || !safe_tree_path(path)) continue;
    paths.push_back(path);
    ids.push_back(blob.id);
  }
  std::vector<std::optional<std::string>> contents = git.contents(ids);
  for (size_t k = 0; k < paths.size(); ++k)
    if (contents[k]) write_beneath(dest, paths[k], *contents[k]);
  return dest;
}

}  // namespace tpulint::app
