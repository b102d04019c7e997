// The Clang frontend's facts: kernel metrics, lexical recovery after fatal errors, host and
// device passes, calls with their first argument, macro uses and qualified names; the headers'
// bodies skipped, and the time budget's fallback to the tokens.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "cxx/clang_frontend.h"
#include "cxx_facts_text.h"
#include "temp_dir.h"

using namespace tpulint;
using namespace tpulint::cxx;

namespace {

NativeFile parse(const std::string& text, const std::string& name = "k.cu") {
  auto dir = std::filesystem::temp_directory_path() / "tpulint_cxx_frontend_test";
  std::filesystem::create_directories(dir);
  SourceFile file(name, dir / name,
                  name.ends_with(".cu") ? Language::Cuda : Language::Cxx, text);
  ClangFrontend frontend(tpulint::testing::parse_all());
  return frontend.parse(file);
}

const FunctionFact* function(const NativeFile& f, std::string_view name) {
  auto it = std::find_if(f.functions.begin(), f.functions.end(), [&](const FunctionFact& fn) { return fn.name == name; });
  return it == f.functions.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("kernel metrics count device features in the kernel's tokens", "[cxx][frontend]") {
  NativeFile f = parse(R"(
#include <mma.h>
using namespace nvcuda;
template <typename T>
__global__ void fancy(T* out, int* counter) {
  __shared__ float tile[32][33];
  extern __shared__ float dyn[];
  float v = __shfl_xor_sync(0xffffffff, 1.f, 16);
  unsigned m = __ballot_sync(0xffffffff, v > 0);
  __syncwarp();
  atomicAdd(counter, 1);
  atomicCAS(counter, 0, 1);
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%2}, {%3};" : "=f"(v));
  auto grid = cooperative_groups::this_grid();
  child<<<1, 1>>>(out);
}
__global__ void plain(float* x) { x[0] = 1; }
)");
  const FunctionFact* fancy = function(f, "fancy");
  REQUIRE(fancy);
  CHECK(fancy->is_kernel);
  CHECK(fancy->is_template);
  CHECK(fancy->lines == 13);  // from `__global__`, as Clang counts it
  CHECK(fancy->metrics.shared_memory == 2);
  CHECK(fancy->metrics.warp_intrinsics == 3);
  CHECK(fancy->metrics.atomics == 2);
  CHECK(fancy->metrics.tensor_core >= 2);
  CHECK(fancy->metrics.cooperative_groups == 2);  // cooperative_groups::this_grid
  CHECK(fancy->metrics.device_launches == 1);
  const FunctionFact* plain = function(f, "plain");
  REQUIRE(plain);
  CHECK_FALSE(plain->metrics.any());
}

TEST_CASE("a fatal Clang error is recorded and kernels after it are found in the tokens", "[cxx][frontend]") {
  std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  NativeFile f = parse("__global__ void before(float* x) { x[0] = 1; }\n"
                       "int v = " + deep + ";\n"
                       "template <int N>\n__global__ void __launch_bounds__(256) after(float* x) {\n  x[0] = N;\n}\n"
                       "void host(float* x) { after<1><<<1, 1>>>(x); }\n");
  CHECK(f.fatal_error.find("bracket nesting") != std::string::npos);
  CHECK(f.fatal_error_at.begin > 0);
  const FunctionFact* after = function(f, "after");
  REQUIRE(after);
  CHECK(after->lexical);
  CHECK(after->is_kernel);
  CHECK(after->is_template);
  CHECK(after->lines == 3);
  CHECK(function(f, "before"));
  CHECK(f.launches.size() == 1);
}

TEST_CASE("explicit specializations of a kernel template are kernels, also over an unknown type", "[cxx][frontend]") {
  // `__half` is not declared without cuda_fp16.h: Clang drops that specialization, the tokens keep it.
  NativeFile f = parse(R"(
template <typename T>
__global__ void scale(T* out, int n);
template <>
__global__ void scale<float>(float* out, int n) { out[n] = 0; }
template <>
__global__ void scale<__half>(__half* out, int n) { out[n] = 0; }
)");
  auto kernels = std::count_if(f.functions.begin(), f.functions.end(),
                               [](const FunctionFact& fn) { return fn.name == "scale" && fn.is_kernel; });
  CHECK(kernels == 2);
  // Not templated: an explicit specialization is one concrete function, as Clang has it for `float`.
  CHECK(std::any_of(f.functions.begin(), f.functions.end(),
                    [](const FunctionFact& fn) { return fn.name == "scale" && fn.lexical && !fn.is_template; }));
  CHECK(std::none_of(f.functions.begin(), f.functions.end(), [](const FunctionFact& fn) { return fn.is_template; }));
}

TEST_CASE("a launch through a variable of unknown type keeps the name written", "[cxx][frontend]") {
  NativeFile f = parse(R"(
template <typename K>
void run(K p) {
  auto fn = kernel_from_a_missing_header<K>;
  fn<<<1, 32>>>(p);
}
)");
  REQUIRE(f.launches.size() == 1);
  CHECK(f.launches[0].kernel == "fn");
}

TEST_CASE("without CUDA headers, code gated on the toolkit's version is analyzed as for the newest", "[cxx][frontend]") {
  NativeFile f = parse(R"(
#include <cuda.h>
#define NEW_FP4_TYPES (CUDA_VERSION >= 12080)
#if NEW_FP4_TYPES
__global__ void fp4_kernel(float* x) { x[0] = 1; }
#endif
#if CUDART_VERSION >= 12010 && __CUDACC_VER_MAJOR__ >= 12
__global__ void multicast_kernel(float* x) { x[0] = 1; }
#endif
void launch(float* x) {
#if CUBLAS_VERSION >= 130400
  fp4_kernel<<<1, 1>>>(x);
#else
  legacy_kernel<<<1, 1>>>(x);
#endif
}
)");
  CHECK(function(f, "fp4_kernel"));
  CHECK(function(f, "multicast_kernel"));
  REQUIRE(f.launches.size() == 1);
  CHECK(f.launches[0].kernel == "fp4_kernel");
}

TEST_CASE("CUDA's vector types are declared: a launch over float4 in a macro's body is kept", "[cxx][frontend]") {
  NativeFile f = parse(R"(
template <typename V>
__global__ void fill(V* p) { float4 z = make_float4(0.f, 0.f, 0.f, 0.f); p[0] = p[1]; (void)z; }
#define LAUNCH_FILL(V) fill<V><<<1, 1>>>(reinterpret_cast<V*>(p))
void run(void* p) {
  LAUNCH_FILL(float4);
  LAUNCH_FILL(int2);
}
)");
  // One launch where each macro is used, one as written in the #define.
  CHECK(f.launches.size() == 3);
  CHECK(f.error_count == 0);
}

TEST_CASE("code under __CUDA_ARCH__ is analyzed once, host and device", "[cxx][frontend]") {
  NativeFile f = parse(R"(
#ifdef __CUDA_ARCH__
__device__ float only_device(float v) { return v; }
#else
inline float only_host(float v) { return v; }
#endif
__device__ float both(float v) {
#if __CUDA_ARCH__ >= 800
  asm volatile("mov.u32 %0, %%laneid;" : "=f"(v));
#endif
  return v;
}
)");
  CHECK(function(f, "only_device"));
  CHECK(function(f, "only_host"));
  CHECK(std::count_if(f.functions.begin(), f.functions.end(), [](const FunctionFact& fn) { return fn.name == "both"; }) == 1);
  CHECK(f.asm_statements.size() == 1);
}

TEST_CASE("calls keep their first argument, also when Clang dropped the statement", "[cxx][frontend]") {
  NativeFile f = parse(R"(
void launch(void** args, cudaStream_t s) {
  cudaLaunchKernel((void*)my_kernel, dim3(1), dim3(32), args, 0, s);
  cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s);
  auto h = at::cuda::getCurrentCUDAStream();
}
)");
  auto call = [&](std::string_view name) -> const CallFact* {
    auto it = std::find_if(f.calls.begin(), f.calls.end(), [&](const CallFact& c) { return c.callee == name; });
    return it == f.calls.end() ? nullptr : &*it;
  };
  REQUIRE(call("cudaLaunchKernel"));
  CHECK(call("cudaLaunchKernel")->first_argument == "my_kernel");
  CHECK(call("cudaLaunchKernel")->function == "launch");
  REQUIRE(call("cudaMemcpyAsync"));
  CHECK(call("cudaMemcpyAsync")->first_argument == "dst");
  CHECK(call("at::cuda::getCurrentCUDAStream"));
}

