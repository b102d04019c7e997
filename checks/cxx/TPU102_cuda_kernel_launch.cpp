// TPU102: a CUDA kernel launch with the triple-chevron syntax (`kernel<<<grid, block>>>(...)`).
// User docs: docs/checks/TPU102.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

class CudaKernelLaunch final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::LaunchFact& launch : facts.launches) {
      std::string name = launch.kernel.empty() ? std::string("a kernel") : "'" + launch.kernel + "'";
      ctx.report(launch.span, fmt::format("CUDA kernel launch of {} cannot run on a TPU", name),
                 "call the kernel's TPU replacement (a Pallas kernel or tensor ops) from Python instead",
                 launch.kernel);
    }
  }
};

const CudaKernelLaunch kCheck;

}  // namespace

extern const CheckDef TPU102_cuda_kernel_launch{
    .info = {
        .id = "TPU102",
        .name = "cuda-kernel-launch",
        .summary = "CUDA kernel launch (`<<<grid, block>>>`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.5, 2},
        .doc = {
            .what = "A kernel launch with CUDA's triple-chevron syntax, `kernel<<<grid, block, shmem, "
                    "stream>>>(args)`, including launches of templated kernels and launches inside "
                    "`AT_DISPATCH_*` lambdas.",
            .why = "The launch configuration (grids, blocks, streams) is CUDA's execution model; a TPU "
                   "has none of it. The host code around each launch (grid sizing, stream handling, "
                   "error checks) goes away with the kernel.",
            .example = "roi_align_kernel<<<blocks, 256, 0, stream>>>(input, rois, output);",
            .use_instead = "Call the kernel's replacement from Python: a Pallas kernel (`pl.pallas_call`) or "
                           "the tensor operations it computes.",
            .effort = "Low per launch site: the work is in rewriting the kernel itself (TPU101); removing the "
                      "launch and its glue takes minutes to an hour or two.",
            .heuristic = "",
            .references = {"https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
