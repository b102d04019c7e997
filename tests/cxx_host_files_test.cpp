// Files with no device code whose preprocessor conditions need none of their headers (extension
// bindings, host wrappers, a library's C++ API) are read in their tokens, not parsed: the facts of
// a parse but for its host function definitions for the files that qualify, and a parse for the
// files that do not.
#include <catch2/catch.hpp>

#include "cxx/clang_frontend.h"
#include "cxx_facts_text.h"
#include "temp_dir.h"

using namespace tpulint;
using namespace tpulint::cxx;
using tpulint::testing::facts_text;
using tpulint::testing::source;
using tpulint::testing::TempDir;

namespace {

// A parse's facts less its host function definitions, which a reading in tokens does not list
// (NativeFile::functions): each call's enclosing function goes with them.
NativeFile without_host_functions(NativeFile f) {
  std::erase_if(f.functions, [](const FunctionFact& fn) { return !fn.is_kernel && !fn.is_device; });
  for (CallFact& c : f.calls) c.function.clear();
  return f;
}

const std::pair<std::string, std::string> kHeaders[] = {
    {"include/check.h",
     "#ifndef CHECK_H\n#define CHECK_H\n#include <cstdio>\n"
     "#define CHECK_CUDA(expr) do { cudaError_t e = (expr); if (e) std::printf(\"%s\", cudaGetErrorString(e)); } while (0)\n"
     "#define HOST_DEVICE __host__ __device__\n#define CONFIGURED 1\n"
     "#define DECL_WRAPPER(name) auto wrap_##name() -> decltype(name())\n"
     "inline void fail(const char* why) { std::puts(why); }\n#endif  // CHECK_H\n"},
};

void write_headers(TempDir& dir) {
  for (const auto& [rel, text] : kHeaders) dir.write(rel, text);
  dir.write("include/big.h", tpulint::testing::slow_header());
}

// An extension's binding (C++) and a host-only .cu, each including a header that takes a parse past
// a 1 ms budget (so a file read in its tokens shows): conditions on
// names the tree never defines, the file's own #defines and names the compiler always sets,
// includes found in the tree, in the standard library and nowhere, calls in macro bodies and in
// inactive branches.
const std::pair<std::string, std::string> kQualifying[] = {
    {"src/binding.cpp",
     "#include <vector>\n#include <torch/extension.h>\n#include \"big.h\"\n#include \"check.h\"\n#include \"absent.h\"\n#include <../../../../../../../../etc/passwd>\n"
     "#define LOCAL_FLAG\n"
     "#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\nvoid sync() { hipDeviceSynchronize(); }\n"
     "#elif defined(LOCAL_FLAG) && !defined(_WIN32)\nvoid sync() { cudaDeviceSynchronize(); }\n"
     "#else\nvoid sync() { cudaThreadSynchronize(); }\n#endif\n"
     "#if 0\nvoid dead() { cudaDeviceReset(); }\n#elif defined __cplusplus && (1 == 1)\n#endif\n"
     "#if !WITH_NCCL\n#define RETRY(x) cudaGetLastError(); x\n#endif\n"
     "torch::Tensor run(torch::Tensor x) {\n  void* p;\n  CHECK_CUDA(cudaMalloc(&p, 16));\n"
     "  auto stream = c10::cuda::getCurrentCUDAStream();\n  thrust::sort(thrust::device, p, p);\n  fail(\"no\");\n"
     "  return x;\n}\nPYBIND11_MODULE(ext, m) { m.def(\"run\", &run); }\n"},
    {"src/host.cu",
     "#include \"big.h\"\n#include \"check.h\"\n#include <cuda_runtime.h>\n"
     "void copy(void* d, const void* s, size_t n, cudaStream_t st) {\n"
     "  CHECK_CUDA(cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToDevice, st));\n"
     "#ifndef NDEBUG\n  CHECK_CUDA(cudaStreamSynchronize(st));\n#endif\n}\n"},
};

}  // namespace

