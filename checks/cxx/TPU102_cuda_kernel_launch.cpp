// TPU102: a CUDA kernel launch with the triple-chevron syntax (`kernel<<<grid, block>>>(...)`).
// User docs: docs/checks/TPU102.md (generated from the CheckInfo below).
#include <algorithm>
#include <set>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/kernel_class.h"

namespace tpulint::checks {

namespace {

class CudaKernelLaunch final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    std::vector<kernels::Classification> classes;
    std::set<std::pair<const cxx::FunctionFact*, std::string_view>> launched;  // (host function, kernel)
    for (const cxx::LaunchFact& launch : facts.launches) {
      std::string name = launch.kernel.empty() ? std::string("a kernel") : "'" + launch.kernel + "'";
      // The work item of the kernel's definition: its op's, when the table knows the kernel.
      const kernels::StandardOp* op = nullptr;
      auto defined = std::find_if(facts.functions.begin(), facts.functions.end(), [&](const cxx::FunctionFact& f) {
        return f.is_kernel && f.name == launch.kernel;
      });
      if (defined != facts.functions.end()) {
        if (classes.empty()) classes = kernels::classify_native(facts, ctx.file().path());
        op = classes[size_t(defined - facts.functions.begin())].op;
      } else {
        op = kernels::op_named(launch.kernel);
      }
      Finding& f = ctx.report(launch.span, fmt::format("CUDA kernel launch of {} cannot run on a TPU", name),
                              "call the kernel's TPU replacement (a Pallas kernel or tensor ops) from Python instead",
                              op ? std::string_view(op->op) : std::string_view(launch.kernel));
      // One host function launching a kernel in several places (a switch over its template's block
      // sizes, a dispatch over types) has one launch's glue to remove.
      const cxx::FunctionFact* host = cxx::innermost_function(facts.functions, launch.span);
      if (host && !launch.kernel.empty() && !launched.emplace(host, launch.kernel).second) f.hours = {0, 0};
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
                      "launch and its glue takes minutes to an hour or two. Further launches of the same kernel "
                      "in one host function (a switch over the template's block sizes, a dispatch over types) "
                      "are that one site's glue: 0 h each.",
            .heuristic = "A launch joins the work item of the kernel it launches: the kernel's name, or the standard "
                         "op the kernel is (TPU101), so that an op's kernels and launches are one item.",
            .references = {"https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
