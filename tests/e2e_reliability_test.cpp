// Reliability end to end: a frontend that crashes, aborts, throws or hangs on one file costs
// that file only (a TPU903 note), and every other file's findings are intact; a C/C++ file past
// its time budget is analyzed in its tokens (a TPU906 note).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

using nlohmann::json;
using tpulint::testing::run_program;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

// Per file: the IDs of its findings, and the message of its TPU903 note if any.
struct FileView {
  std::vector<std::string> ids;
  std::string failure;
};

std::map<std::string, FileView> by_file(const std::string& out) {
  std::map<std::string, FileView> files;
  const json doc = json::parse(out);  // named: a range-for over a temporary's member would dangle
  for (const json& f : doc.at("findings")) {
    FileView& v = files[f.at("path")];
    v.ids.push_back(f.at("id"));
    if (f.at("id") == "TPU903") v.failure = f.at("message");
  }
  return files;
}

void write_tree(const TempDir& dir, const std::string& fault_marker) {
  dir.write("a_good.py", "import torch\nx = torch.nonzero(y)\n");
  dir.write("b_bad.py", "import torch\n# " + fault_marker + "\nz = torch.unique(w)\n");
  dir.write("c_good.cu", "__global__ void k(float* x) {}\n");
  dir.write("d_bad.cu", "// " + fault_marker + "\n__global__ void k2(float* x) {}\n");
  dir.write("e_good.py", "import torch\nm = model.cuda()\n");
}

}  // namespace

TEST_CASE("a crash, an abort or an exception in a frontend costs only that file", "[e2e][reliability]") {
  for (std::string marker : {"TPULINT_FAULT_CRASH", "TPULINT_FAULT_ABORT", "TPULINT_FAULT_THROW"}) {
    INFO(marker);
    TempDir dir;
    write_tree(dir, marker);
    for (std::string jobs : {"1", "2"}) {
      auto r = run_program(TPULINT_FAULT_INJECTING_BINARY, "scan '" + dir.str() + "' --format json --jobs " + jobs,
                           TPULINT_SOURCE_DIR, "TPULINT_FAULT_INJECTION=1");
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      auto files = by_file(r.out);
      CHECK(files["a_good.py"].ids == std::vector<std::string>{"TPU201"});
      CHECK(files["c_good.cu"].ids == std::vector<std::string>{"TPU101"});
      CHECK(files["e_good.py"].ids == std::vector<std::string>{"TPU401"});
      CHECK(files["b_bad.py"].ids == std::vector<std::string>{"TPU903"});
      CHECK(files["d_bad.cu"].ids == std::vector<std::string>{"TPU903"});
      if (marker == "TPULINT_FAULT_CRASH") CHECK(files["b_bad.py"].failure.find("crashed (signal 11") != std::string::npos);
      if (marker == "TPULINT_FAULT_ABORT") CHECK(files["b_bad.py"].failure.find("crashed (signal 6") != std::string::npos);
      if (marker == "TPULINT_FAULT_THROW") CHECK(files["b_bad.py"].failure.find("injected fault") != std::string::npos);
    }
  }
}

// Headers of one directory share a parse (a batch): a fault in one costs that header only, as the
// batch is analyzed again one header at a time.
TEST_CASE("a crash, an abort or an exception in a batch of headers costs only that header", "[e2e][reliability]") {
  for (std::string marker : {"TPULINT_FAULT_CRASH", "TPULINT_FAULT_ABORT", "TPULINT_FAULT_THROW"}) {
    INFO(marker);
    TempDir dir;
    dir.write("inc/a_good.cuh", "#pragma once\n__global__ void ka(float* x) {}\n");
    dir.write("inc/b_bad.cuh", "#pragma once\n// " + marker + "\n__global__ void kb(float* x) {}\n");
    dir.write("inc/c_good.cuh", "#pragma once\n#include \"a_good.cuh\"\n__global__ void kc(float* x) {}\n");
    for (std::string jobs : {"1", "2"}) {
      auto r = run_program(TPULINT_FAULT_INJECTING_BINARY, "scan '" + dir.str() + "' --format json --jobs " + jobs,
                           TPULINT_SOURCE_DIR, "TPULINT_FAULT_INJECTION=1");
      INFO(r.err);
      REQUIRE(r.exit_code == 0);
      auto files = by_file(r.out);
      CHECK(files["inc/a_good.cuh"].ids == std::vector<std::string>{"TPU101"});
      CHECK(files["inc/c_good.cuh"].ids == std::vector<std::string>{"TPU101"});
      CHECK(files["inc/b_bad.cuh"].ids == std::vector<std::string>{"TPU903"});
    }
  }
}

TEST_CASE("a file that takes longer than --file-timeout is stopped and reported", "[e2e][reliability]") {
  TempDir dir;
  write_tree(dir, "TPULINT_FAULT_HANG");
  auto start = std::chrono::steady_clock::now();
  auto r = run_program(TPULINT_FAULT_INJECTING_BINARY, "scan '" + dir.str() + "' --format json --jobs 2 --file-timeout 1",
                       TPULINT_SOURCE_DIR, "TPULINT_FAULT_INJECTION=1");
  auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(r.exit_code == 0);
  auto files = by_file(r.out);
  CHECK(files["a_good.py"].ids == std::vector<std::string>{"TPU201"});
  CHECK(files["c_good.cu"].ids == std::vector<std::string>{"TPU101"});
  CHECK(files["b_bad.py"].ids == std::vector<std::string>{"TPU903"});
  CHECK(files["b_bad.py"].failure.find("--file-timeout") != std::string::npos);
  CHECK(files["d_bad.cu"].ids == std::vector<std::string>{"TPU903"});
  CHECK(seconds < 60);  // bounded by the time limit, not by the hang (a generous bound: machines are shared)
}

