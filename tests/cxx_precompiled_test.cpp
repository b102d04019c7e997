// Precompiled headers (ClangFrontendOptions::precompile_standard_library, precompile_preambles):
// a file parsed with them has the facts it has without them, and a parser builds one only for a
// set of standard headers it meets a second time, or a file's opening #include lines it meets a
// third time (the parses before go without).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cxx/clang_frontend.h"
#include "cxx/project_headers.h"
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

// Files like real extension code: standard headers beside missing torch and CUDA headers, a
// device pass (__CUDA_ARCH__), a macro set before a standard header, and standard names used.
const std::pair<std::string, std::string> kFiles[] = {
    {"ops/scale.cu", R"(#include <torch/extension.h>
#include <cuda_runtime.h>
#include <vector>
#include <algorithm>
#include <cmath>
template <typename T>
__global__ void scale_kernel(T* x, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (i < n) x[i] = static_cast<T>(std::fmin(x[i] * s, 1e6f));
#else
  if (i < n) x[i] = x[i] * s;
#endif
}
std::vector<at::Tensor> scale(at::Tensor x, float s) {
  std::vector<int> sizes(4);
  std::sort(sizes.begin(), sizes.end());
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  scale_kernel<float><<<(x.numel() + 255) / 256, 256, 0, stream>>>(x.data_ptr<float>(), s, x.numel());
  cudaMemcpyAsync(nullptr, nullptr, 0, cudaMemcpyDeviceToHost, stream);
  return {x};
}
)"},
    {"ops/util.cpp", R"(#define _USE_MATH_DEFINES
#include <cmath>
#include <map>
#include <string>
#include <memory>
#include "missing_local.h"
namespace ops {
std::map<std::string, std::unique_ptr<int>> registry;
double angle(double x) { return M_PI * x + std::sqrt(x); }
void record(const std::string& name) { registry.emplace(name, std::make_unique<int>(1)); undeclared_helper(name); }
}  // namespace ops
)"},
    // A project's common header, included first by files that launch its kernel and use its
    // macros and types, and a header of its own analyzed as a file (an include guard).
    {"proj/common.h", R"(#pragma once
#include <vector>
#include <cstdint>
#define CHECK_CUDA(call) do { cudaError_t e = (call); (void)e; } while (0)
template <typename T>
__global__ void fill_kernel(T* p, T v, int n);
namespace proj {
struct Config { int n = 0; std::vector<float> weights; };
inline int blocks(int n) { return (n + 255) / 256; }
}  // namespace proj
)"},
    {"proj/fill.cu", R"(// Fills a buffer.
#include "common.h"
#include <cuda_runtime.h>
#include <algorithm>
template <typename T>
__global__ void fill_kernel(T* p, T v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v;
}
void fill(float* p, const proj::Config& c) {
  fill_kernel<float><<<proj::blocks(c.n), 256>>>(p, 1.0f, c.n);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> w = c.weights;
  std::sort(w.begin(), w.end());
}
)"},
    {"proj/fill_half.cu", R"(#include "common.h"
#include <cuda_runtime.h>
void fill_half(float* p, const proj::Config& c) {
  fill_kernel<float><<<proj::blocks(c.n), 256>>>(p, 0.5f, c.n);
  CHECK_CUDA(cudaMemset(p, 0, c.n));
}
)"},
    {"proj/inner.h", R"(#ifndef PROJ_INNER_H
#define PROJ_INNER_H
#include "common.h"
#include <vector>
namespace proj {
inline std::vector<int> sizes(const Config& c) { return std::vector<int>(c.n, blocks(c.n)); }
}  // namespace proj
#endif
)"},
    {"proj/unguarded.h", "int unguarded_counter = 0;\n"},
    {"proj/uses_unguarded.cpp", "#include \"common.h\"\n#include \"unguarded.h\"\nint next() { return ++unguarded_counter + proj::blocks(3); }\n"},
    {"ops/plain.c", "#include <stdio.h>\n#include <string.h>\nint f(const char* s) { printf(\"%s\", s); return (int)strlen(s); }\n"},
};

}  // namespace

