// TPU204: indexing a tensor with a boolean mask (`x[mask]`, `x[x > 0]`), a data-dependent shape.
// User docs: docs/checks/TPU204.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// True when an earlier subscript of the same statement is indexed by the same mask
// (`inter[mask] = (x2[mask] - x1[mask])` is one finding, at its first subscript).
bool repeated_in_statement(Node subscript, Node mask, const python::PythonContext& ctx) {
  Node statement = subscript;
  for (Node p = statement.parent(); p && p.kind() != Kind::Block && p.kind() != Kind::Module; p = p.parent())
    statement = p;
  std::vector<Node> stack{statement};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (n.span().begin >= subscript.span().begin) continue;
    if (n.kind() == Kind::Subscript)
      for (Node index : dyn::subscript_indices(n))
        if (index.text() == mask.text()) return true;
    for (uint32_t i = 0; i < n.named_child_count(); ++i) stack.push_back(n.named_child(i));
  }
  return false;
}

class TorchBooleanMaskIndexing final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Subscript};
    return k;
  }

  void check(Node subscript, python::PythonContext& ctx) const override {
    if (!ctx.imports().imports("torch") || dyn::in_data_loading(ctx)) return;
    Node value = subscript.field(Field::Value);
    if (!value || dyn::indexes_other_library(value, ctx, "torch")) return;
    Node mask;
    for (Node index : dyn::subscript_indices(subscript))
      if (dyn::is_torch_mask(index, ctx)) mask = index;
    // The numpy-only test walks the whole function: asked last.
    if (!mask || dyn::in_numpy_only_function(ctx)) return;
    // A NumPy array indexed by a mask, or an array of unknown origin by a NumPy mask.
    dyn::ArrayOrigin origin = dyn::array_origin(value, ctx);
    if (origin == dyn::ArrayOrigin::Other) return;
    if (origin == dyn::ArrayOrigin::Unknown && dyn::array_origin(mask, ctx) == dyn::ArrayOrigin::Other) return;
    if (dyn::numpy_argument(subscript, ctx) || repeated_in_statement(subscript, mask, ctx)) return;
    Node parent = subscript.parent();
    bool stored = parent && (parent.kind() == Kind::Assignment || parent.kind() == Kind::AugmentedAssignment) &&
                  parent.field(Field::Left) == subscript;
    if (stored) {
      ctx.report(subscript, fmt::format("assignment through the boolean mask '{}' has a data-dependent index set", mask.text()),
                 "use 'x.masked_fill_(mask, v)' or 'x = torch.where(mask, v, x)'", "boolean-mask assignment");
    } else {
      ctx.report(subscript, fmt::format("indexing with the boolean mask '{}' gives a data-dependent shape", mask.text()),
                 "keep the shape: 'torch.where(mask, x, 0)', or reduce with the mask ('(x * mask).sum()')",
                 "boolean-mask indexing");
    }
  }
};

const TorchBooleanMaskIndexing kCheck;

}  // namespace

extern const CheckDef TPU204_torch_boolean_mask_indexing{
    .info = {
        .id = "TPU204",
        .name = "torch-boolean-mask-indexing",
        .summary = "tensor indexed with a boolean mask (x[mask], x[x > 0]), a data-dependent shape",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {0.5, 3},
        .device_code_only = true,
        .doc = {
            .what = "Subscripts whose index is a boolean mask, in files that import torch: `x[mask]`, "
                    "`x[x > 0]`, `x[m & (y < 3)]`, `x[~valid]`, `x[:, torch.isnan(x).any(0)]`, and "
                    "assignments through one (`x[mask] = 0`).",
            .why = "Reading `x[mask]` returns `mask.sum()` elements: PyTorch/XLA lowers it through "
                   "`nonzero`, so it syncs with the device to learn the count and compiles a new graph for "
                   "each count (or falls back to the CPU). Writing `x[mask] = v` goes through the same "
                   "index computation.",
            .example = "valid = labels >= 0\nloss = F.cross_entropy(logits[valid], labels[valid])",
            .use_instead = "Keep every element and carry the mask: "
                           "`loss = (F.cross_entropy(logits, labels.clamp(min=0), reduction='none') * valid)"
                           ".sum() / valid.sum()`, or use `ignore_index=-1`. For writes: "
                           "`x.masked_fill_(mask, 0)` or `x = torch.where(mask, v, x)`.",
            .effort = "Medium: 0.5-3 h, since the code after the indexing must carry the mask.",
            .heuristic = "The index is taken for a boolean mask when it is an elementwise comparison "
                         "(`<`, `>=`, `==`, `!=`, not `is`/`in`, not with a string or None), `&`, `|`, `^` over "
                         "one, `~name`, a torch predicate (`torch.isnan`, `x.eq(y)`, `m.bool()`, "
                         "`logical_and`, ...), or a local name last assigned from one of those; a name with no "
                         "such assignment counts when its last word is \"mask\" or \"masks\" (`valid_mask`, "
                         "`mask_i`; not `mask_idx`, `mask_label_symmetries`). Repeated uses of one mask in one "
                         "statement are one finding. Functions that call NumPy and never torch, and arguments "
                         "of NumPy functions or `torch.from_numpy`, are NumPy code and not reported, and so is "
                         "host-side data preparation (a Dataset `__getitem__`, a collate function). The subscripted value's type is followed through local assignments: an "
                         "array made by NumPy or another non-torch library (`a = np.zeros(n)`, `m.numpy()`, "
                         "`.astype()`), or of unknown origin and indexed by such a mask, is not reported, nor "
                         "are values rooted at another import or `.loc`/`.iloc`/`.at` accessors. A NumPy array "
                         "passed in as a parameter or read from a field is reported; a boolean tensor under another name "
                         "(`keep = batch[\"keep\"]; x[keep]`) is missed.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/perf/recompilation.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
