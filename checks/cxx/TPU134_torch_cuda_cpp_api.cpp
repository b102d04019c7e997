// TPU134: PyTorch's C++ CUDA API (`at::cuda::getCurrentCUDAStream`, `c10::cuda::CUDAGuard`,
// `C10_CUDA_KERNEL_LAUNCH_CHECK`).
// User docs: docs/checks/TPU134.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <set>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

// PyTorch's CUDA error-check macros (c10/cuda/CUDAException.h, ATen/cuda/Exceptions.h).
constexpr std::array<std::string_view, 5> kCudaMacros = {"AT_CUDA_CHECK", "C10_CUDA_CHECK", "C10_CUDA_CHECK_WARN",
                                                         "C10_CUDA_KERNEL_LAUNCH_CHECK", "TORCH_CUDABLAS_CHECK"};
// Functions of at::cuda / c10::cuda often called after `using namespace at::cuda;`.
constexpr std::array<std::string_view, 5> kUnqualified = {"getCurrentCUDABlasHandle", "getCurrentCUDAStream",
                                                          "getCurrentDeviceProperties", "getDefaultCUDAStream",
                                                          "getStreamFromPool"};

template <size_t N>
bool in(const std::array<std::string_view, N>& names, std::string_view s) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

bool torch_cuda(std::string_view name) { return name.starts_with("at::cuda::") || name.starts_with("c10::cuda::"); }

constexpr const char* kHint =
    "drop it with the kernel it serves: torch_xla and JAX have no user-visible CUDA streams, guards or launch checks "
    "(use torch_xla.device() for placement)";

class TorchCudaCppApi final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    std::set<uint32_t> reported;
    for (const cxx::QualifiedNameFact& q : facts.qualified_names)
      if (!q.inactive && torch_cuda(q.name) && reported.insert(q.span.begin).second)
        ctx.report(q.span, fmt::format("PyTorch CUDA C++ API '{}' has no TPU equivalent", q.name), kHint, q.name);
    // Calls written unqualified after `using namespace at::cuda;`: resolved by Clang when the
    // built-in torch declarations are in, by name otherwise.
    for (const cxx::CallFact& c : facts.calls)
      if ((torch_cuda(c.callee) || in(kUnqualified, c.callee)) && reported.insert(c.span.begin).second) {
        Finding& f =
            ctx.report(c.span, fmt::format("PyTorch CUDA C++ API '{}' has no TPU equivalent", c.callee), kHint, c.callee);
        f.priced_once = c.in_macro_body;  // a macro's body is changed once, where it is defined
      }
    for (const cxx::MacroUseFact& m : facts.macro_uses)
      if (in(kCudaMacros, m.name))
        ctx.report(m.span, fmt::format("PyTorch CUDA error check '{}' has no TPU equivalent", m.name), kHint, m.name);
  }
};

const TorchCudaCppApi kCheck;

}  // namespace

extern const CheckDef TPU134_torch_cuda_cpp_api{
    .info = {
        .id = "TPU134",
        .name = "torch-cuda-cpp-api",
        .summary = "PyTorch's C++ CUDA API (`at::cuda::getCurrentCUDAStream`, `c10::cuda::*`, `C10_CUDA_KERNEL_LAUNCH_CHECK`)",
        .languages = Language::Cuda | Language::Cxx,
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 0.5},
        .doc = {
            .what = "A use of PyTorch's CUDA C++ API in extension code: anything under `at::cuda::` or "
                    "`c10::cuda::` (`getCurrentCUDAStream`, `CUDAGuard`, `OptionalCUDAGuard`, `CUDAStream`, "
                    "`getCurrentDeviceProperties`, `CUDACachingAllocator`), those functions called unqualified, and "
                    "the CUDA error-check macros `C10_CUDA_KERNEL_LAUNCH_CHECK`, `C10_CUDA_CHECK`, `AT_CUDA_CHECK`.",
            .why = "It ties the extension to PyTorch's CUDA backend: streams, device guards, the caching "
                   "allocator and launch checks exist only for CUDA tensors. On an XLA device there is no CUDA "
                   "stream to launch on and no CUDA error to check.",
            .example = "const at::cuda::OptionalCUDAGuard guard(device_of(input));\n"
                       "cudaStream_t stream = at::cuda::getCurrentCUDAStream();\n"
                       "kernel<<<grid, block, 0, stream>>>(...);\nC10_CUDA_KERNEL_LAUNCH_CHECK();",
            .use_instead = "Nothing, once the kernel is replaced by torch ops or a Pallas kernel: placement comes "
                           "from `torch_xla.device()`, ordering from XLA.",
            .effort = "Low per use: it goes away with the launch it serves.",
            .heuristic = "Qualified names are read from the tokens; `using namespace at::cuda;` followed by an "
                         "unqualified call is recognized for the common functions only (getCurrentCUDAStream, "
                         "getDefaultCUDAStream, getStreamFromPool, getCurrentDeviceProperties, "
                         "getCurrentCUDABlasHandle). "
                         "A call written in the body of a macro the project defines (an error-check macro's `cudaGetErrorString`) is "
                         "reported once, on the #define's line, and priced once for the project: the port changes the macro where it is "
    "defined, not where it is expanded.",
            .references = {"https://docs.pytorch.org/cppdocs/notes/tensor_cuda_stream.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
