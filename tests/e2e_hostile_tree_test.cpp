// A scanned repository is hostile (issue 34): nothing in it may make a scan write, run or read
// anything outside it, or cost unbounded time or memory. Each test is an attack, run through the
// real binary, with a good file beside it whose findings must be intact.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sys/stat.h>

#include "cli_runner.h"
#include "core/address_sanitizer.h"

using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::map<std::string, std::multiset<std::string>> ids_by_file(const json& report) {
  std::map<std::string, std::multiset<std::string>> out;
  for (const json& f : report.at("findings")) out[f.at("path")].insert(f.at("id").get<std::string>());
  return out;
}

std::string messages_of(const json& report, const std::string& id) {
  std::string out;
  for (const json& f : report.at("findings"))
    if (f.at("id") == id) out += f.at("path").get<std::string>() + ": " + f.at("message").get<std::string>() + "\n";
  return out;
}

std::vector<std::string> missing_headers(const json& report, const std::string& path) {
  for (const json& m : report.at("files").at("missing_headers"))
    if (m.at("path") == path) return m.at("headers").get<std::vector<std::string>>();
  return {};
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(e.path().string());
  return out;
}

// The JSON report of `scan ARGS`, which must succeed.
json scan_report(const std::string& args, const std::string& env = "") {
  auto r = run_tpulint("scan " + args + " --format json", TPULINT_SOURCE_DIR, env);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

const char* kKernel = "__global__ void scale(float* x) { x[threadIdx.x] *= 2; }\n"
                      "void launch(float* x) { scale<<<1, 32>>>(x); }\n";

}  // namespace

TEST_CASE("a tree's compile database cannot make Clang write a file, load a plugin or read a response file",
          "[e2e][hostile][compile-db]") {
  TempDir dir, victim;
  const std::string root = dir.str("repo");
  dir.write("repo/src/k.cu", std::string("#include \"ops.h\"\n") + kKernel);
  dir.write("repo/src/ops.h", "#pragma once\n");
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\n");
  victim.write("response.rsp", "-DFROM_RESPONSE_FILE\n");
  const std::string v = victim.str();
  std::vector<std::string> arguments = {
      "clang++", "-x", "c++",  // compiled as C++: the kernel and its launch must still be found
      "-Xclang", "-dependency-file", "-Xclang", v + "/bashrc", "-Xclang", "-MT", "-Xclang", "x",
      "-MD", "-MF", v + "/depfile", "-Xclang", "-serialize-diagnostic-file", "-Xclang", v + "/diagnostics",
      "--serialize-diagnostics", v + "/diagnostics2", "-Xclang", "-diagnostic-log-file", "-Xclang", v + "/log",
      "-Xclang", "-header-include-file", "-Xclang", v + "/headers", "-fmodules", "-fmodules-cache-path=" + v + "/modules",
      "-Wp,-MD," + v + "/wp", "-save-temps=obj", "-o", v + "/out.o", "-fcrash-diagnostics-dir=" + v + "/crash",
      "-fplugin=" + v + "/plugin.so", "@" + v + "/response.rsp", "-ftime-trace", "-c", root + "/src/k.cu"};
  json db = json::array({{{"directory", root}, {"file", root + "/src/k.cu"}, {"arguments", arguments}}});
  dir.write("repo/build/compile_commands.json", db.dump());
  const auto victim_before = entries(victim.path());
  const auto tree_before = entries(dir.path());

  auto ids = ids_by_file(scan_report("'" + root + "'"));
  CHECK(ids["src/k.cu"].count("TPU101") == 1);
  CHECK(ids["src/k.cu"].count("TPU102") == 1);
  CHECK(ids["model.py"].count("TPU201") == 1);
  CHECK(entries(victim.path()) == victim_before);
  CHECK(entries(dir.path()) == tree_before);
}

TEST_CASE("a tree's compile database that cannot be used is a note, and the rest is analyzed",
          "[e2e][hostile][compile-db]") {
  TempDir dir, outside;
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\n");
  dir.write("repo/k.cu", kKernel);
  for (const std::string bad : {"{ not json", "[{\"file\": 3}]", "{\"entries\": []}"}) {
    INFO(bad);
    dir.write("repo/build/compile_commands.json", bad);
    json report = scan_report("'" + dir.str("repo") + "'");
    auto ids = ids_by_file(report);
    CHECK(ids["model.py"] == std::multiset<std::string>{"TPU201"});
    CHECK(ids["k.cu"].count("TPU101") == 1);
    CHECK(ids["build/compile_commands.json"] == std::multiset<std::string>{"TPU902"});
    CHECK(messages_of(report, "TPU902").find("compile database not used") != std::string::npos);
  }
  // One that links out of the tree is not read.
  fs::remove(dir.str("repo/build/compile_commands.json"));
  outside.write("compile_commands.json", "[]");
  dir.symlink(outside.str("compile_commands.json"), "repo/compile_commands.json");
  auto linked = run_tpulint("scan '" + dir.str("repo") + "' --format json");
  REQUIRE(linked.exit_code == 0);
  CHECK(messages_of(json::parse(linked.out), "TPU902").find("leaves the scanned root") != std::string::npos);
  // The user's own (-p) is the user's to fix: an error.
  outside.write("db/compile_commands.json", "{ not json");
  auto given = run_tpulint("scan '" + dir.str("repo") + "' -p '" + outside.str("db") + "'");
  CHECK(given.exit_code == 2);
  CHECK(given.err.find("not a compile database") != std::string::npos);
}