TEST_CASE("the precompiled standard library changes no fact of a parse", "[cxx][precompiled]") {
  TempDir dir;
  std::vector<SourceFile> files;
  for (const auto& [rel, text] : kFiles) {
    dir.write(rel, text);
    files.push_back(source(dir.path(), rel, text));
  }
  const fs::path fixtures = fs::path(TPULINT_SOURCE_DIR) / "fixtures";
  for (const auto& e : fs::recursive_directory_iterator(fixtures)) {
    std::string ext = e.path().extension().string();
    if (!e.is_regular_file() || (ext != ".cu" && ext != ".cuh" && ext != ".cpp" && ext != ".h" && ext != ".c")) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    files.push_back(source(fixtures, fs::relative(e.path(), fixtures).generic_string(), std::move(text)));
  }
  REQUIRE(files.size() > 20);

  ClangFrontendOptions without;
  without.precompile_standard_library = false;
  without.precompile_preambles = false;
  ClangFrontend plain(without);
  ClangFrontendOptions standard_only;
  standard_only.precompile_preambles = false;
  ClangFrontend standard(standard_only);
  ClangFrontend both({});
  size_t precompiled_standard = 0, precompiled_preamble = 0;
  for (const SourceFile& file : files) {
    CAPTURE(file.path());
    NativeFile reference = plain.parse(file);
    CHECK_FALSE(reference.precompiled_standard_headers);
    CHECK_FALSE(reference.precompiled_preamble);
    for (ClangFrontend* frontend : {&standard, &both}) {
      // The same headers again and again: precompiled from the second or the third parse on.
      for (int parse = 0; parse < 3; ++parse) {
        NativeFile again = frontend->parse(file);
        CHECK(facts_text(again) == facts_text(reference));
        CHECK_FALSE((again.precompiled_standard_headers && again.precompiled_preamble));
        if (parse < 2) continue;
        precompiled_standard += again.precompiled_standard_headers;
        precompiled_preamble += again.precompiled_preamble;
      }
    }
  }
  // The C++ and CUDA files above, and the fixtures that include standard or project headers.
  CHECK(precompiled_standard >= 4);
  CHECK(precompiled_preamble >= 6);
}

TEST_CASE("a file with no standard header, or a C file, is never parsed with precompiled headers", "[cxx][precompiled]") {
  TempDir dir;
  ClangFrontend frontend(parse_all());
  for (const auto& [rel, text] : std::vector<std::pair<std::string, std::string>>{
           {"a.cpp", "#include \"local.h\"\nint f() { return 1; }\n"},
           {"b.c", "#include <stdio.h>\nint g(void) { return puts(\"x\"); }\n"}}) {
    dir.write(rel, text);
    SourceFile file = source(dir.path(), rel, text);
    for (int i = 0; i < 3; ++i) CHECK_FALSE(frontend.parse(file).precompiled_standard_headers);
  }
}

TEST_CASE("a parser precompiles a set of standard headers when it meets it a second time", "[cxx][precompiled]") {
  TempDir dir;
  ClangFrontendOptions standard_only = parse_all();
  standard_only.precompile_preambles = false;
  ClangFrontend frontend(standard_only);
  const std::string text = "#include <vector>\n#include <string>\nstd::vector<std::string> names() { return {\"a\"}; }\n";
  dir.write("a.cpp", text);
  dir.write("b.cpp", text);
  CHECK_FALSE(frontend.parse(source(dir.path(), "a.cpp", text)).precompiled_standard_headers);
  CHECK(frontend.parse(source(dir.path(), "b.cpp", text)).precompiled_standard_headers);
  // Another set is another precompiled library.
  const std::string other = "#include <vector>\nstd::vector<int> sizes();\n";
  dir.write("c.cpp", other);
  CHECK_FALSE(frontend.parse(source(dir.path(), "c.cpp", other)).precompiled_standard_headers);
}

