// The Clang frontend is a module loaded at first use (libtpulint_clang.so): a scan with no
// C/C++ file to parse never loads it, and a scan that needs it and cannot load it fails with
// an error that names what was tried, rather than quietly reporting fewer findings.
#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
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
  CHECK(other_library.err.find("not a tpulint C/C++ frontend module") != std::string::npos);
}

TEST_CASE("C/C++ results answered by the cache need no Clang module", "[e2e][clang-module]") {
  TempDir dir;
  write_tree(dir);
  TempDir cache;
  std::string scan = "scan '" + dir.str() + "' --format json --cache-dir '" + cache.str() + "'";
  auto cold = run_tpulint(scan);
  INFO(cold.err);
  REQUIRE(cold.exit_code == 0);
  CHECK(finding_ids(cold.out) == std::vector<std::string>{"TPU101", "TPU201"});
  auto cached = run_tpulint(scan, TPULINT_SOURCE_DIR, kMissingModule);
  INFO(cached.err);
  CHECK(cached.exit_code == 0);
  CHECK(cached.out == cold.out);
}
