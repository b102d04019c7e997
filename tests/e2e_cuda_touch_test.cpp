// End-to-end: CUDA API uses as touch points. A call is a finding, in every preprocessor branch;
// a type, constant, macro or #include of a CUDA API is a line its work item lists, not a finding.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "json_schema.h"

using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

json scan_json(const TempDir& dir, const std::string& options = "") {
  return tpulint::testing::scan_report(dir, "--no-cache " + options);
}

// The lines of `id`'s findings, in order.
std::vector<int> finding_lines(const json& report, const std::string& id) {
  std::vector<int> lines;
  for (const json& f : report.at("findings"))
    if (f.at("id") == id) lines.push_back(f.at("line").get<int>());
  return lines;
}

// The work item named `subject` (null if none).
json item(const json& report, const std::string& subject) {
  for (const json& w : report.at("work_items"))
    if (w.at("subject") == subject) return w;
  return nullptr;
}

// The lines the item lists in `path`.
std::vector<int> touched(const json& w, const std::string& path) {
  if (w.is_null()) return {};
  for (const json& t : w.at("touched"))
    if (t.at("path") == path) return t.at("lines").get<std::vector<int>>();
  return {};
}

}  // namespace

TEST_CASE("CUDA types and constants are lines of their API group's work item, not findings", "[e2e][cxx][touch]") {
  // 200 lines naming `cudaError_t` gave no finding and no trace of them in the report.
  TempDir dir;
  std::string text = "#include <cuda_runtime.h>\nvoid f() {\n";
  for (int i = 0; i < 200; ++i) text += fmt::format("  cudaError_t e{} = cudaSuccess;\n", i);
  text += "  cudaError_t last = cudaGetLastError();\n}\n";
  dir.write("errors.cu", text);
  json report = scan_json(dir);
  CHECK(finding_lines(report, "TPU435") == std::vector<int>{203});
  json runtime = item(report, "CUDA runtime API");
  REQUIRE(!runtime.is_null());
  CHECK(runtime.at("findings") == 0);
  CHECK(runtime.at("checks") == json::array({"TPU435"}));
  std::vector<int> expected = {1};  // the #include
  for (int line = 3; line <= 202; ++line) expected.push_back(line);
  CHECK(touched(runtime, "errors.cu") == expected);
  CHECK(runtime.at("touch_lines") == 201);

  auto text_report = run_tpulint("scan '" + dir.str() + "' --no-cache");
  CHECK(text_report.out.find("the plan also lists 201 lines to touch with no finding of their own") != std::string::npos);
  // Not flooded: the one call, not 200 lines of types.
  CHECK(std::count(text_report.out.begin(), text_report.out.end(), '\n') < 40);
}

TEST_CASE("a CUDA API call in an inactive #if branch is a finding, its other names there are touch lines", "[e2e][cxx][touch]") {
  // Calls in a skipped branch (the `#else` of a version gate, which the shim's new toolkit version
  // leaves out, or `#if 0`) were not found at all.
  TempDir dir;
  dir.write("gated.cu",
            "void copy(float* p, size_t n, cudaStream_t s) {\n"  // 1
            "#if CUDA_VERSION >= 11020\n"                         // 2
            "  cudaMallocAsync(&p, n, s);\n"                      // 3
            "  cudaMemPool_t pool;\n"                             // 4
            "#else\n"                                             // 5
            "  cudaMalloc(&p, n);\n"                              // 6
            "#endif\n"                                            // 7
            "#if 0\n"                                             // 8
            "  cuMemAlloc(&p, n);\n"                              // 9
            "#endif\n"                                            // 10
            "}\n");
  json report = scan_json(dir);
  CHECK(finding_lines(report, "TPU430") == std::vector<int>{3, 6, 9});
  CHECK(touched(item(report, "CUDA memory API"), "gated.cu") == std::vector<int>{4});
  CHECK(touched(item(report, "CUDA stream/event API"), "gated.cu") == std::vector<int>{1});
}

