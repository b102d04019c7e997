// Headers parsed together (ClangFrontend::parse_together): each header's facts are those it has
// parsed alone, and headers parsed alike do share one parse.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "cxx/clang_frontend.h"
#include "cxx_facts_text.h"
#include "temp_dir.h"

using namespace tpulint;
using namespace tpulint::cxx;
using tpulint::testing::facts_text;
using tpulint::testing::parse_all;
using tpulint::testing::source;
using tpulint::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// Headers of one directory as a project has them: a common header the others include, one
// header included by another, two with the same include guard (the second is never entered
// after the first), one with no guard, device-only code, a missing torch header, inactive
// branches, a macro one header defines and uses.
const std::pair<std::string, std::string> kHeaders[] = {
    {"inc/common.h", R"(#pragma once
#include <vector>
#define CHECK_CUDA(call) do { cudaError_t e = (call); (void)e; } while (0)
template <typename T> __global__ void fill_kernel(T* p, T v, int n);
namespace proj { inline int blocks(int n) { return (n + 255) / 256; } }
)"},
    {"inc/fill.h", R"(#ifndef PROJ_FILL_H
#define PROJ_FILL_H
#include "common.h"
#include <algorithm>
template <typename T>
__global__ void fill_kernel(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
inline void fill(float* p, int n) {
  fill_kernel<float><<<proj::blocks(n), 256>>>(p, 1.0f, n);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<int> v(4);
  std::sort(v.begin(), v.end());
}
#endif
)"},
    {"inc/uses_fill.h", R"(#pragma once
#include "fill.h"
#include <cstdint>
inline void twice(float* p, int n) {
  fill(p, n);
  asm volatile("membar.gl;");
#if 0
  cudaMemset(p, 0, n);
#endif
  cudaMemcpy(p, p, n, cudaMemcpyDeviceToDevice);
}
)"},
    {"inc/guard_one.h", "#ifndef SHARED_GUARD\n#define SHARED_GUARD\ninline int one() { return cudaGetLastError(); }\n#endif\n"},
    {"inc/guard_two.h", "#ifndef SHARED_GUARD\n#define SHARED_GUARD\ninline int two() { return cudaDeviceReset(); }\n#endif\n"},
    {"inc/loose.h", "inline int loose_counter() { static int n = 0; return cudaFree(nullptr) + ++n; }\n"},
    {"inc/arch.cuh", R"(#pragma once
__device__ inline float fast(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __expf(x);
#else
  return x;
#endif
}
)"},
    {"inc/arch_two.cuh", R"(#pragma once
#include "arch.cuh"
__global__ void apply(float* x) {
#ifdef __CUDA_ARCH__
  x[threadIdx.x] = fast(x[threadIdx.x]);
#endif
}
)"},
    {"inc/torch_ext.h", R"(#pragma once
#include <torch/extension.h>
inline at::Tensor twice(at::Tensor x) { return x.cuda() * 2; }
)"},
    {"inc/plain.hpp", "#pragma once\n#include <map>\n#include <string>\nnamespace proj { inline std::map<std::string, int> names() { return {{\"a\", 1}}; } }\n"},
    {"inc/defines.h", "#pragma once\n#define PROJ_KERNEL __global__\nPROJ_KERNEL void via_macro(int* x) { x[0] = 1; }\n"},
    // A header calling a function that only a sibling header declares.
    {"inc/uses_blocks.h", "#pragma once\ninline int nblocks(int n) { return proj::blocks(n) + cudaGetLastError(); }\n"},
    // A header calling, in a template, a name that only a sibling header declares (overloaded).
    {"inc/overloads.h", "#pragma once\ninline float scale(float x) { return 2 * x; }\ninline int scale(int x) { return 2 * x; }\n"},
    {"inc/uses_overloads.h", "#pragma once\ntemplate <typename T> T twice_scaled(T x) { return scale(scale(x)); }\n"},
    // Two headers of a directory that each define the same names, never included together.
    {"inc/point_one.cuh", "#pragma once\nstruct Point { float x, y; __device__ Point(float a, float b) : x(a), y(b) {} };\n"
                          "template <typename T> struct Add { __device__ T operator()(T a, T b) const { return a + b; } };\n"},
    {"inc/point_two.cuh", "#pragma once\nstruct Point { double x, y; __device__ Point(double a, double b) : x(a), y(b) {} };\n"
                          "template <typename T> struct Add { __device__ T operator()(T a, T b) const { return a + b; } };\n"},
};

}  // namespace