TEST_CASE("a call written in a project macro's body is recorded once on its #define, one in its argument where written", "[cxx][frontend]") {
  const std::string text = R"(
#include <cuda_runtime.h>
void report(const char* what, const char* why);
#define FAIL(what, why) report(what, why)
#define CHECK_CUDA(expr)                                         \
  do {                                                           \
    cudaError_t status = (expr);                                 \
    if (status != cudaSuccess) FAIL("CUDA", cudaGetErrorString(status)); \
  } while (false)
#define STRINGIZE(x) #x(x)
#if 0
#define DEAD() cudaDeviceReset()
#endif
void copy(void* dst, const void* src, size_t n) {
  CHECK_CUDA(cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice));
  CHECK_CUDA(cudaMemset(dst, 0, n));
  cudaDeviceSynchronize();
}
)";
  NativeFile f = parse(text);
  auto calls = [&](std::string_view name) {
    std::vector<const CallFact*> out;
    for (const CallFact& c : f.calls)
      if (c.callee == name) out.push_back(&c);
    return out;
  };
  // Expanded twice, written once: one call, on the #define's line, in the macro's body.
  REQUIRE(calls("cudaGetErrorString").size() == 1);
  CHECK(calls("cudaGetErrorString")[0]->span.begin == text.find("cudaGetErrorString"));
  CHECK(calls("cudaGetErrorString")[0]->in_macro_body);
  CHECK(calls("cudaGetErrorString")[0]->first_argument == "status");
  REQUIRE(calls("report").size() == 1);  // in FAIL's body (its declaration is no call)
  CHECK(calls("report")[0]->span.begin == text.find("report(what"));
  CHECK(calls("report")[0]->in_macro_body);
  // The macro's own name and parameters, a stringized parameter, a #define in an inactive branch:
  // no call.
  CHECK(calls("CHECK_CUDA").size() == 2);  // its two uses (no declaration of it is seen)
  CHECK(calls("x").empty());
  CHECK(calls("cudaDeviceReset").empty());
  REQUIRE(calls("cudaMemcpy").size() == 1);
  CHECK_FALSE(calls("cudaMemcpy")[0]->in_macro_body);
  CHECK(calls("cudaMemcpy")[0]->span.begin == text.find("cudaMemcpy("));
  REQUIRE(calls("cudaDeviceSynchronize").size() == 1);
  CHECK_FALSE(calls("cudaDeviceSynchronize")[0]->in_macro_body);
}

