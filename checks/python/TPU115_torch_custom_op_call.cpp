// TPU115: a call `torch.ops.<ns>.<op>(...)` of a custom operator, outside the namespaces that
// torch_xla compiles (aten, prims, xla, ...).
// User docs: docs/checks/TPU115.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// Namespaces whose ops torch_xla lowers or that PyTorch decomposes into them: ATen and prims,
// torch_xla's own, the functional collectives, higher-order ops (cond, while_loop, scan), the
// profiler's record-function markers and the decomposed quantization ops (Composite kernels).
constexpr std::array<std::string_view, 10> kPortableNamespaces = {
    "_c10d_functional", "_c10d_functional_autograd", "aten",     "c10d_functional",      "higher_order",
    "prim",             "prims",                     "profiler", "quantized_decomposed", "xla"};

class TorchCustomOpCall final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_modules() const override {
    static constexpr std::string_view k[] = {"torch.ops"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute) return;
    const auto& q = ctx.qualified_name(callee);
    constexpr std::string_view kOps = "torch.ops.";
    if (!q || !q->starts_with(kOps)) return;
    // torch.ops.<ns>.<op>[.<overload>]: at least a namespace and an op.
    std::string_view rest = std::string_view(*q).substr(kOps.size());
    size_t dot = rest.find('.');
    if (dot == std::string_view::npos) return;  // torch.ops.load_library(...), torch.ops.import_module(...)
    std::string_view ns = rest.substr(0, dot);
    std::string_view op = rest.substr(dot + 1);
    for (std::string_view p : kPortableNamespaces)
      if (ns == p) return;
    if (op.ends_with(".overloads") || op == "overloads") return;  // introspection, not a call of the op
    std::string_view op_name = op.substr(0, op.find('.'));
    // An op this file registers is judged where it is registered (TPU114).
    std::string_view text = ctx.tree().text();
    for (char quote : {'"', '\''}) {
      if (text.find(fmt::format("{}{}::", quote, ns)) != std::string_view::npos ||
          text.find(fmt::format("Library({}{}{}", quote, ns, quote)) != std::string_view::npos)
        return;
    }
    ctx.report(callee,
               fmt::format("custom op '{}::{}' has no XLA kernel; on a TPU it runs through torch_xla's CPU fallback, "
                           "or fails when it has only a CUDA kernel",
                           ns, op_name),
               "replace the call with torch ops that XLA compiles, or register an implementation of the op that "
               "XLA can compile (a Composite one, or a Pallas kernel)",
               fmt::format("torch.ops.{}.{}", ns, op_name));
  }
};

const TorchCustomOpCall kCheck;

}  // namespace

extern const CheckDef TPU115_torch_custom_op_call{
    .info = {
        .id = "TPU115",
        .name = "torch-custom-op-call",
        .summary = "call `torch.ops.<ns>.<op>(...)` of a custom operator that XLA cannot compile",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "Calls through `torch.ops` of operators outside the namespaces torch_xla handles "
                    "(`aten`, `prims`, `xla`, the functional collectives, `higher_order`, `profiler`, "
                    "`quantized_decomposed`): "
                    "`torch.ops.detectron2.nms_rotated(...)`, `torch.ops.mylib.fused_rope.default(...)`, "
                    "`torch.ops._caffe2.RoIAlign(...)`. Ops registered in the same file are left to TPU114.",
            .why = "A custom operator's kernels are native CPU or CUDA code registered with the dispatcher. "
                   "torch_xla has no lowering for them: an op with a CPU kernel runs through the CPU fallback "
                   "(a device-to-host copy each way, and a graph break, on every call); an op with only a CUDA "
                   "kernel fails.",
            .example = "keep = torch.ops.detectron2.nms_rotated(boxes, scores, 0.5)",
            .use_instead = "Compute the same thing with torch ops that XLA compiles (for NMS-like ops, a "
                           "fixed-size formulation with masks), or give the op an implementation XLA can compile "
                           "(`torch.library.impl(\"ns::op\", \"CompositeImplicitAutograd\")` written with torch ops, "
                           "or a Pallas kernel through `torch_xla.experimental.custom_kernel`).",
            .effort = "Medium: 1-4 h per call site; the op's kernels are counted where they are defined.",
            .heuristic = "The op's kernels are not visible from the call: it is reported as a warning (it may run "
                         "through the CPU fallback). A namespace given a Composite implementation in another file "
                         "of the project is still reported (a false positive).",
            .references = {"https://docs.pytorch.org/docs/stable/library.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
