// TPU205: a number read from tensor values (`.item()`, `len(x.nonzero())`, `t.max()`) used as a
// shape, a slice bound or a loop count. User docs: docs/checks/TPU205.md (generated below).
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

// A torch function or Tensor method taking sizes: its positional size arguments
// [first, last] (last = -1: to the end) and its size keywords.
struct SizeArguments {
  std::string_view name;
  int first;
  int last;
  std::array<std::string_view, 3> keywords;
};

constexpr std::array<SizeArguments, 11> kFunctions = {{
    {"arange", 0, -1, {"start", "end", "step"}},
    {"empty", 0, -1, {"size"}},
    {"eye", 0, -1, {"n", "m"}},
    {"full", 0, 0, {"size"}},
    {"linspace", 2, 2, {"steps"}},
    {"narrow", 3, 3, {"length"}},
    {"ones", 0, -1, {"size"}},
    {"rand", 0, -1, {"size"}},
    {"randn", 0, -1, {"size"}},
    {"randperm", 0, 0, {"n"}},
    {"zeros", 0, -1, {"size"}},
}};

constexpr std::array<SizeArguments, 11> kMethods = {{
    {"expand", 0, -1, {"size"}},
    {"narrow", 2, 2, {"length"}},
    {"new_empty", 0, -1, {"size"}},
    {"new_full", 0, 0, {"size"}},
    {"new_ones", 0, -1, {"size"}},
    {"new_zeros", 0, -1, {"size"}},
    {"repeat", 0, -1, {"repeats"}},
    {"reshape", 0, -1, {"shape"}},
    {"split", 0, 0, {"split_size"}},
    {"unflatten", 1, 1, {"sizes"}},
    {"view", 0, -1, {"size"}},
}};

template <size_t N>
const SizeArguments* find_sizes(const std::array<SizeArguments, N>& table, std::string_view name) {
  for (const auto& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

// The first size argument (or element of a size tuple) read from tensor values, and how.
std::optional<std::pair<Node, std::string>> host_size(const python::CallArguments& args, const SizeArguments& spec,
                                                      const python::PythonContext& ctx) {
  std::vector<Node> sizes;
  for (size_t i = size_t(spec.first); i < args.positional.size(); ++i) {
    if (spec.last >= 0 && i > size_t(spec.last)) break;
    sizes.push_back(args.positional[i]);
  }
  for (std::string_view k : spec.keywords)
    if (!k.empty())
      if (Node v = args.keyword(k)) sizes.push_back(v);
  for (Node s : sizes) {
    Node u = python::unparenthesized(s);
    std::vector<Node> elements{u};
    if (u.kind() == Kind::Tuple || u.kind() == Kind::List) {
      elements.clear();
      for (uint32_t i = 0; i < u.named_child_count(); ++i) elements.push_back(u.named_child(i));
    }
    for (Node e : elements)
      if (auto how = dyn::host_value_from_tensor(e, ctx)) return std::make_pair(e, *how);
  }
  return std::nullopt;
}

constexpr std::string_view kHint =
    "keep the size static (a padded maximum, with a mask for the valid part), or compute it once outside the step";

class TorchTensorValueAsShape final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::Subscript};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = [] {
      std::array<std::string_view, kFunctions.size() + kMethods.size() + 1> names{};
      auto out = names.begin();
      for (const SizeArguments& f : kFunctions) *out++ = f.name;
      for (const SizeArguments& m : kMethods) *out++ = m.name;
      *out = "range";
      return names;
    }();
    return k;
  }

  void check(Node n, python::PythonContext& ctx) const override {
    if (n.kind() == Kind::Subscript)
      check_slices(n, ctx);
    else
      check_call(n, ctx);
  }

 private:
  // Torch code that runs on the device; asked once a node could be a finding.
  static bool in_torch_device_code(const python::PythonContext& ctx) {
    return ctx.imports().imports("torch") && !dyn::in_data_loading(ctx);
  }

  static void check_slices(Node subscript, python::PythonContext& ctx) {
    // Only slice bounds are read below: most subscripts have none.
    bool sliced = false;
    for (uint32_t i = 0; i < subscript.named_child_count() && !sliced; ++i)
      sliced = subscript.named_child(i).kind() == Kind::Slice;
    if (!sliced || !in_torch_device_code(ctx)) return;
    if (dyn::indexes_other_library(subscript.field(Field::Value), ctx, "torch")) return;
    for (Node index : dyn::subscript_indices(subscript)) {
      if (index.kind() != Kind::Slice) continue;
      for (uint32_t i = 0; i < index.named_child_count(); ++i) {
        Node bound = index.named_child(i);
        if (auto how = dyn::host_value_from_tensor(bound, ctx)) {
          ctx.report(subscript,
                     fmt::format("slice bound '{}' is read from tensor values ({}): the result's shape changes "
                                 "with the data",
                                 bound.text(), *how),
                     std::string(kHint), "tensor value as a slice bound");
          return;
        }
      }
    }
  }

  static void check_call(Node call, python::PythonContext& ctx) {
    Node callee = call.field(Field::Function);
    static constexpr SizeArguments kRange{"range", 0, -1, {}};
    const SizeArguments* spec = nullptr;
    const auto& q = ctx.qualified_name(callee);
    if (q) {
      if (!q->starts_with("torch.") || q->find('.', 6) != std::string::npos) return;
      spec = find_sizes(kFunctions, std::string_view(*q).substr(6));
    } else if (callee.kind() == Kind::Identifier && callee.text() == "range") {
      spec = &kRange;
    } else if (callee.kind() == Kind::Attribute) {
      spec = find_sizes(kMethods, callee.field(Field::Attribute).text());
      if (spec && !pyapi::method_receiver_may_be(callee, ctx, "torch")) spec = nullptr;
    }
    if (!spec || !in_torch_device_code(ctx)) return;
    std::string subject = q ? *q : spec == &kRange ? "range" : fmt::format("torch.Tensor.{}", spec->name);
    auto args = python::call_arguments(call);
    auto found = host_size(args, *spec, ctx);
    if (!found) return;
    auto [arg, how] = *found;
    if (subject == "range") {
      ctx.report(call,
                 fmt::format("loop count '{}' is read from tensor values ({}): the traced graph changes with the data",
                             arg.text(), how),
                 "loop a static number of times and mask the extra iterations, or use 'torch_xla' "
                 "'fori_loop'/'while_loop'",
                 "tensor value as a loop count");
      return;
    }
    ctx.report(call,
               fmt::format("size '{}' of '{}' is read from tensor values ({}): the shape changes with the data",
                           arg.text(), subject, how),
               std::string(kHint), "tensor value as a shape");
  }
};

