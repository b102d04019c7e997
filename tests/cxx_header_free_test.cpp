// Header-free parsing of real extension code: project headers found by name anywhere in the
// tree, built-in torch declarations for missing torch headers, AT_DISPATCH lambdas analyzed.
#include <algorithm>
#include <catch2/catch.hpp>

#include "cxx/clang_frontend.h"
#include "cxx_facts_text.h"
#include "cxx/project_headers.h"
#include "temp_dir.h"

using namespace tpulint;
using namespace tpulint::cxx;
using tpulint::testing::parse_all;
using tpulint::testing::TempDir;

namespace {

SourceFile source(const TempDir& dir, const std::string& rel, const std::string& text) {
  dir.write(rel, text);
  return SourceFile(rel, dir.path() / rel, rel.ends_with(".cu") ? Language::Cuda : Language::Cxx, text);
}

bool has_call(const NativeFile& f, std::string_view callee) {
  return std::any_of(f.calls.begin(), f.calls.end(), [&](const CallFact& c) { return c.callee == callee; });
}

}  // namespace

TEST_CASE("project headers are resolved by name from anywhere in the tree", "[cxx][headers]") {
  TempDir dir;
  dir.write("csrc/common/pytorch_cuda_helper.hpp", "#include \"nested/more.h\"\nnamespace helper { void launch(float*); }\n");
  dir.write("csrc/common/nested/more.h", "#include <mylib/kernels.cuh>\n");
  dir.write("include/mylib/kernels.cuh", "namespace mylib { void scale(float*); }\n");
  dir.write("other/mylib/unrelated.h", "");
  SourceFile file = source(dir, "csrc/ops/op.cu",
                           "#include \"pytorch_cuda_helper.hpp\"\n#include <torch/extension.h>\n#include <vector>\n"
                           "using namespace helper;\nusing namespace mylib;\n"
                           "void f(float* x) { launch(x); scale(x); }\n");
  HeaderResolution r = resolve_project_headers(file, tpulint::SourceTree(dir.path()));
  CHECK(r.include_dirs == std::vector<std::string>{dir.path().generic_string() + "/csrc/common",
                                                    dir.path().generic_string() + "/include"});
  CHECK(r.torch_missing);

  NativeFile facts = ClangFrontend(parse_all()).parse(file);
  // Resolved through the headers' namespaces: the headers were parsed.
  CHECK(has_call(facts, "helper::launch"));
  CHECK(has_call(facts, "mylib::scale"));
  auto missing = std::count_if(facts.includes.begin(), facts.includes.end(), [](const IncludeFact& i) { return !i.found; });
  CHECK(missing == 1);  // torch/extension.h
}

TEST_CASE("the built-in torch declarations make a real extension file parse without errors", "[cxx][headers]") {
  TempDir dir;
  SourceFile file = source(dir, "roi_align_cuda.cu", R"(
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/extension.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")

template <typename scalar_t>
__global__ void roi_align_kernel(const int nthreads, const scalar_t* input, const scalar_t* rois,
                                 torch::PackedTensorAccessor32<scalar_t, 4, torch::RestrictPtrTraits> out) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index < nthreads) out[0][0][0][index] = input[index] * rois[0];
}

at::Tensor roi_align_forward_cuda(const at::Tensor& input, const at::Tensor& rois, int64_t pooled_height) {
  CHECK_CUDA(input);
  at::cuda::CUDAGuard device_guard(input.device());
  auto output = at::zeros({rois.size(0), input.size(1), pooled_height, pooled_height}, input.options());
  auto count = output.numel();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  dim3 grid((count + 511) / 512);
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "roi_align_forward", [&] {
    roi_align_kernel<scalar_t><<<grid, 512, 0, stream>>>(
        count, input.contiguous().data_ptr<scalar_t>(), rois.contiguous().data_ptr<scalar_t>(),
        output.packed_accessor32<scalar_t, 4, torch::RestrictPtrTraits>());
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return output;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("roi_align_forward", &roi_align_forward_cuda, "RoIAlign forward", py::arg("input"), py::arg("rois"),
        py::arg("pooled_height") = 7);
}
)");
  NativeFile facts = ClangFrontend(parse_all()).parse(file);
  CHECK(facts.error_count == 0);
  REQUIRE(facts.launches.size() == 1);
  CHECK(facts.launches[0].kernel == "roi_align_kernel");
  CHECK(has_call(facts, "c10::cuda::getCurrentCUDAStream"));
  CHECK(has_call(facts, "at::zeros"));
}

TEST_CASE("the project's macros: which headers define each, and which expand to device code", "[cxx][headers]") {
  TempDir dir;
  dir.write("inc/a.h", "#define HD __host__ __device__\n#define PLAIN 1\n");
  dir.write("inc/b.hpp", "#define KERNEL_FN(name) \\\n  HD void name()\n#define PLAIN 2\n");
  dir.write("inc/c.cuh", "#define CE constexpr\n#define ATTR __attribute__((device))\n"
                         "#define LAZY(name) auto lazy_##name() -> decltype(name ())\n#define LAZY_TOO(n) LAZY(n)\n"
                         "#define PASTE(name) int name##_count(int)\n");
  dir.write("src/d.cu", "#define INCLUDABLE __device__\n");  // an #include may reach it, as a header
  dir.write("src/e.cpp", "#define FROM_SOURCE __device__\n");  // no #include reaches a .cpp: never read
  const auto macros = project_macros(tpulint::SourceTree(dir.path()));
  CHECK(macros->defined_in.at("PLAIN") == std::vector<std::string>{"inc/a.h", "inc/b.hpp"});
  CHECK_FALSE(macros->defined_in.contains("FROM_SOURCE"));
  CHECK(macros->device.contains("INCLUDABLE"));
  CHECK(macros->device.contains("HD"));
  CHECK(macros->device.contains("KERNEL_FN"));  // through HD, on a continued line
  CHECK(macros->device.contains("ATTR"));
  CHECK_FALSE(macros->device.contains("PLAIN"));
  CHECK_FALSE(macros->device.contains("CE"));
  CHECK(macros->device_in_cuda.contains("CE"));  // a constexpr function is host and device in CUDA
  CHECK(macros->device_in_cuda.contains("KERNEL_FN"));
  CHECK(macros->calls_parameter.contains("LAZY"));
  CHECK(macros->calls_parameter.contains("LAZY_TOO"));  // through LAZY
  CHECK_FALSE(macros->calls_parameter.contains("PASTE"));
  // `void name()` declares rather than calls: counted all the same, which only sends more files to the parse.
  CHECK(macros->calls_parameter.contains("KERNEL_FN"));
}

TEST_CASE("device code is told by its words", "[cxx][headers]") {
  CHECK(mentions_device_code("__global__ void k() {}", false));
  CHECK(mentions_device_code("k<<<1, 1>>>();", false));
  CHECK(mentions_device_code("void pause() { asm volatile(\"pause\"); }", false));
  CHECK(mentions_device_code("int f() __attribute__((device));", false));
  CHECK(mentions_device_code("#if __CUDA_ARCH__ >= 800", false));
  CHECK_FALSE(mentions_device_code("float plasma = device_count(); // __global__x", false));
  CHECK_FALSE(mentions_device_code("constexpr int n = 3;", false));
  CHECK(mentions_device_code("constexpr int n = 3;", true));
}
