// TPU612: torch.compile with its default backend (inductor) in a file that targets an XLA device.
// User docs: docs/checks/TPU612.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;


// True when the string literal `s` is used as a device: an argument of `torch.device(...)` or
// `.to(...)`, a `device=` keyword, or the value of a name holding a device (`device = "xla"`),
// also as a branch of a conditional expression. A list of supported device names is not one.
bool used_as_device(Node s, const PythonContext& ctx) {
  Node at = pyapi::through_choices(s);
  Node parent = at.parent();
  if (!parent) return false;
  if (parent.kind() == Kind::KeywordArgument) {
    Node name = parent.field(Field::Name);
    return name && name.text() == "device";
  }
  if (parent.kind() == Kind::Assignment) {
    Node left = parent.field(Field::Left);
    return parent.field(Field::Right) == at && pyapi::lower_contains(python::last_name(left), "device");
  }
  if (parent.kind() != Kind::ArgumentList) return false;
  Node call = parent.parent();
  if (!call || call.kind() != Kind::Call) return false;
  Node callee = call.field(Field::Function);
  if (callee.kind() == Kind::Attribute && callee.field(Field::Attribute).text() == "to") return true;
  const auto& q = ctx.qualified_name(callee);
  return q && *q == "torch.device";
}

// What in the file says it runs on an XLA device, or "": an import of torch_xla (which
// `xm.xla_device()` and `torch_xla.device()` need), or an "xla" device string.
std::string_view xla_evidence(const PythonContext& ctx) {
  if (ctx.imports().imports("torch_xla")) return "imports torch_xla";
  const python::Tree& tree = ctx.tree();
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node n(&tree, id);
    if (n.kind() != Kind::String) continue;
    auto s = python::string_value(n);
    if (s && pyapi::is_device_string(*s, "xla") && used_as_device(n, ctx)) return "uses an \"xla\" device";
  }
  return {};
}

class TorchCompileDefaultBackendOnXla final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::Decorator};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"compile"};
    return k;
  }

  void check(Node n, PythonContext& ctx) const override {
    if (n.kind() == Kind::Decorator) {
      // `@torch.compile` with no call: every option is its default. A called decorator is a call.
      Node expr = n.named_child_count() > 0 ? n.named_child(0) : Node();
      if (!expr || expr.kind() == Kind::Call) return;
      const auto& q = ctx.qualified_name(expr);
      if (q && *q == "torch.compile") report(expr, "'@torch.compile'", ctx);
      return;
    }
    const auto& q = ctx.qualified_name(n.field(Field::Function));
    if (!q || *q != "torch.compile") return;
    auto args = python::call_arguments(n);
    if (Node backend = args.keyword("backend")) {
      // Another backend, or one chosen elsewhere (a variable), is the program's decision.
      if (pyapi::string_literal(backend) != "inductor") return;
    } else if (args.has_splat) {
      return;
    }
    report(n, "'torch.compile'", ctx);
  }

 private:
  static void report(Node at, std::string_view what, PythonContext& ctx) {
    std::string_view evidence = xla_evidence(ctx);
    if (evidence.empty()) return;
    ctx.report(at,
               fmt::format("{} uses the inductor backend, which does not compile for XLA devices, in a file that {}",
                           what, evidence),
               "pass 'backend=\"openxla\"' to compile for the XLA device", "torch.compile(backend=\"inductor\")");
  }
};

const TorchCompileDefaultBackendOnXla kCheck;

}  // namespace

extern const CheckDef TPU612_torch_compile_default_backend_on_xla{
    .info = {
        .id = "TPU612",
        .name = "torch-compile-default-backend-on-xla",
        .summary = "torch.compile with its default backend (inductor) in a file that targets an XLA device",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 0.5},
        .doc = {
            .what = "`torch.compile(model)`, `@torch.compile` and `@torch.compile(...)` with no `backend=` (or "
                    "`backend=\"inductor\"`), in a file that targets an XLA device: it imports torch_xla (as "
                    "`xm.xla_device()` and `torch_xla.device()` need), or uses an `\"xla\"` device string "
                    "(`torch.device(\"xla\")`, `.to(\"xla\")`, `device=\"xla\"`, `device = \"xla\"`). A "
                    "`torch.compile` in a file with no such sign (a CUDA-only script) is not reported.",
            .why = "`torch.compile`'s default backend, TorchInductor, generates Triton kernels for GPUs and C++ for "
                   "CPUs; it has no code generator for XLA devices. PyTorch/XLA plugs into `torch.compile` as "
                   "its own backend, `openxla`, which hands the captured graph to XLA and runs the compiled "
                   "executable on the TPU, traced once. With the default, the model is not compiled for the TPU: "
                   "inductor cannot generate code for XLA tensors (compilation fails), or at best the ops still "
                   "run through PyTorch/XLA's lazy tracing on every call, with none of the compile-once "
                   "execution `torch.compile` was there for.",
            .example = "import torch_xla\n\ndevice = torch_xla.device()\nmodel = torch.compile(Net().to(device))",
            .use_instead = "`model = torch.compile(model, backend=\"openxla\")` (for inference, "
                           "`backend=\"openxla\"` also serves `torch.no_grad()` code); or leave the model "
                           "uncompiled and let PyTorch/XLA's lazy tracing compile each step.",
            .effort = "Low: 0.25-0.5 h per site, to pass the backend and check that the graph compiles once.",
            .heuristic = "The evidence is the file's own: another module that imports torch_xla does not make a "
                         "`torch.compile` in this one report (the project index knows the project's modules, not "
                         "their imports). A backend chosen in a variable (`backend=args.backend`) or passed "
                         "through `**kwargs` is taken for the program's choice and not reported; a "
                         "`torch.compile` in a branch that runs only when the device is not XLA is reported in "
                         "a guarded context, and discounted. `model.compile()` (the `nn.Module` method) is not "
                         "looked for.",
            .references = {"https://docs.pytorch.org/xla/master/perf/dynamo.html",
                           "https://docs.pytorch.org/docs/stable/torch.compiler.html",
                           "https://github.com/pytorch/pytorch/issues/136118"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
