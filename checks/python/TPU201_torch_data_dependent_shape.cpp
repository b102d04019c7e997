// TPU201: a PyTorch op whose output shape depends on tensor values (nonzero, unique, masked_select).
// User docs: docs/checks/TPU201.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

struct DynamicShapeOp {
  std::string_view name;
  std::string_view hint;
};

constexpr std::array<DynamicShapeOp, 3> kOps = {{
    {"masked_select", "keep the shape static: 'torch.where(mask, x, torch.zeros_like(x))', then reduce over the mask"},
    {"nonzero", "keep the shape static: compute with the boolean mask ('torch.where(mask, x, 0)') instead of "
                "gathering its indices"},
    {"unique", "compute it outside the step (on the host, once), or use a fixed-size count such as "
               "'torch.bincount(x, minlength=N)' over a known range"},
}};

const DynamicShapeOp* find_op(std::string_view name) {
  for (const auto& op : kOps)
    if (op.name == name) return &op;
  return nullptr;
}

class TorchDataDependentShape final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute && callee.kind() != Kind::Identifier) return;

    // Function form, through any alias: torch.nonzero(x), T.unique(x), nz(x).
    if (auto q = ctx.qualified_name(callee)) {
      constexpr std::string_view kTorch = "torch.";
      if (!q->starts_with(kTorch) || q->find('.', kTorch.size()) != std::string::npos) return;
      if (const DynamicShapeOp* op = find_op(std::string_view(*q).substr(kTorch.size())))
        ctx.report(call, fmt::format("'{}' returns a data-dependent shape", *q), std::string(op->hint), *q);
      return;
    }

    // Method form: x.nonzero(), (a > 0).unique(). The receiver's type is unknown, so this fires
    // only in files that import torch, and never on a receiver rooted at another import
    // (np.arange(3).nonzero() is NumPy's).
    if (callee.kind() != Kind::Attribute || !ctx.imports().imports("torch")) return;
    const DynamicShapeOp* op = find_op(callee.field(Field::Attribute).text());
    if (!op) return;
    Node root = callee.field(Field::Object);
    while (root.kind() == Kind::Attribute || root.kind() == Kind::Call) {
      root = root.kind() == Kind::Attribute ? root.field(Field::Object) : root.field(Field::Function);
    }
    if (root.kind() == Kind::Identifier) {
      if (auto rq = ctx.qualified_name(root); rq && !rq->starts_with("torch")) return;
    }
    std::string subject = fmt::format("torch.Tensor.{}", op->name);
    ByteSpan from_method{callee.field(Field::Attribute).span().begin, call.span().end};
    ctx.report(from_method, fmt::format("'.{}()' returns a data-dependent shape", op->name), std::string(op->hint), subject);
  }
};

const TorchDataDependentShape kCheck;

}  // namespace

extern const CheckDef TPU201_torch_data_dependent_shape{
    .info = {
        .id = "TPU201",
        .name = "torch-data-dependent-shape",
        .summary = "PyTorch op whose output shape depends on tensor values (nonzero, unique, masked_select)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "Calls of `torch.nonzero`, `torch.unique` and `torch.masked_select`, in function form "
                    "under any alias (`import torch as T; T.nonzero(x)`, `from torch import nonzero as nz`) "
                    "and in method form (`x.nonzero()`, `(x > 0).unique()`).",
            .why = "XLA compiles a graph for fixed shapes. An op whose output size depends on the values in "
                   "a tensor makes PyTorch/XLA either sync the device to read the size and recompile for "
                   "every new size, or fall back to the CPU. Inside a training step that is a stall on "
                   "every iteration.",
            .example = "idx = torch.nonzero(scores > 0.5)\nkept = boxes[idx[:, 0]]",
            .use_instead = "Keep shapes static and carry a mask instead of gathering:\n"
                           "`kept = torch.where((scores > 0.5)[:, None], boxes, 0)`\n"
                           "and reduce with the mask (`(x * mask).sum()`). Move `unique` out of the step.",
            .effort = "Medium: 1-4 h each, since the code after the op usually has to carry a mask or a "
                      "padded fixed size instead of a compacted tensor.",
            .heuristic = "The method form cannot know the receiver's type: it fires only in files that import "
                         "torch and never on a receiver rooted at another import (`np.unique(...)` and "
                         "`np.arange(3).nonzero()` are NumPy's). A NumPy array held in a local variable in a "
                         "torch file (`arr.nonzero()`) is still reported.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/perf/recompilation.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
