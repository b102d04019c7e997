// TPU401: code that places tensors or modules on a CUDA device (.cuda(), .to("cuda"), device="cuda").
// User docs: docs/checks/TPU401.md (generated from the CheckInfo below).
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

// A string literal naming a CUDA device, or a conditional expression with one in a branch
// ("cuda" if torch.cuda.is_available() else "cpu"): the returned node is the string.
Node cuda_device_literal(Node expr) {
  if (auto s = python::string_value(expr)) return pyapi::is_device_string(*s, "cuda") ? expr : Node();
  if (expr.kind() == Kind::ConditionalExpression) {
    // `a if cond else b`: the named children are a, cond, b.
    for (uint32_t i : {0u, 2u})
      if (Node hit = cuda_device_literal(expr.named_child(i))) return hit;
  }
  return Node();
}

constexpr std::string_view kHint = "use the XLA device: 'device = torch_xla.device()' and '.to(device)'";

// Whether the device string `s` is a default value: a parameter's (`def f(device="cuda")`,
// `device=torch.device("cuda")`), a command-line option's or a field's (`add_argument("--device",
// default="cuda")`, `attr.ib(default=torch.device("cuda"))`). A caller or a flag chooses another
// device without a change to the code, so it is no error; the default is still to change.
bool is_default_value(Node s) {
  Node value = s;
  for (Node up = value.parent(); up; value = up, up = up.parent()) {
    const Kind k = up.kind();
    if (k == Kind::ConditionalExpression || k == Kind::ParenthesizedExpression || k == Kind::ArgumentList)
      continue;
    if (k == Kind::Call && up.field(Field::Arguments) == value) continue;  // torch.device("cuda")
    if (k == Kind::DefaultParameter || k == Kind::TypedDefaultParameter) return up.field(Field::Value) == value;
    if (k == Kind::KeywordArgument)
      return up.field(Field::Name).text() == "default" && up.field(Field::Value) == value;
    return false;
  }
  return false;
}

// Reports the device string `s`; a default value is a warning.
void report_device(Node s, python::PythonContext& ctx, std::string message, std::string_view hint,
                   std::string_view subject) {
  Finding& f = ctx.report(s, std::move(message), hint, subject);
  if (is_default_value(s)) f.severity = Severity::Warning;
}

// A name that holds a device: `device`, `DEVICE`, `args.device`, `cfg.MODEL.DEVICE`, `torch_device`;
// not a device type (`device_type = "cuda" if ... else "cpu"` follows an earlier choice).
bool names_device(std::string_view name) {
  std::string lower = pyapi::ascii_lower(name);
  return lower.find("device") != std::string::npos && !lower.ends_with("type");
}

// The legacy CUDA tensor types, which build tensors on the current CUDA device.
constexpr std::array<std::string_view, 10> kCudaTensorTypes = {
    "torch.cuda.FloatTensor", "torch.cuda.DoubleTensor", "torch.cuda.HalfTensor",  "torch.cuda.BFloat16Tensor",
    "torch.cuda.LongTensor",  "torch.cuda.IntTensor",    "torch.cuda.ShortTensor", "torch.cuda.CharTensor",
    "torch.cuda.ByteTensor",  "torch.cuda.BoolTensor"};

bool is_cuda_tensor_type(std::string_view q) {
  return std::find(kCudaTensorTypes.begin(), kCudaTensorTypes.end(), q) != kCudaTensorTypes.end();
}