TEST_CASE("includes outside the tree, of devices, FIFOs and through symlinks are missing headers, never read",
          "[e2e][hostile][includes]") {
  TempDir dir, outside;
  outside.write("secret.h", "#define SECRET 1\n");
  dir.symlink(outside.path(), "repo/src/linked", true);
  REQUIRE(mkfifo(dir.str("repo/src/fifo.h").c_str(), 0600) == 0);
  std::string climb;
  for (int i = 0; i < 20; ++i) climb += "../";
  const std::string secret = outside.str("secret.h");
  dir.write("repo/src/k.cu", "#include \"" + secret + "\"\n#include \"" + climb + "etc/passwd\"\n#include \"/etc/passwd\"\n"
                             "#include </dev/zero>\n#include </dev/urandom>\n#include </dev/stdin>\n"
                             "#include \"fifo.h\"\n#include \"linked/secret.h\"\n" + std::string(kKernel));
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\n");
  json report = scan_report("'" + dir.str("repo") + "' --file-timeout 60");
  auto ids = ids_by_file(report);
  CHECK(ids["src/k.cu"].count("TPU101") == 1);
  CHECK(ids["src/k.cu"].count("TPU903") == 0);
  CHECK(ids["model.py"] == std::multiset<std::string>{"TPU201"});
  CHECK(missing_headers(report, "src/k.cu") ==
        std::vector<std::string>{secret, climb + "etc/passwd", "/etc/passwd", "/dev/zero", "/dev/urandom", "/dev/stdin",
                                 "fifo.h", "linked/secret.h"});
}

