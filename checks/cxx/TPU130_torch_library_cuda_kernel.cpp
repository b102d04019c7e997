// TPU130: a PyTorch custom op kernel registered for the CUDA dispatch key
// (`TORCH_LIBRARY_IMPL(ns, CUDA, m)`).
// User docs: docs/checks/TPU130.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/cxx/extension_glue.h"

namespace tpulint::checks {

namespace {

class TorchLibraryCudaKernel final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::MacroUseFact& m : facts.macro_uses) {
      std::string_view key = extension_glue::dispatch_key(m);
      if (!extension_glue::is_cuda_key(key)) continue;
      std::string ns = m.arguments[0];
      ctx.report(m.span,
                 fmt::format("custom ops of '{}' registered with {} kernels have no XLA kernel", ns, key),
                 "register an XLA implementation (TORCH_LIBRARY_IMPL(ns, XLA, m) calling torch ops or a Pallas kernel), "
                 "or define the op in Python with torch.library as a composite of torch ops",
                 ns);
    }
  }
};

const TorchLibraryCudaKernel kCheck;

}  // namespace

extern const CheckDef TPU130_torch_library_cuda_kernel{
    .info = {
        .id = "TPU130",
        .name = "torch-library-cuda-kernel",
        .summary = "PyTorch custom op kernels registered for CUDA (`TORCH_LIBRARY_IMPL(ns, CUDA, m)`)",
        .languages = Language::Cuda | Language::Cxx,
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "A `TORCH_LIBRARY_IMPL(namespace, KEY, m)` block whose dispatch key is a CUDA one (`CUDA`, "
                    "`AutogradCUDA`, `SparseCUDA`, `QuantizedCUDA`...): the C++ registration of custom operators' "
                    "CUDA kernels with the PyTorch dispatcher.",
            .why = "On an XLA device, the dispatcher looks for an `XLA` kernel. A custom op with only CUDA (and "
                   "CPU) kernels has none: with a CPU kernel it runs through the CPU fallback (a device-to-host "
                   "copy, CPU compute, a copy back, and a graph break), without one it fails. The CUDA kernels "
                   "behind it are reported by TPU101.",
            .example = "TORCH_LIBRARY_IMPL(myops, CUDA, m) {\n  m.impl(\"roi_align\", &roi_align_cuda);\n}",
            .use_instead = "Register an implementation for the `XLA` key written with torch ops (which torch_xla "
                           "traces) or calling a Pallas kernel (`torch_xla.experimental.custom_kernel`), or define "
                           "the op in Python (`torch.library.custom_op`) as a composite of torch ops.",
            .effort = "Medium: 2-8 h per registration block for the XLA registration and its tests; the kernels "
                      "themselves are counted by TPU101.",
            .heuristic = "Read from the macro's arguments as written, so it works without torch headers. A dispatch "
                         "key spelled through another macro is not recognized.",
            .references = {"https://docs.pytorch.org/tutorials/advanced/cpp_custom_ops.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
