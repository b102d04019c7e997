// Issue 34's closing check: a scan of a tree built to attack it (hostile_tree.h), in every mode
// at once (--diff and --diff-score, a compile database, outputs, the cache, two workers), run
// under strace. Every file it opens, program it runs and file it writes is checked against what
// a scan may touch: the tree, its own outputs and cache, its temporary directory, and the
// system's files it runs on (libraries, the toolchain's headers, git's own configuration).
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/address_sanitizer.h"
#include "cli_runner.h"
#include "hostile_tree.h"

namespace fs = std::filesystem;
using tpulint::testing::TempDir;

namespace {

// One traced system call's paths, resolved to absolute ones.
struct Access {
  std::string call;
  std::vector<std::string> paths;
  bool writes = false;  // it creates, changes or removes what it names
  std::string line;
};

bool beneath(const std::string& path, const std::string& dir) {
  return path == dir || (path.starts_with(dir) && (dir.ends_with('/') || path[dir.size()] == '/'));
}

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

// The quoted strings of a call's arguments and the directories of its descriptors
// (`3</tmp/x>`, printed by strace -y), in order.
std::vector<Access> read_trace(const std::string& log, const std::string& initial_cwd) {
  std::vector<Access> out;
  std::map<std::string, std::string> cwd;  // by process ID
  std::ifstream in(log);
  static const std::regex call_re(R"(^(\d+) +([a-z0-9_]+)\((.*)$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, call_re)) continue;  // "<... resumed>", exits, signals
    const std::string pid = m[1], call = m[2], rest = m[3];
    if (!cwd.count(pid)) cwd[pid] = initial_cwd;
    // Arguments: quoted strings and descriptors with their paths.
    std::vector<std::pair<char, std::string>> args;  // 'd' descriptor path, 's' string, 'c' AT_FDCWD
    for (size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == '"') {
        std::string s;
        for (++i; i < rest.size() && rest[i] != '"'; ++i) {
          if (rest[i] == '\\' && i + 1 < rest.size()) s += rest[i++];
          s += rest[i];
        }
        args.emplace_back('s', s);
      } else if (rest[i] == '<' && i > 0 && std::isdigit(static_cast<unsigned char>(rest[i - 1]))) {
        size_t close = rest.find('>', i);
        args.emplace_back('d', rest.substr(i + 1, close - i - 1));
        i = close;
      } else if (rest.compare(i, 8, "AT_FDCWD") == 0) {
        // strace -y prints the working directory after it: AT_FDCWD</dir>.
        std::string dir = cwd[pid];
        if (i + 8 < rest.size() && rest[i + 8] == '<') {
          size_t close = rest.find('>', i + 8);
          dir = rest.substr(i + 9, close - i - 9);
          i = close;
        } else {
          i += 7;
        }
        args.emplace_back('c', dir);
      }
    }
    auto resolve = [&](const std::string& base, const std::string& p) {
      return normal(p.starts_with('/') ? p : base + "/" + p);
    };
    Access a{call, {}, false, line};
    if (call == "execve" || call == "chdir" || call == "mkdir" || call == "rmdir" || call == "unlink" ||
        call == "open" || call == "creat" || call == "truncate" || call == "rename" || call == "link" ||
        call == "symlink") {
      for (auto& [kind, value] : args)
        if (kind == 's') {
          a.paths.push_back(resolve(cwd[pid], value));
          if (call == "execve") break;  // the rest are its arguments
          if (call == "symlink") break;  // the link's target is only text
        }
    } else {
      // *at calls: a descriptor or AT_FDCWD, then the path relative to it.
      std::string base = cwd[pid];
      for (auto& [kind, value] : args) {
        if (kind == 'd' || kind == 'c') {
          base = value;
        } else {
          a.paths.push_back(resolve(base, value));
          base = cwd[pid];
          if (call == "execveat" || call == "openat" || call == "openat2" || call == "symlinkat") break;
        }
      }
    }
    if (call == "chdir" && line.find(") = 0") != std::string::npos && !a.paths.empty()) cwd[pid] = a.paths[0];
    const bool opening = call == "open" || call == "openat" || call == "openat2";
    a.writes = opening ? (rest.find("O_WRONLY") != std::string::npos || rest.find("O_RDWR") != std::string::npos ||
                          rest.find("O_CREAT") != std::string::npos || rest.find("O_TRUNC") != std::string::npos)
                       : call != "execve" && call != "execveat" && call != "chdir";
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

TEST_CASE("a scan of a hostile tree opens, runs and writes nothing outside it, under strace", "[e2e][hostile][strace]") {
  if (std::system("command -v strace >/dev/null 2>&1") != 0) FAIL("strace is not installed (scripts/install-deps.sh --test)");
  TempDir dir;
  const auto tree = tpulint::testing::write_hostile_tree(dir);
  const std::string repo = tree.repo.string(), outside = tree.outside.string();
  dir.mkdir("out");
  dir.mkdir("home");
  const std::string binary = tpulint::testing::tpulint_binary();
  const std::string cache = dir.str("cache"), out = dir.str("out"), home = dir.str("home"), log = dir.str("strace.log");
  const std::string command =
      // LeakSanitizer cannot run under ptrace: in sanitizer builds the traced run does without it.
      "cd '" + repo + "' && PATH=\":$PATH\" HOME='" + home + "' XDG_CONFIG_HOME='" + home + "/.config' " +
      "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" " +
      "strace -f -qq -y -s 4096 -o '" + log +
      "' -e trace=open,openat,openat2,creat,execve,execveat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,"
      "rmdir,link,linkat,symlink,symlinkat,truncate,chdir '" + binary + "' scan . --diff HEAD --diff-score "
      "--format json --output sarif='" + out + "/report.sarif' --cache-dir '" + cache +
      "' --jobs 2 --max-worker-memory 300 --file-timeout 120 > '" + out + "/report.json' 2> '" + out + "/stderr' </dev/null";
  const int status = std::system(command.c_str());
  std::stringstream err;
  err << std::ifstream(out + "/stderr").rdbuf();
  INFO(err.str());
  REQUIRE(WEXITSTATUS(status) == 0);
  // The scan did its work: the change's finding is reported, the kernel file was analyzed.
  const nlohmann::json report = nlohmann::json::parse(std::ifstream(out + "/report.json"));
  CHECK(report.at("findings").size() >= 1);
  CHECK(fs::exists(out + "/report.sarif"));

  const std::string binary_dir = fs::path(binary).parent_path().string();
  const std::string temp = fs::temp_directory_path().string();
  static const std::regex own_temp_dir("^" + temp + "/tpulint-[A-Za-z0-9]{6}(/.*)?$");
  auto ancestor_config = [&](const std::string& p) {
    for (fs::path d = tree.repo.parent_path(); d != d.parent_path(); d = d.parent_path())
      if (p == d.string() || p == (d / "pyproject.toml").string() || p == (d / ".tpulint.toml").string()) return true;
    return p == "/" || p == "/pyproject.toml" || p == "/.tpulint.toml";
  };
  auto system_file = [&](const std::string& p) {
    for (const char* dir : {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sys/devices/system/cpu"})
      if (beneath(p, dir)) return true;
    for (const char* file : {"/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/os-release", "/etc/lsb-release",
                             "/etc/debian_version", "/etc/redhat-release", "/etc/SuSE-release", "/etc/gitconfig",
                             "/etc/localtime", "/dev/null", "/dev/urandom"})
      if (p == file) return true;
    return beneath(p, binary_dir);  // the tpulint binary and its C/C++ frontend module
  };
  auto own_output = [&](const std::string& p) {
    return beneath(p, cache) || beneath(p, out) || std::regex_match(p, own_temp_dir) || p == "/dev/null";
  };

  const std::vector<Access> accesses = read_trace(log, repo);
  // The trace is read right: it holds the scan's own reads and writes, by their full paths.
  auto seen = [&](const std::string& path, bool writing) {
    return std::any_of(accesses.begin(), accesses.end(), [&](const Access& a) {
      return a.writes == writing && std::any_of(a.paths.begin(), a.paths.end(), [&](const std::string& p) { return beneath(p, path); });
    });
  };
  CHECK(seen(repo + "/pkg/model.py", false));
  CHECK(seen(repo + "/src/k.cu", false));
  CHECK(seen(cache, true));
  CHECK(seen(out + "/report.sarif", true));
  size_t executed = 0;
  for (const Access& a : accesses) {
    INFO(a.line);
    for (const std::string& p : a.paths) {
      // What the tree's attacks name is never touched, not even to find it missing.
      CHECK_FALSE(beneath(p, outside));
      for (const char* forbidden : {"/etc/passwd", "/etc/shadow", "/dev/zero", "/dev/stdin"}) CHECK(p != forbidden);
      if (a.call == "execve" || a.call == "execveat") {
        // tpulint itself, then only git found on PATH's absolute directories.
        CHECK((p == binary || (p.ends_with("/git") && !beneath(p, repo) && fs::path(p).is_absolute())));
        ++executed;
      } else if (a.writes) {
        CHECK(own_output(p));
      } else {
        CHECK((beneath(p, repo) || own_output(p) || beneath(p, home) || system_file(p) || ancestor_config(p)));
      }
    }
  }
  CHECK(executed >= 2);  // tpulint, and git for --diff
  for (const char* what : {"-clean", "-smudge", "-process", "-external", "-fsmonitor", "-git", "-tar"}) {
    INFO(what);
    CHECK_FALSE(fs::exists(tree.marker + what));
  }
}
