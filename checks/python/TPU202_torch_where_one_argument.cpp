// TPU202: the one-argument `torch.where(cond)`, which returns the indices of the true elements.
// User docs: docs/checks/TPU202.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

class TorchWhereOneArgument final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"where"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (!q || *q != "torch.where" || dyn::in_data_loading(ctx)) return;
    auto args = python::call_arguments(call);
    if (args.has_splat || args.positional.size() + args.keywords.size() != 1) return;
    ctx.report(call, fmt::format("one-argument '{}' returns the indices of the true elements, a data-dependent shape", *q),
               "use the three-argument form 'torch.where(cond, x, other)' and keep the result as a mask", *q);
  }
};

const TorchWhereOneArgument kCheck;

}  // namespace

extern const CheckDef TPU202_torch_where_one_argument{
    .info = {
        .id = "TPU202",
        .name = "torch-where-one-argument",
        .summary = "one-argument torch.where(cond), a nonzero in disguise",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `torch.where` with a single argument (`torch.where(cond)`, "
                    "`torch.where(condition=m)`), under any alias of torch. The three-argument "
                    "`torch.where(cond, x, y)` is the static-shape select and is not reported.",
            .why = "`torch.where(cond)` is `torch.nonzero(cond, as_tuple=True)`: a tuple of index tensors "
                   "whose length is the number of true elements. PyTorch/XLA cannot know that length when it "
                   "traces the graph, so it syncs with the device to read it and compiles a new graph for "
                   "every new count, or runs the op on the CPU.",
            .example = "rows, cols = torch.where(scores > 0.5)\nkept = scores[rows, cols]",
            .use_instead = "Select with the three-argument form and carry the mask:\n"
                           "`kept = torch.where(scores > 0.5, scores, 0.0)`\n"
                           "then reduce with the mask (`kept.sum() / (scores > 0.5).sum()`). When indices are "
                           "really needed, pad to a known count with `torch.topk` on the mask.",
            .effort = "Medium: 1-4 h, since the code reading the indices usually has to carry a mask instead.",
            .heuristic = "None: the call resolves to `torch.where` through the imports. "
                         "`nonzero(as_tuple=True)` is reported by TPU201, with the other nonzero forms. Code in "
                         "a Dataset `__getitem__` or a collate function runs on the host and is not reported.",
            .references = {"https://docs.pytorch.org/docs/stable/generated/torch.where.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/perf/recompilation.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
