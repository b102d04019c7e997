// TPU401: code that places tensors or modules on a CUDA device (.cuda(), .to("cuda"), device="cuda").
// User docs: docs/checks/TPU401.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

bool is_cuda_device_string(std::string_view s) { return s == "cuda" || s.starts_with("cuda:"); }

// A string literal naming a CUDA device, or a conditional expression with one in a branch
// ("cuda" if torch.cuda.is_available() else "cpu"): the returned node is the string.
Node cuda_device_literal(Node expr) {
  if (auto s = python::string_value(expr)) return is_cuda_device_string(*s) ? expr : Node();
  if (expr.kind() == Kind::ConditionalExpression) {
    // `a if cond else b`: the named children are a, cond, b.
    for (uint32_t i : {0u, 2u})
      if (Node hit = cuda_device_literal(expr.named_child(i))) return hit;
  }
  return Node();
}

constexpr std::string_view kHint = "use the XLA device: 'device = torch_xla.device()' and '.to(device)'";

class CudaDevicePlacement final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    python::CallArguments args = python::call_arguments(call);

    if (callee.kind() == Kind::Attribute) {
      std::string_view method = callee.field(Field::Attribute).text();
      // x.cuda(): only on a receiver that is not an imported module (torch.cuda is not a call).
      if (method == "cuda" && !ctx.qualified_name(callee)) {
        ByteSpan from_method{callee.field(Field::Attribute).span().begin, call.span().end};
        ctx.report(from_method, "'.cuda()' moves the tensor or module to a CUDA device", std::string(kHint), ".cuda()");
      }
      // x.to("cuda") / x.to("cuda:0"); the keyword form is reported below as device=.
      if (method == "to" && !args.positional.empty()) {
        if (Node s = cuda_device_literal(args.positional[0]))
          ctx.report(s, fmt::format("'.to({})' moves the tensor or module to a CUDA device", s.text()),
                     std::string(kHint), ".to(\"cuda\")");
      }
    }

    // torch.device("cuda"), torch.device("cuda", 0), torch.device(type="cuda").
    if (auto q = ctx.qualified_name(callee); q && *q == "torch.device") {
      Node arg = !args.positional.empty() ? args.positional[0] : args.keyword("type");
      if (arg) {
        if (Node s = cuda_device_literal(arg))
          ctx.report(s, fmt::format("'torch.device({})' names a CUDA device", s.text()), std::string(kHint),
                     "torch.device(\"cuda\")");
      }
      return;
    }

    // device="cuda" as a keyword argument of any call; map_location="cuda" in torch.load.
    if (Node value = args.keyword("device")) {
      if (Node s = cuda_device_literal(value))
        ctx.report(s, fmt::format("'device={}' places the computation on a CUDA device", s.text()),
                   std::string(kHint), "device=\"cuda\"");
    }
    if (Node value = args.keyword("map_location")) {
      if (Node s = cuda_device_literal(value))
        ctx.report(s, fmt::format("'map_location={}' loads the tensors onto a CUDA device", s.text()),
                   "load to the CPU ('map_location=\"cpu\"'), then move the model to the XLA device",
                   "map_location=\"cuda\"");
    }
  }
};

const CudaDevicePlacement kCheck;

}  // namespace

extern const CheckDef TPU401_cuda_device_placement{
    .info = {
        .id = "TPU401",
        .name = "cuda-device-placement",
        .summary = "tensor or module placed on a CUDA device (`.cuda()`, `.to(\"cuda\")`, `device=\"cuda\"`)",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = "`.cuda()` calls, `.to(\"cuda\")` / `.to(\"cuda:0\")`, `device=\"cuda\"` keyword arguments, "
                    "`torch.device(\"cuda\")` and `torch.load(..., map_location=\"cuda\")`, including a `\"cuda\"` in either branch of a conditional "
                    "(`\"cuda\" if torch.cuda.is_available() else \"cpu\"`).",
            .why = "A TPU host has no CUDA device: these calls fail there, or silently fall back to the CPU "
                   "when guarded by `torch.cuda.is_available()`, which runs the model without the TPU.",
            .example = "model = Net().cuda()\nx = x.to(\"cuda\")\nmask = torch.ones(8, device=\"cuda\")",
            .use_instead = "Choose the device once and pass it around:\n"
                           "`import torch_xla`\n`device = torch_xla.device()`\n"
                           "`model = Net().to(device)`\n`mask = torch.ones(8, device=device)`",
            .effort = "Low: minutes per call site, mechanical once a device variable exists.",
            .heuristic = "Any `.cuda()` call is reported, except through an imported module name. Only "
                         "string literals are recognized as CUDA device names: a device held in a variable "
                         "is reported where the variable is built from a literal.",
            .references = {"https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
