// TPU303: float64 or complex128 tensors in PyTorch code (torch.float64, .double(), set_default_dtype).
// User docs: docs/checks/TPU303.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

// The 64-bit dtypes and tensor type, complex ones last.
constexpr std::array<std::string_view, 5> kFloat64Names = {"torch.float64", "torch.double", "torch.DoubleTensor",
                                                           "torch.complex128", "torch.cdouble"};
bool is_complex(std::string_view q) { return q == "torch.complex128" || q == "torch.cdouble"; }
bool is_float64(std::string_view q) {
  return std::find(kFloat64Names.begin(), kFloat64Names.end(), q) != kFloat64Names.end();
}

// The tensor factories, which build on the CPU unless given a device.
bool is_factory(std::string_view q) {
  for (std::string_view f : {"torch.tensor", "torch.as_tensor", "torch.zeros", "torch.ones", "torch.empty",
                             "torch.full", "torch.arange", "torch.linspace", "torch.logspace", "torch.rand", "torch.randn",
                             "torch.eye", "torch.randint", "torch.randperm"})
    if (q == f) return true;
  return false;
}

// The call whose argument list holds `n` (directly or as a keyword value), or null.
Node enclosing_call(Node n, const python::PythonContext& ctx) {
  Node p = n.parent();
  if (p && p.kind() == Kind::KeywordArgument) p = p.parent();
  if (p && p.kind() == Kind::ArgumentList) return p.parent();
  return Node();
}

// Uses that never put a 64-bit tensor on the device: a dtype query (`torch.finfo`), a tensor
// built explicitly on the CPU, a dict of dtype names, and a branch chosen only when the
// condition already tests for float64 (`torch.float64 if default == torch.float64 else ...`).
bool harmless_use(Node n, const python::PythonContext& ctx) {
  if (pa::in_test(n, ctx)) return true;
  if (pa::in_dict_entry(n, ctx)) return true;
  Node p = n.parent();
  // A list of dtypes to loop or parametrize over (`for dtype in [torch.float32, torch.float64]`)
  // is a menu: what each dtype builds is decided where it is used.
  if (p && (p.kind() == Kind::List || p.kind() == Kind::Tuple)) {
    for (uint32_t i = 0; i < p.named_child_count(); ++i) {
      const auto& q = ctx.qualified_name(p.named_child(i));
      if (q && q->starts_with("torch.") && !is_float64(*q) && (q->find("float") != std::string::npos ||
                                                               q->ends_with("half") || q->ends_with(".float")))
        return true;
    }
  }
  if (p && p.kind() == Kind::ConditionalExpression && p.named_child_count() == 3 && p.named_child(1) != n) {
    std::string_view cond = p.named_child(1).text();
    if (cond.find("float64") != std::string_view::npos || cond.find("double") != std::string_view::npos) return true;
  }
  if (Node call = enclosing_call(n, ctx)) {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (q && (*q == "torch.finfo" || *q == "torch.iinfo")) return true;
    python::CallArguments args = python::call_arguments(call);
    Node device = args.keyword("device");
    if (auto d = pa::string_literal(device); d && *d == "cpu") return true;
    // A factory without `device=` builds a host tensor: torch.tensor(weights, dtype=torch.float64).
    if (q && is_factory(*q) && !device && !args.has_splat) return true;
  }
  return false;
}

