// The Clang frontend is a module loaded at first use (libtpulint_clang.so): a scan with no
// C/C++ file to parse never loads it, and a scan that needs it and cannot load it fails with
// an error that names what was tried, rather than quietly reporting fewer findings.
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

const std::string kMissingModule = "TPULINT_CLANG_MODULE=/nonexistent/libtpulint_clang.so";

std::vector<std::string> finding_ids(const std::string& out) {
  const json doc = json::parse(out);
  std::vector<std::string> ids;
  for (const json& f : doc.at("findings")) ids.push_back(f.at("id"));
  std::sort(ids.begin(), ids.end());
  return ids;
}

void write_tree(const TempDir& dir) {
  dir.write("model.py", "import torch\nx = torch.nonzero(y)\n");
  dir.write("kernel.cu", "__global__ void k(float* x) {}\n");
  // Older than the cache's "recently modified" window, so that a second scan is answered by it.
  auto old = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  for (const char* name : {"model.py", "kernel.cu"}) std::filesystem::last_write_time(dir.path() / name, old);
}

// A copy of the built module, that a test may alter, and the environment that makes tpulint use it.
struct ModuleCopy {
  TempDir dir;
  std::filesystem::path path = dir.path() / "libtpulint_clang.so";
  std::string env = "TPULINT_CLANG_MODULE='" + path.string() + "'";
  ModuleCopy() {
    std::filesystem::copy_file(std::filesystem::path(TPULINT_BINARY).parent_path() / "libtpulint_clang.so", path);
  }
};

// The tree scanned with a result cache and a copy of the module.
struct CachedScan {
  TempDir tree, cache;
  ModuleCopy module;
  CachedScan() { write_tree(tree); }
  tpulint::testing::CommandResult run(const std::string& extra = "") const {
    return run_tpulint("scan '" + tree.str() + "' --format json --cache-dir '" + cache.str() + "' " + extra,
                       TPULINT_SOURCE_DIR, module.env);
  }
};

}  // namespace

TEST_CASE("a scan with no C/C++ file to parse does not load the Clang module", "[e2e][clang-module]") {
  TempDir dir;
  write_tree(dir);
  auto python_only = run_tpulint("scan '" + dir.str("model.py") + "' --format json --no-cache", TPULINT_SOURCE_DIR,
                                 kMissingModule);
  INFO(python_only.err);
  CHECK(python_only.exit_code == 0);
  CHECK(finding_ids(python_only.out) == std::vector<std::string>{"TPU201"});

  auto excluded = run_tpulint("scan '" + dir.str() + "' --format json --no-cache --exclude '*.cu'", TPULINT_SOURCE_DIR,
                              kMissingModule);
  CHECK(excluded.exit_code == 0);
  CHECK(finding_ids(excluded.out) == std::vector<std::string>{"TPU201"});
}

TEST_CASE("a scan that must parse C/C++ without the Clang module fails and says why", "[e2e][clang-module]") {
  TempDir dir;
  write_tree(dir);
  for (std::string jobs : {"1", "2"}) {
    auto r = run_tpulint("scan '" + dir.str() + "' --format json --no-cache --jobs " + jobs, TPULINT_SOURCE_DIR,
                         kMissingModule);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("the C/C++ frontend (libtpulint_clang.so) is not installed") != std::string::npos);
    CHECK(r.err.find("/nonexistent/libtpulint_clang.so") != std::string::npos);
  }
  auto not_a_library = run_tpulint("scan '" + dir.str() + "' --format json --no-cache", TPULINT_SOURCE_DIR,
                                   "TPULINT_CLANG_MODULE='" + dir.str("model.py") + "'");
  CHECK(not_a_library.exit_code == 2);
  CHECK(not_a_library.err.find("cannot load the C/C++ frontend " + dir.str("model.py")) != std::string::npos);
  auto other_library = run_tpulint("scan '" + dir.str() + "' --format json --no-cache", TPULINT_SOURCE_DIR,
                                   "TPULINT_CLANG_MODULE=/lib/x86_64-linux-gnu/libm.so.6");
  CHECK(other_library.exit_code == 2);
  CHECK(other_library.err.find("is not one of this tpulint's (no entry tpulint_clang_module_v2)") != std::string::npos);
}

TEST_CASE("a Clang module built from other sources is refused, though its version is the binary's", "[e2e][clang-module]") {
  TempDir dir;
  write_tree(dir);
  for (std::string jobs : {"1", "2"}) {
    auto r = run_tpulint("scan '" + dir.str() + "' --format json --no-cache --jobs " + jobs, TPULINT_SOURCE_DIR,
                         std::string("TPULINT_CLANG_MODULE='") + TPULINT_MODULE_OF_OTHER_SOURCES + "'");
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("was built from other sources than this tpulint (interface 0000000000000000") != std::string::npos);
  }
  // The module built with the binary is accepted (the interface is the binary's own).
  ModuleCopy same;
  auto ok = run_tpulint("scan '" + dir.str() + "' --format json --no-cache", TPULINT_SOURCE_DIR, same.env);
  INFO(ok.err);
  CHECK(ok.exit_code == 0);
  CHECK(finding_ids(ok.out) == std::vector<std::string>{"TPU101", "TPU201"});
}

TEST_CASE("C/C++ results answered by the cache need no Clang module", "[e2e][clang-module]") {
  CachedScan scan;
  auto cold = scan.run();
  INFO(cold.err);
  REQUIRE(cold.exit_code == 0);
  CHECK(finding_ids(cold.out) == std::vector<std::string>{"TPU101", "TPU201"});
  // The module turned to zeros of the same size and time: the same identity for the cache, and
  // a scan that tried to load it would fail.
  const std::filesystem::path& module = scan.module.path;
  const auto size = std::filesystem::file_size(module);
  const auto time = std::filesystem::last_write_time(module);
  std::ofstream(module, std::ios::binary | std::ios::trunc) << std::string(size, '\0');
  std::filesystem::last_write_time(module, time);
  auto cached = scan.run();
  INFO(cached.err);
  CHECK(cached.exit_code == 0);
  CHECK(cached.out == cold.out);
  auto cold_again = scan.run("--no-cache");
  CHECK(cold_again.exit_code == 2);
  CHECK(cold_again.err.find("cannot load the C/C++ frontend " + module.string()) != std::string::npos);
}

TEST_CASE("a rebuilt or reinstalled Clang module invalidates cached results", "[e2e][clang-module]") {
  CachedScan scan;
  auto cache_files = [&] {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(scan.cache.path())) n += e.path().extension() == ".cache";
    return n;
  };
  REQUIRE(scan.run().exit_code == 0);
  REQUIRE(scan.run().exit_code == 0);
  CHECK(cache_files() == 1);  // the same module: the same cache
  const std::filesystem::path& module = scan.module.path;
  std::filesystem::last_write_time(module, std::filesystem::last_write_time(module) - std::chrono::hours(1));
  auto after = scan.run();
  CHECK(after.exit_code == 0);
  CHECK(finding_ids(after.out) == std::vector<std::string>{"TPU101", "TPU201"});
  CHECK(cache_files() == 2);  // another module: results kept apart
}
