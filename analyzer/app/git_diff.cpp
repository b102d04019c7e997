#include "app/git_diff.h"

#include <fmt/format.h>
#include <sstream>

#include "app/process.h"

namespace fs = std::filesystem;

namespace tpulint::app {

namespace {

ProcessResult git(const fs::path& root, std::vector<std::string> args) {
  // A scanned repository's own .git/config must not make git run its commands: no fsmonitor
  // hook, no hooks at all (git diff runs none, but a future command might).
  args.insert(args.begin(), {"git", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c",
                             "core.hooksPath=/dev/null", "--no-pager"});
  return run_process(args, root);
}

// A path as git prints it: "b/x.py" or "\"b/with\\ttab.py\"" (C-style quoted) or /dev/null.
std::string unquote(std::string p) {
  if (p.size() < 2 || p.front() != '"') return p;
  std::string out;
  for (size_t i = 1; i + 1 < p.size(); ++i) {
    if (p[i] != '\\' || i + 2 >= p.size()) {
      out += p[i];
      continue;
    }
    char c = p[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default:
        if (c >= '0' && c <= '7' && i + 2 < p.size()) {  // octal byte
          out += char(std::stoi(p.substr(i, 3), nullptr, 8));
          i += 2;
        } else {
          out += c;
        }
    }
  }
  return out;
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

ChangedLines parse_unified_diff(const std::string& diff) {
  ChangedLines out;
  std::istringstream in(diff);
  std::string line, current;
  while (std::getline(in, line)) {
    if (line.starts_with("+++ ")) {
      std::string p = unquote(line.substr(4));
      current = p == "/dev/null" ? "" : (p.starts_with("b/") ? p.substr(2) : p);
      continue;
    }
    if (!line.starts_with("@@ ") || current.empty()) continue;
    // @@ -a[,b] +c[,d] @@
    size_t plus = line.find(" +");
    if (plus == std::string::npos) continue;
    size_t end = line.find(' ', plus + 2);
    std::string spec = line.substr(plus + 2, end - plus - 2);
    size_t comma = spec.find(',');
    uint32_t start = uint32_t(std::stoul(spec.substr(0, comma)));
    uint32_t count = comma == std::string::npos ? 1 : uint32_t(std::stoul(spec.substr(comma + 1)));
    if (count == 0) continue;  // lines removed only: nothing on the new side
    out.ranges[current].emplace_back(start, start + count - 1);
  }
  return out;
}

ChangedLines changed_lines(const fs::path& root, const std::string& base_ref) {
  auto verify = git(root, {"rev-parse", "--verify", "--quiet", base_ref + "^{commit}"});
  if (verify.exit_code != 0)
    throw GitError(verify.exit_code == -1 ? "--diff needs git, which could not be run"
                                          : fmt::format("--diff: '{}' is not a revision of the repository at '{}'",
                                                        base_ref, root.string()));
  // --relative: paths relative to the scan root, and only files under it.
  auto diff = git(root, {"diff", "--no-color", "--no-ext-diff", "--no-textconv", "--unified=0", "--relative", base_ref, "--"});
  if (diff.exit_code != 0) throw GitError("--diff: git diff failed: " + diff.err);
  ChangedLines out = parse_unified_diff(diff.out);
  auto untracked = git(root, {"ls-files", "--others", "--exclude-standard", "-z"});
  if (untracked.exit_code == 0) {
    size_t start = 0;
    while (start < untracked.out.size()) {
      size_t nul = untracked.out.find('\0', start);
      if (nul == std::string::npos) nul = untracked.out.size();
      if (nul > start) out.whole_files.insert(untracked.out.substr(start, nul - start));
      start = nul + 1;
    }
  }
  return out;
}

fs::path export_revision(const fs::path& root, const std::string& base_ref, const fs::path& dest) {
  auto top = git(root, {"rev-parse", "--show-toplevel"});
  if (top.exit_code != 0) throw GitError("not a git work tree: " + root.string());
  std::string toplevel = top.out.substr(0, top.out.find('\n'));
  fs::path tar = dest / "tree.tar";
  auto archive = git(root, {"archive", "--format=tar", "-o", tar.string(), base_ref});
  if (archive.exit_code != 0) throw GitError("git archive failed: " + archive.err);
  fs::path tree = dest / "tree";
  fs::create_directories(tree);
  auto untar = run_process({"tar", "-xf", tar.string(), "-C", tree.string()});
  if (untar.exit_code != 0) throw GitError("tar failed: " + untar.err);
  fs::path rel = fs::weakly_canonical(root).lexically_relative(fs::weakly_canonical(toplevel));
  return rel.empty() || rel == "." ? tree : tree / rel;
}

}  // namespace tpulint::app
