// TPU105: a kernel launched through the CUDA runtime or driver API (`cudaLaunchKernel`,
// `cudaLaunchCooperativeKernel`, `cuLaunchKernel`, ...) rather than `<<<...>>>`.
// User docs: docs/checks/TPU105.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

// The launch entry points of CUDA 12/13 (runtime: cuda_runtime_api.h; driver: cuda.h).
constexpr std::array<std::string_view, 10> kRuntimeLaunches = {
    "cudaLaunchCooperativeKernel", "cudaLaunchCooperativeKernelMultiDevice", "cudaLaunchKernel",
    "cudaLaunchKernelEx", "cudaLaunchKernelExC", "cuLaunchCooperativeKernel",
    "cuLaunchCooperativeKernelMultiDevice", "cuLaunchGrid", "cuLaunchKernel", "cuLaunchKernelEx"};

bool is_launch_api(std::string_view callee) {
  if (callee.starts_with("::")) callee.remove_prefix(2);
  return std::find(kRuntimeLaunches.begin(), kRuntimeLaunches.end(), callee) != kRuntimeLaunches.end();
}

class CudaLaunchApi final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::CallFact& call : facts.calls) {
      if (!is_launch_api(call.callee)) continue;
      // The runtime API takes the kernel itself first (the Ex forms take a launch configuration
      // first); the driver API a CUfunction handle.
      bool runtime = call.callee.find("cuda") != std::string::npos;
      bool config_first = call.callee.find("KernelEx") != std::string::npos;
      bool named = runtime && !config_first && !call.first_argument.empty() &&
                   call.first_argument.find_first_of(" ()[]*&+") == std::string::npos;
      std::string what = named ? fmt::format("kernel '{}'", call.first_argument)
                               : runtime ? std::string("a kernel") : std::string("a CUfunction");
      bool cooperative = call.callee.find("Cooperative") != std::string::npos;
      ctx.report(call.span,
                 fmt::format("{}{} launch of {} through '{}' cannot run on a TPU", cooperative ? "cooperative " : "",
                             runtime ? "CUDA runtime" : "CUDA driver", what, call.callee),
                 "call the kernel's TPU replacement (a Pallas kernel or tensor ops) from Python instead",
                 named ? call.first_argument : call.callee);
    }
  }
};

const CudaLaunchApi kCheck;

}  // namespace

extern const CheckDef TPU105_cuda_launch_api{
    .info = {
        .id = "TPU105",
        .name = "cuda-launch-api",
        .summary = "CUDA kernel launch through the runtime or driver API (`cudaLaunchKernel`, `cuLaunchKernel`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.5, 2},
        .doc = {
            .what = "A kernel launched by an API call instead of `<<<...>>>`: `cudaLaunchKernel`, "
                    "`cudaLaunchKernelEx`, `cudaLaunchCooperativeKernel` (grid-wide synchronization), and the "
                    "driver API's `cuLaunchKernel`, `cuLaunchKernelEx`, `cuLaunchCooperativeKernel` (kernels "
                    "loaded from cubin/PTX modules or compiled at run time with NVRTC).",
            .why = "Like a `<<<...>>>` launch, it is CUDA's execution model (grids, blocks, streams), which a TPU "
                   "does not have. A driver-API launch usually means the kernel comes from a module loaded at "
                   "run time, so the kernel's source may not even be in the repository.",
            .example = "void* args[] = {&x, &n};\n"
                       "cudaLaunchKernel((void*)scale_kernel, grid, block, args, 0, stream);",
            .use_instead = "Call the kernel's replacement from Python: a Pallas kernel (`pl.pallas_call`) or the "
                           "tensor operations it computes. A cooperative launch's grid-wide barrier becomes the "
                           "boundary between two XLA ops (or two Pallas calls).",
            .effort = "Low per launch site: the work is in the kernel (TPU101). The launch and its argument "
                      "packing go away with it.",
            .heuristic = "The kernel is named when the runtime API's first argument is a plain name "
                         "(`(void*)kernel`, `&kernel`, `kernel<T>`); `cudaLaunchKernelEx` (configuration first) "
                         "and driver-API launches (a CUfunction handle) are reported without a kernel name.",
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__EXECUTION.html",
                           "https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__EXEC.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
