// TPU201: a PyTorch op whose output shape depends on tensor values (nonzero, unique, masked_select,
// argwhere, unique_consecutive, bincount).
// User docs: docs/checks/TPU201.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

struct DynamicShapeOp {
  std::string_view name;
  std::string_view hint;
};

constexpr std::array<DynamicShapeOp, 6> kOps = {{
    {"argwhere", "keep the shape static: compute with the boolean mask ('torch.where(mask, x, 0)') instead of "
                 "gathering its indices"},
    {"bincount", "count into a fixed number of bins K: 'torch.zeros(K).scatter_add_(0, x, weights)' or "
                 "'F.one_hot(x, K).sum(0)'"},
    {"masked_select", "keep the shape static: 'torch.where(mask, x, torch.zeros_like(x))', then reduce over the mask"},
    {"nonzero", "keep the shape static: compute with the boolean mask ('torch.where(mask, x, 0)') instead of "
                "gathering its indices"},
    {"unique", "compute it outside the step (on the host, once), or use a fixed-size count such as "
               "'F.one_hot(x, N).sum(0) > 0' over a known range of N values"},
    {"unique_consecutive", "compute it outside the step (on the host, once), or keep a fixed-size boolean mask "
                           "of run starts ('x[1:] != x[:-1]')"},
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
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = [] {
      std::array<std::string_view, kOps.size() + 1> names{};
      for (size_t i = 0; i < kOps.size(); ++i) names[i] = kOps[i].name;
      names.back() = "one_hot";
      return names;
    }();
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute && callee.kind() != Kind::Identifier) return;
    // The op is told by its name before anything costlier is asked.

    // Function form, through any alias: torch.nonzero(x), T.unique(x), nz(x).
    if (const auto& q = ctx.qualified_name(callee)) {
      // `F.one_hot(x)` is `x.max() + 1` wide unless `num_classes` is given.
      if (*q == "torch.nn.functional.one_hot") {
        if (dyn::in_data_loading(ctx)) return;  // a Dataset's __getitem__ runs on the host
        auto args = python::call_arguments(call);
        Node classes = pyapi::argument(args, 1, "num_classes");
        if (args.has_splat || (classes && pyapi::int_literal(classes) != -1)) return;
        ctx.report(call, fmt::format("'{}' without 'num_classes' has a data-dependent width", *q),
                   "pass 'num_classes=' (the number of classes, a constant)", *q);
        return;
      }
      constexpr std::string_view kTorch = "torch.";
      if (!q->starts_with(kTorch) || q->find('.', kTorch.size()) != std::string::npos) return;
      const DynamicShapeOp* op = find_op(std::string_view(*q).substr(kTorch.size()));
      if (op && !dyn::in_data_loading(ctx))
        ctx.report(call, fmt::format("'{}' returns a data-dependent shape", *q), std::string(op->hint), *q);
      return;
    }

    // Method form: x.nonzero(), (a > 0).unique(). The receiver's type is unknown: see the heuristic.
    const DynamicShapeOp* op = callee.kind() == Kind::Attribute ? find_op(callee.field(Field::Attribute).text()) : nullptr;
    if (!op || dyn::in_data_loading(ctx) || !pyapi::method_receiver_may_be(callee, ctx, "torch")) return;
    if (dyn::array_origin(callee.field(Field::Object), ctx) == dyn::ArrayOrigin::Other ||
        dyn::numpy_argument(call, ctx))
      return;
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
        .summary = "PyTorch op whose output shape depends on tensor values (nonzero, argwhere, unique, "
                   "unique_consecutive, masked_select, bincount, one_hot without num_classes)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `torch.nonzero`, `torch.argwhere`, `torch.unique`, `torch.unique_consecutive`, "
                    "`torch.masked_select` and `torch.bincount`, in function form "
                    "under any alias (`import torch as T; T.nonzero(x)`, `from torch import nonzero as nz`) "
                    "and in method form (`x.nonzero()`, `(x > 0).unique()`, `labels.bincount()`). "
                    "Also `F.one_hot(x)` without `num_classes` (or with -1), whose width is `x.max() + 1`. "
                    "`torch.nonzero(x, as_tuple=True)` is reported here too; the one-argument "
                    "`torch.where(cond)`, which is the same op, is TPU202. `bincount` is reported with "
                    "`minlength` too: its output is `max(x.max() + 1, minlength)` long.",
            .why = "XLA compiles a graph for fixed shapes. An op whose output size depends on the values in "
                   "a tensor makes PyTorch/XLA either sync the device to read the size and recompile for "
                   "every new size, or fall back to the CPU. Inside a training step that is a stall on "
                   "every iteration.",
            .example = "idx = torch.nonzero(scores > 0.5)\nkept = boxes[idx[:, 0]]",
            .use_instead = "Keep shapes static and carry a mask instead of gathering:\n"
                           "`kept = torch.where((scores > 0.5)[:, None], boxes, 0)`\n"
                           "and reduce with the mask (`(x * mask).sum()`). Move `unique` out of the step. Count into "
                           "a fixed number of bins instead of `bincount`: "
                           "`torch.zeros(K).scatter_add_(0, labels, torch.ones_like(labels, dtype=torch.float))`.",
            .effort = "Medium: 1-4 h each, since the code after the op usually has to carry a mask or a "
                      "padded fixed size instead of a compacted tensor.",
            .heuristic = "The method form cannot know the receiver's type: it fires only in files that import "
                         "torch, never on `self`/`cls` (a module's own method) and never on a receiver rooted at "
                         "another import (`np.unique(...)` and `np.arange(3).nonzero()` are NumPy's), nor on a local "
                         "name last assigned from NumPy or another non-torch library (`lab = cv2.connectedComponents"
                         "(...)[1]; (lab == i).nonzero()`), nor on an argument of a NumPy function "
                         "(`np.median(m.nonzero(), axis=1)`). A NumPy array passed in as a parameter is still reported. "
                         "Code in a Dataset `__getitem__` or a collate function runs on the host and is not "
                         "reported (in any form).",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/perf/recompilation.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
