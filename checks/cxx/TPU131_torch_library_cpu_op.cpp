// TPU131: a PyTorch custom op defined in C++ (`TORCH_LIBRARY`) or given a CPU kernel
// (`TORCH_LIBRARY_IMPL(ns, CPU, m)`): without an XLA kernel it runs as a CPU fallback.
// User docs: docs/checks/TPU131.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/cxx/extension_glue.h"

namespace tpulint::checks {

namespace {

class TorchLibraryCpuOp final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::MacroUseFact& m : facts.macro_uses) {
      if (m.arguments.empty()) continue;
      const std::string& ns = m.arguments[0];
      if (m.name == "TORCH_LIBRARY" || m.name == "TORCH_LIBRARY_FRAGMENT") {
        ctx.report(m.span,
                   fmt::format("custom ops defined in C++ in namespace '{}' have no XLA kernel: on a TPU they run "
                               "through the CPU fallback", ns),
                   kHint, ns);
      } else if (std::string_view key = extension_glue::dispatch_key(m); extension_glue::is_cpu_key(key)) {
        ctx.report(m.span,
                   fmt::format("custom ops of '{}' registered with {} kernels run through the CPU fallback on a "
                               "TPU", ns, key),
                   kHint, ns);
      }
    }
  }

 private:
  static constexpr const char* kHint =
      "register an XLA implementation (TORCH_LIBRARY_IMPL(ns, XLA, m)) or a CompositeImplicitAutograd one written "
      "with torch ops, or define the op in Python with torch.library";
};

const TorchLibraryCpuOp kCheck;

}  // namespace

extern const CheckDef TPU131_torch_library_cpu_op{
    .info = {
        .id = "TPU131",
        .name = "torch-library-cpu-op",
        .summary = "PyTorch custom op defined in C++ or with a CPU kernel: CPU fallback on a TPU",
        .languages = Language::Cuda | Language::Cxx,
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "A `TORCH_LIBRARY(namespace, m)` / `TORCH_LIBRARY_FRAGMENT` block (custom operators defined "
                    "in C++), or a `TORCH_LIBRARY_IMPL(namespace, CPU, m)` block (their CPU kernels).",
            .why = "A custom op is opaque to XLA. Unless it has an `XLA` or `CompositeImplicitAutograd` "
                   "implementation, torch_xla runs it through the CPU fallback: the inputs are copied to the "
                   "host, the CPU kernel runs, the result is copied back, and the XLA graph is cut in two. It "
                   "works, slowly; a CPU-only custom op is a blocker for performance rather than for correctness.",
            .example = "TORCH_LIBRARY(myops, m) {\n  m.def(\"nms(Tensor boxes, Tensor scores, float iou) -> "
                       "Tensor\");\n}\nTORCH_LIBRARY_IMPL(myops, CPU, m) {\n  m.impl(\"nms\", &nms_cpu);\n}",
            .use_instead = "Give the op an `XLA` implementation (`TORCH_LIBRARY_IMPL(ns, XLA, m)`) or a "
                           "`CompositeImplicitAutograd` one written with torch ops, which torch_xla traces; or "
                           "replace the op with torch ops in Python.",
            .effort = "Medium, lower than a CUDA op (TPU130): 1-4 h per block, since a CPU kernel is usually "
                      "plain C++ over tensors that maps onto torch ops.",
            .heuristic = "Each `TORCH_LIBRARY` block is reported, even when another file registers an XLA or "
                         "composite implementation of its ops (the analysis is per file).",
            .references = {"https://docs.pytorch.org/tutorials/advanced/cpp_custom_ops.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