TEST_CASE("ignore files that link out of the tree are not read", "[e2e][hostile][symlinks]") {
  TempDir dir, outside;
  outside.write("rules", "*.py\n");
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\n");
  dir.mkdir("repo/.git/info");
  dir.symlink(outside.str("rules"), "repo/.gitignore");
  dir.symlink(outside.str("rules"), "repo/.git/info/exclude");
  auto r = run_tpulint("scan '" + dir.str("repo") + "' --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(ids_by_file(json::parse(r.out))["model.py"] == std::multiset<std::string>{"TPU201"});
}

TEST_CASE("a CMake glob does not walk through a directory symlink", "[e2e][hostile][symlinks]") {
  TempDir dir, outside;
  outside.write("deep/k.cu", kKernel);
  for (const bool linked : {false, true}) {
    INFO("linked: " << linked);
    TempDir tree;
    if (linked)
      tree.symlink(outside.path(), "sources", true);
    else
      tree.write("sources/deep/k.cu", kKernel);
    tree.write("CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX)\n"
                                 "file(GLOB_RECURSE SRCS ${CMAKE_CURRENT_SOURCE_DIR}/sources/*.cu)\n"
                                 "add_library(ext SHARED ${SRCS})\n");
    auto r = run_tpulint("scan '" + tree.str() + "' --format json --select TPU118");
    REQUIRE(r.exit_code == 0);
    // Through the link, the glob is left unknown: no CUDA source is known, so no finding.
    CHECK(ids_by_file(json::parse(r.out))["CMakeLists.txt"].count("TPU118") == (linked ? 0 : 1));
  }
}

TEST_CASE("diff mode runs no filter, driver or program of the repository's, and its settings hide nothing",
          "[e2e][hostile][diff]") {
  TempDir dir;
  const std::string repo = dir.str("repo");
  std::string git = "git -C '" + repo + "' -c user.name=t -c user.email=t@example.com ";
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\n");
  REQUIRE(std::system((git + "init -q && " + git + "add model.py && " + git + "commit -q -m base").c_str()) == 0);
  const std::string marker = dir.str("ran");
  std::ofstream(dir.str("repo/.git/config"), std::ios::app)
      << "[filter \"evil\"]\n\tclean = touch " << marker << "-clean; cat\n\tsmudge = touch " << marker
      << "-smudge; cat\n\tprocess = touch " << marker << "-process\n\trequired = true\n"
      << "[diff]\n\tmnemonicPrefix = true\n\tnoprefix = true\n\texternal = touch " << marker << "-external\n"
      << "[core]\n\tfsmonitor = touch " << marker << "-fsmonitor\n";
  dir.write("repo/.gitattributes", "*.py filter=evil\n");
  // The repository's own git and tar, which an empty element of PATH would name.
  for (const std::string tool : {"git", "tar"}) {
    dir.write("repo/" + tool, "#!/bin/sh\ntouch " + marker + "-" + tool + "\nexit 1\n");
    fs::permissions(dir.str("repo/" + tool), fs::perms::owner_all);
  }
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\nz = torch.unique(x)\n");
  json report = scan_report("'" + repo + "' --diff HEAD --diff-score", "PATH=\":$PATH\"");
  std::vector<std::string> found;
  for (const json& f : report.at("findings")) found.push_back(f.at("path").get<std::string>() + ":" + std::to_string(f.at("line").get<int>()));
  CHECK(found == std::vector<std::string>{"model.py:3"});
  for (const char* what : {"-clean", "-smudge", "-process", "-external", "-fsmonitor", "-git", "-tar"}) {
    INFO(what);
    CHECK_FALSE(fs::exists(marker + what));
  }
}

TEST_CASE("a memory bomb costs its file a note, and the other files are analyzed", "[e2e][hostile][memory]") {
  TempDir dir;
  // Each macro expands to ten of the one before: the last to 10^9 tokens.
  std::string bomb = "#define A0 x x x x x x x x x x\n";
  for (int i = 1; i <= 9; ++i) {
    bomb += "#define A" + std::to_string(i) + " ";
    for (int k = 0; k < 10; ++k) bomb += "A" + std::to_string(i - 1) + " ";
    bomb += "\n";
  }
  bomb += "__device__ int y[] = {A9};\n";  // device code: parsed (a host file is read in its tokens)
  dir.write("bomb.cu", bomb);
  dir.write("k.cu", kKernel);
  dir.write("model.py", "import torch\nx = torch.nonzero(y)\n");
  json report = scan_report("'" + dir.str() + "' --jobs 2 --max-worker-memory 400 --file-timeout 300");
  auto ids = ids_by_file(report);
  CHECK(ids["bomb.cu"] == std::multiset<std::string>{"TPU903"});
  CHECK(messages_of(report, "TPU903").find("--max-worker-memory (400 MB)") != std::string::npos);
  CHECK(ids["k.cu"].count("TPU101") == 1);
  CHECK(ids["model.py"] == std::multiset<std::string>{"TPU201"});
}

TEST_CASE("Clang's debug pragmas write nothing to tpulint's output", "[e2e][hostile]") {
  if (tpulint::kAddressSanitizer) return;  // sanitizer builds keep the workers' standard error for their reports
  TempDir dir;
  dir.write("k.cu", "#define X \"\\x1b]0;forged title\\x07\"\n#pragma clang __debug macro X\n"
                    "#pragma clang __debug dump X\n" + std::string(kKernel));
  auto r = run_tpulint("scan '" + dir.str() + "' --format json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(ids_by_file(json::parse(r.out))["k.cu"].count("TPU101") == 1);
}

TEST_CASE("a small address-space limit degrades instead of aborting", "[e2e][hostile][memory]") {
  if (tpulint::kAddressSanitizer) return;  // the sanitizers reserve terabytes of address space
  TempDir dir;
  dir.write("model.py", "import torch\nx = torch.nonzero(y)\n");
  auto version = run_tpulint("--version", TPULINT_SOURCE_DIR, "ulimit -v 200000;");
  CHECK(version.exit_code == 0);
  CHECK(version.out.starts_with("tpulint "));
  CHECK(ids_by_file(scan_report("'" + dir.str() + "'", "ulimit -v 300000;"))["model.py"] ==
        std::multiset<std::string>{"TPU201"});
}

TEST_CASE("a configuration found in the tree is read through no symlink and names nothing outside it",
          "[e2e][hostile][config]") {
  TempDir dir, outside;
  outside.write("pyproject.toml", "[tool.tpulint]\nexclude = [\"*.py\"]\n");
  dir.write("repo/model.py", "import torch\nx = torch.nonzero(y)\n");
  dir.symlink(outside.str("pyproject.toml"), "repo/pyproject.toml");
  auto linked = run_tpulint("scan '" + dir.str("repo") + "'");
  CHECK(linked.exit_code == 2);
  CHECK(linked.err.find("a symbolic link, which tpulint does not follow") != std::string::npos);
  // The user's own, named with --config, is followed.
  // Its exclude of every .py file applies: nothing is left to analyze (exit 2, said so).
  auto named = run_tpulint("scan '" + dir.str("repo") + "' --config '" + dir.str("repo/pyproject.toml") + "' --format json");
  CHECK(named.exit_code == 2);
  CHECK(named.err.find("no file was analyzed") != std::string::npos);

  fs::remove(dir.str("repo/pyproject.toml"));
  outside.write("build/compile_commands.json", "[]");
  dir.write("repo/.tpulint.toml", "compile-commands = \"" + outside.str("build") + "\"\n");
  auto far = run_tpulint("scan '" + dir.str("repo") + "'");
  CHECK(far.exit_code == 2);
  CHECK(far.err.find("is outside the project") != std::string::npos);
}
