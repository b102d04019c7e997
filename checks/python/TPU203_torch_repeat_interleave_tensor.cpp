// TPU203: `repeat_interleave` with tensor repeats, whose output length is the repeats' sum.
// User docs: docs/checks/TPU203.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// Names that hold one count per element (`lengths`, `seq_lens`, `counts`, `repeats`), as
// opposed to one count for all (`n_rep`, `num_heads`, `groups`).
bool named_like_counts(std::string_view name) {
  std::string lower = pyapi::ascii_lower(name);
  for (std::string_view plural : {"lengths", "lens", "counts", "sizes", "repeats", "durations"})
    if (lower.find(plural) != std::string::npos) return true;
  return false;
}

// True when `repeats` is likely a tensor: a torch call, a Tensor method's result, a name last
// assigned from one, or a name of per-element counts. Python ints (`n_rep`, `len(x)`, `3`) are not.
bool tensor_repeats(Node repeats, const python::PythonContext& ctx, int hops = 0) {
  repeats = python::unparenthesized(repeats);
  if (!repeats) return false;
  if (repeats.kind() == Kind::BinaryOperator)
    return tensor_repeats(repeats.field(Field::Left), ctx, hops) ||
           tensor_repeats(repeats.field(Field::Right), ctx, hops);
  if (repeats.kind() == Kind::Call) {
    Node callee = repeats.field(Field::Function);
    if (const auto& q = ctx.qualified_name(callee)) return q->starts_with("torch.");
    if (!pyapi::method_receiver_may_be(callee, ctx, "torch")) return false;
    std::string_view method = callee.field(Field::Attribute).text();
    return method != "item" && method != "size" && method != "numel" && method != "dim" && method != "tolist";
  }
  if (repeats.kind() == Kind::Subscript) return tensor_repeats(repeats.field(Field::Value), ctx, hops);
  if (repeats.kind() == Kind::Identifier && hops < 3) {
    if (Node value = dyn::last_assignment(repeats.text(), repeats.span().begin, ctx))
      return tensor_repeats(value, ctx, hops + 1);
  }
  return named_like_counts(python::last_name(repeats));
}

class TorchRepeatInterleaveTensor final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"repeat_interleave"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    const auto& q = ctx.qualified_name(callee);
    // Only repeat_interleave matters: tell it by name before building the argument list.
    if (q ? *q != "torch.repeat_interleave"
          : callee.kind() != Kind::Attribute || callee.field(Field::Attribute).text() != "repeat_interleave")
      return;
    auto args = python::call_arguments(call);
    if (args.has_splat || args.keyword("output_size") || dyn::in_data_loading(ctx)) return;
    if (q) {
      // `torch.repeat_interleave(repeats)`: the one-argument overload repeats each index.
      bool counts_only = args.positional.size() == 1 && !args.keyword("repeats");
      if (!counts_only && !tensor_repeats(pyapi::argument(args, 1, "repeats"), ctx)) return;
      ctx.report(call, fmt::format("'{}' with tensor repeats has a data-dependent output length", *q), hint(), *q);
      return;
    }
    if (!pyapi::method_receiver_may_be(callee, ctx, "torch")) return;
    if (!tensor_repeats(pyapi::argument(args, 0, "repeats"), ctx)) return;
    ctx.report(pyapi::from_method_name(call),
               "'.repeat_interleave()' with tensor repeats has a data-dependent output length", hint(),
               "torch.Tensor.repeat_interleave");
  }

 private:
  static std::string hint() {
    return "pass 'output_size=' with a static bound (padding the rest), or repeat by a Python int";
  }
};

const TorchRepeatInterleaveTensor kCheck;

}  // namespace

extern const CheckDef TPU203_torch_repeat_interleave_tensor{
    .info = {
        .id = "TPU203",
        .name = "torch-repeat-interleave-tensor",
        .summary = "repeat_interleave with tensor repeats (output length = repeats.sum())",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 3},
        .device_code_only = true,
        .doc = {
            .what = "`torch.repeat_interleave(x, repeats)` and `x.repeat_interleave(repeats)` whose "
                    "`repeats` is a tensor, and the one-argument `torch.repeat_interleave(repeats)`, when "
                    "no `output_size=` is given. Repeating by a Python int (`k.repeat_interleave(n_rep, "
                    "dim=1)`) has a static shape and is not reported.",
            .why = "With a tensor of repeats the output length is `repeats.sum()`, known only from the "
                   "values. PyTorch/XLA has no lowering for that overload: it reads the repeats back to "
                   "the host and compiles a new graph for each total, or runs the op on the CPU.",
            .example = "tokens = hidden.repeat_interleave(durations, dim=0)",
            .use_instead = "Give the length a static bound and pad: "
                           "`hidden.repeat_interleave(durations, dim=0, output_size=max_frames)` (the sum must "
                           "equal `output_size`, so pad `durations` so that it does), or build the index with "
                           "`torch.searchsorted(durations.cumsum(0), torch.arange(max_frames), right=True)`.",
            .effort = "Medium: 1-3 h, to choose a bound and pad the data to it.",
            .heuristic = "`repeats` is taken for a tensor when it is a torch call, a Tensor method's result "
                         "(other than `.item()`, `.size()`, `.numel()`, `.tolist()`), a local name last "
                         "assigned from one, or a name of per-element counts (containing `lengths`, `lens`, "
                         "`counts`, `sizes`, `repeats` or `durations`). A tensor held in another name "
                         "(`r = batch[\"r\"]`) is missed; a Python list named `lengths` is reported. Code in a "
                         "Dataset `__getitem__` or a collate function runs on the host and is not reported.",
            .references = {"https://docs.pytorch.org/docs/stable/generated/torch.repeat_interleave.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