class CudaDevicePlacement final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::Assignment};
    return k;
  }

  void check(Node n, python::PythonContext& ctx) const override {
    if (n.kind() == Kind::Call) return check_call(n, ctx);
    check_assignment(n, ctx);
  }

  // torch.cuda.FloatTensor(3), x.type(torch.cuda.FloatTensor); not isinstance tests.
  bool checks_references() const override { return true; }
  std::span<const std::string_view> reference_names() const override { return kCudaTensorTypes; }
  void check_reference(Node n, const std::string& q, python::PythonContext& ctx) const override {
    if (!is_cuda_tensor_type(q) || pyapi::in_test(n, ctx)) return;
    Node call = pyapi::call_of(n, ctx);
    ctx.report(call ? call : n, fmt::format("'{}' makes tensors on a CUDA device", q),
               "use 'torch.tensor(data, dtype=..., device=device)' with the XLA device", q);
  }

 private:
  // device = "cuda"; cfg.MODEL.DEVICE = "cuda"; device = "cuda" if torch.cuda.is_available() else "cpu".
  static void check_assignment(Node assign, python::PythonContext& ctx) {
    Node left = assign.field(Field::Left);
    Node right = assign.field(Field::Right);
    if (!left || !right) return;
    std::string_view name = left.kind() == Kind::Attribute    ? left.field(Field::Attribute).text()
                            : left.kind() == Kind::Identifier ? left.text()
                                                              : std::string_view();
    if (!names_device(name)) return;
    if (Node s = cuda_device_literal(right))
      ctx.report(s, fmt::format("'{}' is set to a CUDA device ({}) for the code that uses it", left.text(), s.text()),
                 std::string(kHint), "device = \"cuda\"");
  }

  static void check_call(Node call, python::PythonContext& ctx) {
    Node callee = call.field(Field::Function);
    // Most calls are none of those below: tell them without building the argument list.
    std::string_view method = callee.kind() == Kind::Attribute ? callee.field(Field::Attribute).text() : "";
    const auto& q = ctx.qualified_name(callee);
    if (method != "cuda" && method != "to" && !(q && *q == "torch.device") &&
        !pyapi::passes_keyword(call, {"device", "map_location", "default"}))
      return;
    python::CallArguments args = python::call_arguments(call);

    if (callee.kind() == Kind::Attribute) {
      // x.cuda(): only on a receiver that is not an imported module (torch.cuda is not a call).
      if (method == "cuda" && !q) {
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
    if (q && *q == "torch.device") {
      Node arg = !args.positional.empty() ? args.positional[0] : args.keyword("type");
      if (arg) {
        if (Node s = cuda_device_literal(arg))
          report_device(s, ctx, fmt::format("'torch.device({})' names a CUDA device", s.text()), kHint,
                        "torch.device(\"cuda\")");
      }
      return;
    }

    // device="cuda" as a keyword argument of any call; map_location="cuda" in torch.load.
    if (Node value = args.keyword("device")) {
      if (Node s = cuda_device_literal(value))
        report_device(s, ctx, fmt::format("'device={}' places the computation on a CUDA device", s.text()), kHint,
                      "device=\"cuda\"");
    }
    if (Node value = args.keyword("map_location")) {
      if (Node s = cuda_device_literal(value))
        ctx.report(s, fmt::format("'map_location={}' loads the tensors onto a CUDA device", s.text()),
                   "load to the CPU ('map_location=\"cpu\"'), then move the model to the XLA device",
                   "map_location=\"cuda\"");
    }
    // parser.add_argument("--device", default="cuda")
    if (Node value = args.keyword("default"); value && !args.positional.empty()) {
      auto flag = python::string_value(args.positional[0]);
      Node s = cuda_device_literal(value);
      if (s && flag && names_device(*flag))
        report_device(s, ctx, fmt::format("option '{}' defaults to a CUDA device", *flag), kHint,
                      "device = \"cuda\"");
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
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = "`.cuda()` calls, `.to(\"cuda\")` / `.to(\"cuda:0\")`, `device=\"cuda\"` keyword arguments, "
                    "`torch.device(\"cuda\")`, `torch.load(..., map_location=\"cuda\")`, the legacy CUDA tensor "
                    "types (`torch.cuda.FloatTensor(...)`, `x.type(torch.cuda.LongTensor)`), and a CUDA device "
                    "string stored for later use: assigned to a name that holds a device (`device = \"cuda\"`, "
                    "`cfg.MODEL.DEVICE = \"cuda\"`) or the default of a `--device` command-line option. A "
                    "`\"cuda\"` in either branch of a conditional counts (`\"cuda\" if torch.cuda.is_available() "
                    "else \"cpu\"`).",
            .why = "A TPU host has no CUDA device: these calls fail there, or silently fall back to the CPU "
                   "when guarded by `torch.cuda.is_available()`, which runs the model without the TPU.",
            .example = "model = Net().cuda()\nx = x.to(\"cuda\")\nmask = torch.ones(8, device=\"cuda\")",
            .use_instead = "Choose the device once and pass it around:\n"
                           "`import torch_xla`\n`device = torch_xla.device()`\n"
                           "`model = Net().to(device)`\n`mask = torch.ones(8, device=device)`",
            .effort = "Low: minutes per call site, mechanical once a device variable exists.",
            .heuristic = "Any `.cuda()` call is reported, except through an imported module name. Only string "
                         "literals are recognized as CUDA device names: a device held in a variable is reported "
                         "where the variable is set from a literal, if its name contains `device` (not "
                         "`device_type`, which follows an earlier choice). A device "
                         "string read from a config file or the environment is not seen. `isinstance(x, "
                         "torch.cuda.FloatTensor)` tests are not reported. A CUDA device that is a default value, a "
                         "parameter's (`def f(device=torch.device(\"cuda\"))`), a command-line option's or a "
                         "field's (`attr.ib(default=torch.device(\"cuda\"))`), is a warning: a caller or a flag "
                         "chooses the TPU's device without a change to the code.",
            .references = {"https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