TEST_CASE("a C/C++ file past --cxx-time-budget keeps its lexical findings, with a TPU906 note", "[e2e][reliability]") {
  TempDir dir;
  std::string big;  // a header with enough to read that a millisecond of CPU runs out
  for (int i = 0; i < 20000; ++i) big += "struct S" + std::to_string(i) + " { int a, b; };\n";
  dir.write("big.h", big);
  dir.write("slow.cu", "#include \"big.h\"\n#include <cublas_v2.h>\n"
                       "__global__ void scale(float* p) { p[threadIdx.x] *= 2; }\n"
                       "void run(float* p) {\n  scale<<<1, 32>>>(p);\n  cudaMalloc(&p, 4);\n}\n");
  auto ids_of = [](const std::string& out) {
    std::map<std::string, std::vector<std::string>> ids;
    const json doc = json::parse(out);
    for (const json& f : doc.at("findings")) ids[f.at("path")].push_back(f.at("id"));
    for (auto& [path, list] : ids) std::sort(list.begin(), list.end());
    return ids;
  };
  auto full = run_tpulint("scan '" + dir.str() + "' --format json --no-cache");
  REQUIRE(full.exit_code == 0);
  auto budget = run_tpulint("scan '" + dir.str() + "' --format json --no-cache --fail-on-unanalyzed --cxx-time-budget 0.001");
  REQUIRE(budget.exit_code == 0);  // degraded, not unanalyzed
  std::vector<std::string> expected = ids_of(full.out)["slow.cu"];
  CHECK_FALSE(std::count(expected.begin(), expected.end(), "TPU906"));
  expected.push_back("TPU906");
  std::sort(expected.begin(), expected.end());
  CHECK(ids_of(budget.out)["slow.cu"] == expected);  // the kernel, its launch, the cuBLAS include, cudaMalloc
  CHECK(json::parse(budget.out).at("files").at("unanalyzed").empty());
  // The configuration's key does the same.
  dir.write(".tpulint.toml", "cxx-time-budget = 0.001\n");
  CHECK(ids_of(run_tpulint("scan '" + dir.str() + "' --format json --no-cache").out)["slow.cu"] == expected);
}

TEST_CASE("without the environment switch, fault markers are ordinary text", "[e2e][reliability]") {
  TempDir dir;
  write_tree(dir, "TPULINT_FAULT_CRASH");
  auto r = run_program(TPULINT_FAULT_INJECTING_BINARY, "scan '" + dir.str() + "' --format json");
  REQUIRE(r.exit_code == 0);
  auto files = by_file(r.out);
  CHECK(files["b_bad.py"].ids == std::vector<std::string>{"TPU201"});
  CHECK(files["d_bad.cu"].ids == std::vector<std::string>{"TPU101"});
}

// Issue 34: the release binary honoured TPULINT_FAULT_INJECTION=1 (the build option defaulted
// on): a scanned file could crash or hang a CI job that happened to have the variable set.
TEST_CASE("the tpulint binary has no fault injection, whatever the environment says", "[e2e][reliability]") {
  for (std::string marker : {"TPULINT_FAULT_CRASH", "TPULINT_FAULT_ABORT", "TPULINT_FAULT_THROW", "TPULINT_FAULT_HANG"}) {
    INFO(marker);
    TempDir dir;
    write_tree(dir, marker);
    auto r = run_tpulint("scan '" + dir.str() + "' --format json --file-timeout 20", TPULINT_SOURCE_DIR,
                         "TPULINT_FAULT_INJECTION=1");
    REQUIRE(r.exit_code == 0);
    auto files = by_file(r.out);
    CHECK(files["b_bad.py"].ids == std::vector<std::string>{"TPU201"});
    CHECK(files["d_bad.cu"].ids == std::vector<std::string>{"TPU101"});
  }
}

TEST_CASE("a scan runs none of the scanned code and leaves the scanned tree as it was", "[e2e][reliability]") {
  TempDir dir;
  // Each of these would leave a file behind if tpulint ran, imported or built it.
  const std::string marker = dir.str("executed");
  dir.write("repo/setup.py", "open('" + marker + "', 'w').write('setup.py ran')\n"
                             "from torch.utils.cpp_extension import CUDAExtension\n"
                             "CUDAExtension('ext._C', ['csrc/k.cu'])\n");
  dir.write("repo/pkg/__init__.py", "open('" + marker + "', 'w').write('imported')\nimport torch\n");
  dir.write("repo/conftest.py", "open('" + marker + "', 'w').write('conftest ran')\n");
  dir.write("repo/CMakeLists.txt", "file(WRITE " + marker + " \"cmake ran\")\n");
  dir.write("repo/Makefile", "all:\n\ttouch " + marker + "\n");
  dir.write("repo/csrc/k.cu", "#include \"k.cuh\"\n__global__ void k(float* x) {}\n");
  dir.write("repo/csrc/k.cuh", "#pragma once\n");
  auto snapshot = [&] {
    std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path())) {
      if (e.is_directory()) {
        files[e.path().string() + "/"] = {"", e.last_write_time()};
        continue;
      }
      std::ifstream in(e.path(), std::ios::binary);
      std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      files[e.path().string()] = {content, std::filesystem::last_write_time(e.path())};
    }
    return files;
  };
  auto before = snapshot();
  // Default options: the result cache lives outside the scanned tree.
  auto r = run_tpulint("scan '" + dir.str("repo") + "' --format json --output sarif='" + dir.str("out.sarif") + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.out).at("findings").size() >= 2);  // the kernel and the extension were analyzed
  CHECK_FALSE(std::filesystem::exists(marker));
  std::filesystem::remove(dir.str("out.sarif"));  // the one file asked for, outside the tree
  CHECK(snapshot() == before);
}