TEST_CASE("a project header's macro adds no call where it is expanded: the header has them", "[cxx][frontend]") {
  tpulint::testing::TempDir dir;
  const std::string header = "#pragma once\n#define CHECK_NCCL(cmd) report(ncclGetErrorString(cmd))\n";
  const std::string text =
      "#include \"check.h\"\n#include <torch/extension.h>\n"
      "void run() {\n  CHECK_NCCL(ncclAllReduce(a, b, n));\n  C10_CUDA_CHECK(cudaGetLastError());\n}\n";
  dir.write("check.h", header);
  dir.write("run.cpp", text);
  ClangFrontend frontend(tpulint::testing::parse_all());
  const NativeFile f = frontend.parse(tpulint::testing::source(dir.path(), "run.cpp", text));
  std::vector<std::string> callees;
  for (const CallFact& c : f.calls) callees.push_back(c.callee + (c.in_macro_body ? " (macro body)" : ""));
  // The header's ncclGetErrorString and report are its own facts, on its #define line.
  CHECK(callees == std::vector<std::string>{"CHECK_NCCL", "ncclAllReduce", "C10_CUDA_CHECK", "cudaGetLastError"});
  const NativeFile h = frontend.parse(tpulint::testing::source(dir.path(), "check.h", header));
  callees.clear();
  for (const CallFact& c : h.calls) callees.push_back(c.callee + (c.in_macro_body ? " (macro body)" : ""));
  CHECK(callees == std::vector<std::string>{"report (macro body)", "ncclGetErrorString (macro body)"});
}