const TorchTensorValueAsShape kCheck;

}  // namespace

extern const CheckDef TPU205_torch_tensor_value_as_shape{
    .info = {
        .id = "TPU205",
        .name = "torch-tensor-value-as-shape",
        .summary = "number read from tensor values used as a shape, slice bound or loop count",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "A number read from tensor values used as a size: `torch.zeros(n.item())`, "
                    "`torch.arange(lengths.max())`, `x.view(t.item(), -1)`, `x[:n]` or `range(n)` where `n` "
                    "came from `.item()`, `.tolist()`, `int(t.sum())`, `len(torch.nonzero(m))`, "
                    "`x[mask].shape[0]`, possibly through local names and arithmetic (`n = k.item() + 1`).",
            .why = "XLA compiles one graph per set of shapes. A size read from tensor values first syncs "
                   "the device (the value must reach the host), then gives the next ops a shape that changes "
                   "with the data, so PyTorch/XLA compiles a new graph for every new value: a training step "
                   "that recompiles on most iterations.",
            .example = "n_pos = int((labels > 0).sum())\npos = torch.zeros(n_pos, dim)\ntop = scores[:n_pos]",
            .use_instead = "Use a static size (the batch's padded maximum, a config constant) and carry a mask "
                           "for the valid part: `pos = torch.zeros(max_pos, dim); valid = torch.arange(max_pos) "
                           "< n_pos_tensor`. Loops over a data-dependent count become a static loop with masking, "
                           "or torch_xla's `fori_loop`/`while_loop`.",
            .effort = "Medium: 1-4 h, to choose a static bound and mask the padding.",
            .heuristic = "A value counts as read from tensors when it is `.item()`/`.tolist()` on a receiver "
                         "that may be a tensor (files importing torch; not rooted at another import), a "
                         "reduction with no arguments (`t.sum()`, `t.max()`, `torch.max(t)`), `int()`/`round()` "
                         "of one, the length of a data-dependent result (`len(x.nonzero())`, "
                         "`x[mask].size(0)`), arithmetic on one, a bound of one (`max(int(n), 0)`, `min(n, k)`, `abs(n)`), "
                         "or a local name last assigned from one (up to "
                         "three hops). Code in a Dataset `__getitem__` or a collate function runs on the host "
                         "and is not reported. A NumPy array's `.sum()` in a torch file is reported; a value "
                         "passed in from another function is missed.",
            .references = {"https://docs.pytorch.org/xla/master/perf/recompilation.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