TEST_CASE("a library's types and constants join its work item, each of its calls is a finding", "[e2e][cxx][touch]") {
  // `CUBLAS_OP_T`, `cublasStatus_t` and a second `cublasSgemm` were invisible; cub:: with no
  // include was found on one line only. Every call is a finding (dc3aeaf), a call's continuation
  // line a touch line.
  TempDir dir;
  dir.write("gemm.cu",
            "#include <cublas_v2.h>\n"                                                  // 1
            "cublasStatus_t gemm(cublasHandle_t h, const float* a, float* c, int n) {\n"  // 2
            "  float one = 1;\n"                                                        // 3
            "  cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &one, c, n);\n"  // 4
            "  cublasSgemm(h, CUBLAS_OP_N,\n"                                           // 5
            "              CUBLAS_OP_N, n, n, n, &one, a, n, a, n, &one, c, n);\n"      // 6
            "#ifdef USE_CUB\n"                                                          // 7
            "  cub::DeviceRadixSort::SortKeys(nullptr, n, a, c, n);\n"                  // 8
            "#endif\n"                                                                  // 9
            "  size_t bytes = 0;\n"                                                     // 10
            "  cub::DeviceScan::InclusiveSum(nullptr, bytes, a, c, n);\n"               // 11
            "  return CUBLAS_STATUS_SUCCESS;\n"                                         // 12
            "}\n");
  json report = scan_json(dir);
  CHECK(finding_lines(report, "TPU520") == std::vector<int>{1, 4, 5});
  CHECK(touched(item(report, "cuBLAS/cuBLASLt"), "gemm.cu") == std::vector<int>{2, 6, 12});
  CHECK(finding_lines(report, "TPU528") == std::vector<int>{11});
  CHECK(touched(item(report, "CUB"), "gemm.cu") == std::vector<int>{8});
}

TEST_CASE("a library's type named without its prefix is a line of its work item", "[e2e][cxx][touch]") {
  // cuSPARSE's and cuSOLVER's info types (`csrsv2Info_t`) and `cusolver_int_t` matched no prefix.
  TempDir dir;
  dir.write("sparse.cu", "void f() {\n  csrsv2Info_t info;\n  cusolver_int_t n = 0;\n}\n");
  json report = scan_json(dir);
  CHECK(report.at("findings").empty());
  CHECK(touched(item(report, "cuSPARSE"), "sparse.cu") == std::vector<int>{2});
  CHECK(touched(item(report, "cuSOLVER"), "sparse.cu") == std::vector<int>{3});
}

TEST_CASE("touch lines are the same from the cache, at any --jobs, and in SARIF", "[e2e][cxx][touch]") {
  TempDir dir;
  for (int i = 0; i < 6; ++i)
    dir.write(fmt::format("k{}.cu", i), "#include <cuda_fp16.h>\n__half h;\nvoid f() { cudaDeviceSynchronize(); }\n");
  const std::string scan = "scan '" + dir.str() + "' --format json --exclude cache --cache-dir '" + dir.str("cache") + "'";
  auto cold = run_tpulint(scan + " --jobs 1");
  auto warm = run_tpulint(scan + " --jobs 3");
  REQUIRE(cold.exit_code == 0);
  CHECK(cold.out == warm.out);
  json report = json::parse(cold.out);
  CHECK(item(report, "CUDA runtime API").at("touch_lines") == 12);

  auto sarif = run_tpulint("scan '" + dir.str() + "' --format sarif --no-cache --exclude cache");
  json run = json::parse(sarif.out).at("runs")[0];
  const json& lists = run.at("properties").at("touched_lines");
  REQUIRE(lists.size() == 1);
  CHECK(lists[0].at("subject") == "CUDA runtime API");
  CHECK(lists[0].at("touch_lines") == 12);
  CHECK(lists[0].at("files")[0].at("lines") == json::array({1, 2}));
}