TEST_CASE("macro uses and qualified names are recorded as written", "[cxx][frontend]") {
  NativeFile f = parse(R"(
TORCH_LIBRARY_IMPL(myops, CUDA, m) {
  m.impl("roi_align", &roi_align_cuda);
}
void f() {
  thrust::sort(thrust::device, p, p + n);
  std::vector<int> v;
}
#if 0
TORCH_LIBRARY(dead, m) {}
#endif
)", "ops.cpp");
  REQUIRE(f.macro_uses.size() == 1);
  CHECK(f.macro_uses[0].name == "TORCH_LIBRARY_IMPL");
  CHECK(f.macro_uses[0].arguments == std::vector<std::string>{"myops", "CUDA", "m"});
  std::vector<std::string> names;
  for (const auto& q : f.qualified_names) names.push_back(q.name);
  CHECK(names == std::vector<std::string>{"thrust::sort", "thrust::device"});
}

TEST_CASE("qualified names are recorded in every preprocessor branch, inactive ones marked", "[cxx]") {
  NativeFile f = parse(
      "#ifdef CUTLASS_SM90_COLLECTIVE_BUILDER_SUPPORTED\nusing G = cutlass::gemm::device::GemmUniversalAdapter<int>;\n#else\n"
      "using H = cutlass::gemm::device::Gemm<int>;\n#endif\n#define X cutlass::arch::Sm80\n");
  std::vector<std::pair<std::string, bool>> names;
  std::string seen;
  for (const auto& q : f.qualified_names) {
    names.emplace_back(q.name, q.inactive);
    seen += q.name + (q.inactive ? " inactive\n" : " active\n");
  }
  INFO(seen);
  // The directive's name is no use of it (a macro's body is used where the macro is).
  CHECK(names == std::vector<std::pair<std::string, bool>>{{"cutlass::gemm::device::GemmUniversalAdapter", true},
                                                           {"cutlass::gemm::device::Gemm", false}});
}

TEST_CASE("a kernel's shape counts its loops, grid-stride loops and statements", "[cxx][frontend]") {
  NativeFile f = parse(R"(
#define CUDA_1D_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void scale(float* y, const float* x, float a, int n) { int i = blockIdx.x*blockDim.x+threadIdx.x; if (i < n) y[i] = a * x[i]; }
__global__ void strided(float* x, int n) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) x[i] = 0;
}
__global__ void by_macro(float* x, int n) {
  CUDA_1D_KERNEL_LOOP(i, n) { x[i] = 1; }
}
__global__ void nested(float* x, int n) {
  for (int i = blockIdx.x; i < n; i += gridDim.x)
    for (int j = 0; j < n; ++j) x[i] += x[j];
  int k = 0;
  do { ++k; } while (k < n);
  while (k > 0) --k;
}
__global__ void with_library(float* x) { cub::BlockReduce<float, 128> r; asm volatile("membar.gl;"); }
)");
  const FunctionFact* scale = function(f, "scale");
  REQUIRE(scale);
  CHECK(scale->shape.loops == 0);
  CHECK(scale->shape.statements == 2);
  CHECK(scale->shape.assignments == 2);  // i = ..., y[i] = ...
  const FunctionFact* strided = function(f, "strided");
  REQUIRE(strided);
  CHECK(strided->shape.loops == 1);
  CHECK(strided->shape.grid_stride_loops == 1);
  CHECK(strided->shape.statements == 2);  // the for-header's ';' are not statements
  const FunctionFact* by_macro = function(f, "by_macro");
  REQUIRE(by_macro);
  CHECK(by_macro->shape.loops == 1);
  CHECK(by_macro->shape.grid_stride_loops == 1);
  const FunctionFact* nested = function(f, "nested");
  REQUIRE(nested);
  CHECK(nested->shape.loops == 4);  // for, for, do-while (once), while
  CHECK(nested->shape.grid_stride_loops == 1);
  const FunctionFact* with_library = function(f, "with_library");
  REQUIRE(with_library);
  CHECK(with_library->shape.library_templates == 1);
  CHECK(with_library->shape.inline_assembly == 1);
}