TEST_CASE("a file with no device code has the facts of its parse but its host functions, read in its tokens", "[cxx][frontend]") {
  TempDir dir;
  write_headers(dir);
  ClangFrontend parsing(tpulint::testing::parse_all());
  // A budget no parse of these files meets: a file read in its tokens is never over it.
  ClangFrontend reading({.compile_database = nullptr, .tree_root = {}, .time_budget = std::chrono::milliseconds(1)});
  for (const auto& [rel, text] : kQualifying) {
    CAPTURE(rel);
    dir.write(rel, text);
    const SourceFile file = source(dir.path(), rel, text);
    const NativeFile parsed = parsing.parse(file);
    REQUIRE_FALSE(parsed.calls.empty());
    REQUIRE(parsed.includes.size() >= 1);
    REQUIRE_FALSE(parsed.functions.empty());
    const NativeFile read = reading.parse(file);
    CHECK_FALSE(read.over_budget);
    CHECK(read.functions.empty());
    CHECK(facts_text(read) == facts_text(without_host_functions(parsed)));
    std::vector<SourceFile> batch{file};
    std::vector<NativeFile> together = ClangFrontend({}).parse_together(batch);
    REQUIRE(together.size() == 1);
    CHECK(facts_text(together[0]) == facts_text(without_host_functions(parsed)));
  }
  // What the comparison covers: inactive branches, includes found or not, a macro's calls on its line.
  const NativeFile binding = parsing.parse(source(dir.path(), "src/binding.cpp", kQualifying[0].second));
  auto called = [&](std::string_view name) {
    return std::count_if(binding.calls.begin(), binding.calls.end(), [&](const CallFact& c) { return c.callee == name; });
  };
  CHECK(called("cudaDeviceSynchronize") == 1);
  CHECK(called("hipDeviceSynchronize") == 0);
  CHECK(called("cudaThreadSynchronize") == 0);
  CHECK(called("cudaDeviceReset") == 0);
  CHECK(called("cudaGetLastError") == 1);  // RETRY's body: WITH_NCCL is undefined, so !WITH_NCCL holds
  CHECK(called("cudaGetErrorString") == 0);  // check.h's own
  std::vector<std::string> includes;
  for (const IncludeFact& i : binding.includes)
    includes.push_back(i.spelled + (i.found ? " found" : " missing") + (i.inactive ? " inactive" : "") +
                       (i.resolved.empty() ? "" : " " + i.resolved));
  CHECK(includes == std::vector<std::string>{"vector found", "torch/extension.h missing", "big.h found include/big.h",
                                             "check.h found include/check.h", "absent.h missing",
                                             "../../../../../../../../etc/passwd missing",
                                             "hip/hip_runtime.h found inactive"});
}

TEST_CASE("a file with device code, or a condition its headers may decide, is parsed", "[cxx][frontend]") {
  TempDir dir;
  write_headers(dir);
  const std::string head = "#include \"big.h\"\n#include \"check.h\"\n";
  const std::pair<std::string, std::string> parsed_files[] = {
      {"src/device.cu", head + "__device__ float twice(float x) { return 2 * x; }\n"},
      {"src/launch.cu", head + "void run() { k<<<1, 1>>>(); }\n"},
      {"src/project_macro.cu", head + "HOST_DEVICE float twice(float x) { return 2 * x; }\n"},
      {"src/built_in_macro.cpp", head + "C10_HOST_DEVICE float twice(float x) { return 2 * x; }\n"},
      {"src/constexpr.cu", head + "constexpr int twice(int x) { return 2 * x; }\n"},
      {"src/asm.cpp", head + "void pause() { asm volatile(\"pause\"); }\n"},
      {"src/version.cpp", head + "#if CUDA_VERSION >= 11000\nvoid f() { cudaDeviceSynchronize(); }\n#endif\n"},
      {"src/configured.cpp", head + "#ifdef CONFIGURED\nvoid f() { cudaDeviceSynchronize(); }\n#endif\n"},
      {"src/reserved.cpp", head + "#ifdef _OPENMP\nvoid f() { cudaDeviceSynchronize(); }\n#endif\n"},
      {"src/has_include.cpp", head + "#if __has_include(<cuda.h>)\nvoid f() { cuInit(0); }\n#endif\n"},
      {"src/using.cpp", head + "using namespace at::cuda;\nvoid f() { getCurrentCUDAStream(); }\n"},
      {"src/namespace.cpp", head + "namespace at { namespace cuda { int n() { return getNumGPUs(); } } }\n"},
      // Qualified through a namespace that brings in names declared elsewhere: a parse names the
      // declaration's namespace (c10::cuda::getCurrentCUDAStream, at::empty, pybind11::cast).
      {"src/reexport_cuda.cpp", head + "void f() { at::cuda::getCurrentCUDAStream(); }\n"},
      {"src/reexport_torch.cpp", head + "void f() { torch::empty({1}); }\n"},
      {"src/reexport_alias.cpp", head + "void f() { py::cast(1); }\n"},
      {"src/unclosed.cpp", head + "#ifdef NEVER_DEFINED\nvoid f() { cudaDeviceSynchronize(); }\n"},
      // A macro that calls its parameter: the call's name is written where it is used, its '(' in the body.
      {"src/parameter_call.cpp", head + "DECL_WRAPPER(cuInit);\n"},
      {"src/own_parameter_call.cpp", head + "#define LAZY(name) auto lazy_##name() -> decltype(name())\nLAZY(cuInit);\n"},
      {"src/import.cpp", head + "#import \"extra.h\"\n"},
      {"src/include_next.cpp", head + "#include_next <vector>\n"},
  };
  ClangFrontend budgeted({.compile_database = nullptr, .tree_root = {}, .time_budget = std::chrono::milliseconds(1)});
  for (const auto& [rel, text] : parsed_files) {
    CAPTURE(rel);
    dir.write(rel, text);
    // Parsed, so stopped at the budget.
    CHECK(budgeted.parse(source(dir.path(), rel, text)).over_budget);
  }
  // The same file with none of those is read in its tokens.
  const std::string plain = head + "void f() { cudaDeviceSynchronize(); }\n";
  dir.write("src/plain.cpp", plain);
  CHECK_FALSE(budgeted.parse(source(dir.path(), "src/plain.cpp", plain)).over_budget);
}