class TorchFloat64 final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"double"};
    return k;
  }
  void check(Node n, python::PythonContext& ctx) const override { check_method(n, ctx); }

  bool checks_references() const override { return true; }
  std::span<const std::string_view> reference_names() const override { return kFloat64Names; }
  void check_reference(Node n, const std::string& q, python::PythonContext& ctx) const override {
    if (!is_float64(q) || harmless_use(n, ctx)) return;

    // torch.set_default_dtype(torch.float64): every later float tensor is 64-bit.
    if (Node call = enclosing_call(n, ctx)) {
      const auto& callee = ctx.qualified_name(call.field(Field::Function));
      if (callee && *callee == "torch.set_default_dtype") {
        Finding& f = ctx.report(call, fmt::format("'torch.set_default_dtype({})' makes every new float tensor 64-bit, "
                                                  "which a TPU emulates in software",
                                                  n.text()),
                                "keep the default float32 and cast only the values that need float64, on the host",
                                "torch.set_default_dtype");
        f.effort = EffortClass::Medium;
        f.hours = {1, 4};
        return;
      }
    }
    if (is_complex(q)) {
      ctx.report(n, fmt::format("'{}' is built on float64, which a TPU emulates in software", q),
                 "use 'torch.complex64', or keep the complex128 math on the host", q);
      return;
    }
    ctx.report(n, fmt::format("'{}' makes 64-bit float tensors, which a TPU emulates in software", q),
               "use 'torch.float32' (or bfloat16), and keep float64 math on the host", q);
  }

  // x.double(): the method exists on tensors and modules only (NumPy arrays have none).
  static void check_method(Node call, python::PythonContext& ctx) {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute || callee.field(Field::Attribute).text() != "double") return;
    if (ctx.qualified_name(callee) || !pa::method_receiver_may_be(callee, ctx, "torch")) return;
    if (!python::call_arguments(call).positional.empty()) return;
    ctx.report(pa::from_method_name(call), "'.double()' converts to float64, which a TPU emulates in software",
               "use '.float()' (or '.bfloat16()'), and keep float64 math on the host", "torch.Tensor.double");
  }
};

const TorchFloat64 kCheck;

}  // namespace

extern const CheckDef TPU303_torch_float64{
    .info = {
        .id = "TPU303",
        .name = "torch-float64",
        .summary = "float64 or complex128 in PyTorch code (torch.float64, torch.double, .double(), set_default_dtype)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "References to `torch.float64`, `torch.double`, `torch.complex128`, `torch.cdouble` and "
                    "`torch.DoubleTensor` (as `dtype=`, in `.to(...)`, in a parameter list), `.double()` calls, "
                    "and `torch.set_default_dtype(torch.float64)`.",
            .why = "TPUs have no 64-bit floating-point units. XLA rewrites float64 (and complex128, built on it) "
                   "into sequences of 32-bit operations: correct for most ops, many times slower, and some HLOs "
                   "have no rewrite at all. PyTorch/XLA maps `torch.double` to XLA F64 and so takes that path.",
            .example = "x = torch.zeros(n, dtype=torch.float64)\nloss = logits.double().logsumexp(-1)",
            .use_instead = "Use `torch.float32` (or `torch.bfloat16` under autocast) on the device. When a value "
                           "truly needs 64 bits (an accumulator over millions of steps, a covariance), compute it "
                           "on the host, or use compensated float32 sums.",
            .effort = "Low: 0.25-1 h per site to change a dtype and check the numerics; medium (1-4 h) for "
                      "`set_default_dtype(torch.float64)`, which changes every tensor the program makes.",
            .heuristic = "Not reported: comparisons and type tests (`x.dtype == torch.float64`, `dtype in (...)`), "
                         "`torch.finfo(torch.float64)`, tensors built on the host (a factory such as `torch.tensor` or "
                         "`torch.zeros` with `device=\"cpu\"` or with no device at all), dtype names "
                         "in a dict or in a list next to another float dtype (a lookup table or a loop over dtypes: "
                         "the choice is made where the dtype is used), and a branch taken only when "
                         "the condition already tests float64 (`torch.float64 if torch.get_default_dtype() == "
                         "torch.float64 else torch.float32`). NumPy's `np.float64` is never reported: it runs on "
                         "the host. The check cannot see where an existing tensor lives: `.double()` or "
                         "`.to(torch.float64)` on a host tensor (checkpoint averaging, a sampler's weights) is reported although it never "
                         "reaches the TPU; a host factory moved to the device later, and a float64 array turned into "
                         "a tensor with `torch.from_numpy`, are not reported.",
            .references = {"https://docs.jax.dev/en/latest/default_dtypes.html",
                           "https://github.com/pytorch/xla/blob/master/torch_xla/csrc/dtype.cpp"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