TEST_CASE("a file that only specializes or instantiates templates defined elsewhere names them", "[cxx][frontend]") {
  // flash-attention's generated files, one per head size and type.
  NativeFile generated = parse(R"(
// This file is auto-generated. See "generate_kernels.py"
#include "flash_fwd_launch_template.h"
namespace flash {
template<>
void run_mha_fwd_<cutlass::half_t, 128, false>(Flash_fwd_params &params, cudaStream_t stream) {
    run_mha_fwd_hdim128<cutlass::half_t, false>(params, stream);
}
template void run_mha_fwd_splitkv_dispatch<cutlass::half_t, 128, false>(Flash_fwd_params &params, cudaStream_t stream);
extern template void other<float>(float*);
}  // namespace flash
)");
  CHECK(generated.instantiated_templates == std::vector<std::string>{"run_mha_fwd_hdim128", "run_mha_fwd_splitkv_dispatch"});

  // Code of the file's own, beside the same specialization.
  NativeFile own = parse(R"(
template<>
void run_mha_fwd_<float, 64, false>(Flash_fwd_params &params, cudaStream_t stream) { run_mha_fwd_hdim64<float, false>(params, stream); }
int heads(int h) { return h; }
)");
  CHECK(own.instantiated_templates.empty());

  // A specialization with a body of its own.
  NativeFile body = parse(R"(
template<>
void run<float>(Params &p) { p.x = 1; launch<float>(p); }
)");
  CHECK(body.instantiated_templates.empty());

  // The template itself.
  NativeFile definition = parse(R"(
template <typename T> void run(T* p) { p[0] = 0; }
template void run<float>(float*);
)");
  CHECK(definition.instantiated_templates.empty());

  // A kernel defined by a specialization.
  NativeFile kernel = parse(R"(
template<>
__global__ void scale<float>(float* x, int n) { scale_impl<float>(x, n); }
)");
  CHECK(kernel.instantiated_templates.empty());

  CHECK(parse("#include \"a.h\"\n").instantiated_templates.empty());
}

TEST_CASE("the included headers' function bodies are skipped: the main file's facts stay", "[cxx][frontend]") {
  auto dir = std::filesystem::temp_directory_path() / "tpulint_cxx_frontend_skip_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "helper.cuh") << "template <typename T> __global__ void fill(T* p) { p[threadIdx.x] = T(1); }\n"
                                       "template <typename T> void prepare(T* p) { cudaMemset(p, 0, 4); }\n"
                                       "constexpr int tile() { return 4 * 8; }\n";
  const std::string text = "#include \"helper.cuh\"\n"
                           "static_assert(tile() == 32, \"a constexpr body is still parsed\");\n"
                           "void run(float* p) {\n  prepare(p);\n  fill<float><<<1, tile()>>>(p);\n  cudaDeviceSynchronize();\n}\n";
  SourceFile file("main.cu", dir / "main.cu", Language::Cuda, text);
  NativeFile f = ClangFrontend({.compile_database = nullptr, .tree_root = dir}).parse(file);
  auto called = [&](std::string_view name) {
    return std::any_of(f.calls.begin(), f.calls.end(), [&](const CallFact& c) { return c.callee == name; });
  };
  CHECK(called("prepare"));
  CHECK(called("cudaDeviceSynchronize"));
  CHECK_FALSE(called("cudaMemset"));  // the header's, a fact of the header
  REQUIRE(f.launches.size() == 1);
  CHECK(f.launches[0].kernel == "fill");
}

TEST_CASE("a call after a directive line is a call, not a declaration", "[cxx][frontend]") {
  NativeFile f = parse("void setup(void* handle) {\n#ifndef __HIP_PLATFORM_AMD__\n"
                       "  cublasSetMathMode(handle, CUBLAS_TENSOR_OP_MATH);\n#endif\n}\n",
                       "setup.cpp");
  CHECK(std::any_of(f.calls.begin(), f.calls.end(), [](const CallFact& c) { return c.callee == "cublasSetMathMode"; }));
}