TEST_CASE("a parser precompiles opening #include lines it meets a third time, and loads the longest run built", "[cxx][precompiled]") {
  TempDir dir;
  dir.write("lib/common.h", "#pragma once\n#include <vector>\nnamespace lib { using Sizes = std::vector<int>; }\n");
  dir.write("lib/extra.h", "#ifndef LIB_EXTRA_H\n#define LIB_EXTRA_H\n#include <string>\nnamespace lib { using Name = std::string; }\n#endif\n");
  dir.write("lib/loose.h", "namespace lib { inline int loose() { return 1; } }\n");
  ClangFrontend frontend(parse_all());
  auto parse = [&](const std::string& rel, const std::string& text) {
    dir.write(rel, text);
    return frontend.parse(source(dir.path(), rel, text));
  };
  const std::string opening = "#include \"lib/common.h\"\n#include \"lib/extra.h\"\n";
  CHECK_FALSE(parse("a.cpp", opening + "lib::Sizes a();\n").precompiled_preamble);
  CHECK_FALSE(parse("b.cpp", "// b\n" + opening + "lib::Name b();\n").precompiled_preamble);
  NativeFile third = parse("c.cpp", opening + "lib::Name c();\n");
  CHECK(third.precompiled_preamble);
  CHECK_FALSE(third.precompiled_standard_headers);
  // A longer run beginning with a run built: that run is loaded, the rest read.
  CHECK(parse("c2.cpp", opening + "#include <map>\nstd::map<int, lib::Name> c2();\n").precompiled_preamble);
  // A header with no include guard is read as the file reads it: nothing before it is shared
  // here, so nothing is precompiled.
  const std::string loose = "#include \"lib/loose.h\"\n#include \"lib/common.h\"\nint d() { return lib::loose(); }\n";
  for (const char* name : {"d.cpp", "e.cpp", "f.cpp"}) CHECK_FALSE(parse(name, loose).precompiled_preamble);
  // A file that a header of its own preamble includes back is never preceded by it.
  dir.write("cycle/back.h", "#pragma once\n#include \"self.h\"\n");
  const std::string self = "#ifndef SELF_H\n#define SELF_H\n#include \"back.h\"\nstruct Self {};\n#endif\n";
  dir.write("cycle/self.h", self);
  for (int i = 0; i < 4; ++i) CHECK_FALSE(frontend.parse(source(dir.path(), "cycle/self.h", self)).precompiled_preamble);
  // The preamble of a file analyzed as a header (an include guard first) is its includes.
  const std::string header = "#ifndef H1\n#define H1\n" + opening + "lib::Sizes h();\n#endif\n";
  CHECK(parse("h1.h", header).precompiled_preamble);
}

TEST_CASE("the opening #include lines of a text", "[cxx][precompiled]") {
  auto paths = [](std::string_view text) {
    std::vector<std::string> out;
    for (const SpelledInclude& inc : leading_includes(text)) out.push_back((inc.quoted ? "q:" : "a:") + inc.path);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(paths("// c\n/* a\n block */\n#pragma once\n#include \"a.h\"\n  #  include <b>  // x\nint x;\n#include <c>\n") ==
        V{"q:a.h", "a:b"});
  CHECK(paths("#ifndef G\n#define G\n#include <a>\n#endif\n") == V{"a:a"});
  CHECK(paths("#ifndef G\n#include <a>\n").empty());          // a condition, not a guard
  CHECK(paths("#include <a>\n#define X 1\n#include <b>\n") == V{"a:a"});
  CHECK(paths("#include <a>\n#if X\n#include <b>\n#endif\n") == V{"a:a"});
  CHECK(paths("#include MACRO\n#include <b>\n").empty());
  CHECK(paths("#include <a> /* one\n two */\n#include <b>\n") == V{"a:a", "a:b"});
  CHECK(has_include_guard("// x\n#pragma once\nint a;\n"));
  CHECK(has_include_guard("/* x */\n#ifndef A_H\n#define A_H\n#endif\n"));
  CHECK_FALSE(has_include_guard("#ifndef A_H\n#define B_H\n#endif\n"));
  CHECK_FALSE(has_include_guard("#include <a>\n#pragma once\n"));
  CHECK_FALSE(has_include_guard("int a;\n"));
}

TEST_CASE("a preamble holds at most 48 opening #include lines", "[cxx][precompiled]") {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) {
    dir.write("h" + std::to_string(i) + ".h", "#pragma once\nint v" + std::to_string(i) + ";\n");
    text += "#include \"h" + std::to_string(i) + ".h\"\n";
  }
  text += "int main_file;\n";
  dir.write("a.cpp", text);
  HeaderResolution r = resolve_project_headers(source(dir.path(), "a.cpp", text), SourceTree(dir.path()));
  CHECK(r.preamble.size() == 48);
  CHECK(r.preamble.front().path == "h0.h");
  // Fewer lines than that are all of it.
  const std::string few = "#include \"h1.h\"\n#include \"h2.h\"\nint f;\n";
  dir.write("b.cpp", few);
  CHECK(resolve_project_headers(source(dir.path(), "b.cpp", few), SourceTree(dir.path())).preamble.size() == 2);
}