TEST_CASE("headers parsed together have the facts each has alone", "[cxx][batch]") {
  TempDir dir;
  std::vector<SourceFile> headers;
  for (const auto& [rel, text] : kHeaders) {
    dir.write(rel, text);
    headers.push_back(source(dir.path(), rel, text));
  }
  ClangFrontend alone(parse_all());
  ClangFrontend together(parse_all());
  std::vector<NativeFile> batch = together.parse_together(headers);
  REQUIRE(batch.size() == headers.size());
  std::map<std::string, bool> shared;
  for (size_t i = 0; i < headers.size(); ++i) {
    CAPTURE(headers[i].path());
    NativeFile reference = alone.parse(headers[i]);
    CHECK_FALSE(reference.parsed_together);
    CHECK(facts_text(batch[i]) == facts_text(reference));
    shared[headers[i].path()] = batch[i].parsed_together;
  }
  // The plain C++ and CUDA headers share parses; each device-pass header shares one with the
  // other; the torch header has flags of its own; the second header of a shared include guard was
  // never entered and was parsed alone.
  for (const char* rel : {"inc/common.h", "inc/fill.h", "inc/uses_fill.h", "inc/guard_one.h", "inc/loose.h",
                          "inc/plain.hpp", "inc/defines.h", "inc/arch.cuh", "inc/arch_two.cuh"}) {
    CAPTURE(rel);
    CHECK(shared[rel]);
  }
  CHECK(shared["inc/point_one.cuh"]);
  CHECK_FALSE(shared["inc/point_two.cuh"]);
  CHECK_FALSE(shared["inc/guard_two.h"]);
  CHECK(shared["inc/overloads.h"]);
  CHECK_FALSE(shared["inc/uses_overloads.h"]);
  CHECK_FALSE(shared["inc/uses_blocks.h"]);
  CHECK_FALSE(shared["inc/torch_ext.h"]);
  // The facts came from the parses: kernels, launches and calls of the headers.
  CHECK(facts_text(batch[1]).find("launch fill_kernel") != std::string::npos);
  CHECK(facts_text(batch[2]).find("call cudaMemcpy") != std::string::npos);
}

// Every C/C++/CUDA fixture, a directory at a time, each as a header (`a.cu` as `a.cu.cuh`, `a.cpp`
// as `a.cpp.h`): more than a scan puts in one parse, and files that define the same names.
TEST_CASE("the fixtures read as headers, a directory at a time, have the facts each has alone", "[cxx][batch]") {
  const fs::path fixtures = fs::path(TPULINT_SOURCE_DIR) / "fixtures";
  TempDir dir;
  std::map<std::string, std::vector<SourceFile>> by_directory;
  for (const auto& e : fs::recursive_directory_iterator(fixtures)) {
    std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".h" && ext != ".cuh" && ext != ".hpp" && ext != ".cu" && ext != ".cpp")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::path rel = fs::relative(e.path(), fixtures);
    if (ext == ".cu" || ext == ".cpp") rel += ext == ".cu" ? ".cuh" : ".h";  // beside a header of its name
    dir.write(rel.generic_string(), text);
    by_directory[rel.parent_path().string()].push_back(source(dir.path(), rel.generic_string(), std::move(text)));
  }
  size_t headers = 0, shared = 0;
  ClangFrontend alone(parse_all());
  ClangFrontend together(parse_all());
  for (auto& [directory, files] : by_directory) {
    std::sort(files.begin(), files.end(), [](const SourceFile& a, const SourceFile& b) { return a.path() < b.path(); });
    std::vector<NativeFile> batch = together.parse_together(files);
    REQUIRE(batch.size() == files.size());
    for (size_t i = 0; i < files.size(); ++i) {
      CAPTURE(files[i].path());
      CHECK(facts_text(batch[i]) == facts_text(alone.parse(files[i])));
      ++headers;
      shared += batch[i].parsed_together;
    }
  }
  CHECK(headers >= 30);
  CHECK(shared >= 20);
}