TEST_CASE("past the time budget a file's facts come from its tokens alone", "[cxx][frontend]") {
  auto dir = std::filesystem::temp_directory_path() / "tpulint_cxx_frontend_budget_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream big(dir / "big.h");  // enough tokens to take more than the budget
    for (int i = 0; i < 20000; ++i) big << "struct S" << i << " { int a, b; S" << i << "* next; };\n";
  }
  const std::string text = "#include \"big.h\"\n#include <cuda_runtime.h>\n"
                           "__device__ float twice(float x) { return 2 * x; }\n"
                           "__global__ void scale(float* p) { p[threadIdx.x] = twice(p[threadIdx.x]); }\n"
                           "void run(float* p) {\n  scale<<<1, 32>>>(p);\n  cudaDeviceSynchronize();\n}\n";
  SourceFile file("main.cu", dir / "main.cu", Language::Cuda, text);
  NativeFile f = ClangFrontend({.compile_database = nullptr, .tree_root = dir, .time_budget = std::chrono::milliseconds(1)})
                     .parse(file);
  CHECK(f.over_budget);
  CHECK(function(f, "scale"));           // a kernel, found in the tokens
  CHECK_FALSE(function(f, "twice"));     // a device function needs the AST
  REQUIRE(f.launches.size() == 1);
  CHECK(f.launches[0].kernel == "scale");
  CHECK(std::any_of(f.calls.begin(), f.calls.end(), [](const CallFact& c) { return c.callee == "cudaDeviceSynchronize"; }));
  REQUIRE(f.includes.size() == 2);
  CHECK(f.includes[0].spelled == "big.h");
  CHECK(f.includes[1].spelled == "cuda_runtime.h");
  CHECK(f.includes[1].angled);
  CHECK(f.fatal_error.empty());

  NativeFile unlimited = ClangFrontend({.compile_database = nullptr, .tree_root = dir}).parse(file);
  CHECK_FALSE(unlimited.over_budget);
  CHECK(function(unlimited, "twice"));
}

TEST_CASE("kernel sources in string literals are runtime-compiled kernels, measured in their own tokens", "[cxx][frontend]") {
  const std::string source = R"(#include <string>
const char* kSource =
    "extern \"C\" __global__ void scale(float* x, float a, int n) {\n"
    "  __shared__ float tile[256];\n"
    "  tile[threadIdx.x] = x[threadIdx.x]; __syncthreads();\n"
    "  atomicAdd(x, tile[0] * a);\n"
    "}\n";
std::string generated() {
  return fmt::format(R"rtc(
    template <typename T>
    __global__ void {KERNEL_NAME}(const T* in, T* out) {{
      out[threadIdx.x] = in[threadIdx.x];
    }}
  )rtc", 0);
}
const char* kNotAKernel = "__global__ void declared_only(float* x);";
void launch(float* x) { real<<<1, 1>>>(x); }
)";
  NativeFile f = parse(source, "host.cpp");
  const FunctionFact* scale = function(f, "scale");
  REQUIRE(scale);
  CHECK(scale->runtime_compiled);
  CHECK(scale->is_kernel);
  CHECK(scale->lines == 5);
  CHECK(scale->metrics.shared_memory == 1);
  CHECK(scale->metrics.atomics == 1);
  const FunctionFact* placeholder = function(f, "{KERNEL_NAME}");
  REQUIRE(placeholder);
  CHECK(placeholder->runtime_compiled);
  CHECK(placeholder->is_template);
  CHECK(placeholder->lines == 3);  // from `__global__`, as for any kernel
  CHECK_FALSE(function(f, "declared_only"));
  // Offsets are the file's: the names are where they are written.
  CHECK(scale->name_span.begin == source.find("scale("));
  CHECK(placeholder->name_span.begin == source.find("{KERNEL_NAME}"));
  CHECK(f.launches.size() == 1);
}
