// TPU417: autocast whose device type is a choice between "cuda" and "cpu" (`device_type = "cuda"
// if "cuda" in device else "cpu"`), which is "cpu" on an XLA device. User docs:
// docs/checks/TPU417.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;

// The device types an expression may give.
struct DeviceTypes {
  bool cuda = false;
  bool cpu = false;
  bool xla = false;
};

// `in_scope`: `expr` is in the function being checked (or the module), where its names are looked up.
void add_device_types(Node expr, const PythonContext& ctx, DeviceTypes& out, int hops = 0, bool in_scope = true);

// `self.device.type`: what the assignments of the file to an attribute of that name
// (`self.device = ...`, in any method) build the device from; the names in them are another
// function's, and are not followed.
void add_attribute_types(Node attribute, const PythonContext& ctx, DeviceTypes& out, int hops) {
  std::string_view name = attribute.field(Field::Attribute).text();
  const python::Tree& tree = ctx.tree();
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node n(&tree, id);
    if (n.kind() != Kind::Assignment) continue;
    Node left = n.field(Field::Left), right = n.field(Field::Right);
    if (left && right && left.kind() == Kind::Attribute && left.field(Field::Attribute).text() == name)
      add_device_types(right, ctx, out, hops + 1, false);
  }
}

// Adds the device types `expr` may be: a string literal, the branches of a conditional expression,
// the values a local name is assigned, the argument of `torch.device(...)`, and `device.type`
// (through the device's own assignments).
void add_device_types(Node expr, const PythonContext& ctx, DeviceTypes& out, int hops, bool in_scope) {
  expr = python::unparenthesized(expr);
  if (!expr || hops > 3) return;
  if (auto s = python::string_value(expr)) {
    std::string lower = pyapi::ascii_lower(*s);
    out.cuda |= pyapi::is_device_string(lower, "cuda");
    out.cpu |= lower == "cpu";
    out.xla |= pyapi::is_device_string(lower, "xla");
    return;
  }
  switch (expr.kind()) {
    case Kind::ConditionalExpression:
      // A damaged conditional (not three parts) is its own only alternative: not followed again.
      for (Node alt : pyhelp::alternatives(expr))
        if (alt != expr) add_device_types(alt, ctx, out, hops, in_scope);
      return;
    case Kind::Identifier: {
      // A parameter is the caller's choice, whatever a global of that name holds.
      const python::Frame* f = ctx.enclosing_function();
      if (!in_scope || (f && step::is_function_parameter(f->node, expr.text()))) return;
      for (Node value : pyhelp::assigned_values(expr.text(), ctx)) add_device_types(value, ctx, out, hops + 1);
      return;
    }
    case Kind::Call: {
      const auto& q = ctx.qualified_name(expr.field(Field::Function));
      if (!q || *q != "torch.device") return;
      auto args = python::call_arguments(expr);
      add_device_types(pyapi::argument(args, 0, "type"), ctx, out, hops + 1, in_scope);
      return;
    }
    case Kind::Attribute: {
      // `device.type`: the device a local name or an attribute holds.
      if (expr.field(Field::Attribute).text() != "type") return;
      Node device = expr.field(Field::Object);
      if (device.kind() == Kind::Attribute)
        add_attribute_types(device, ctx, out, hops);
      else
        add_device_types(device, ctx, out, hops + 1, in_scope);
      return;
    }
    default:
      return;
  }
}

class AutocastCudaDeviceType final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"autocast"};
    return k;
  }

  void check(Node call, PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (!q || (*q != "torch.autocast" && *q != "torch.amp.autocast" && *q != "torch.amp.autocast_mode.autocast"))
      return;
    auto args = python::call_arguments(call);
    Node device_type = pyapi::argument(args, 0, "device_type");
    // A literal is TPU409's ("cuda") or fine ("cpu", "xla"); a region with autocast off is fine anywhere.
    if (!device_type || python::string_value(python::unparenthesized(device_type)) ||
        pyapi::bool_literal(args.keyword("enabled")) == false)
      return;
    DeviceTypes types;
    add_device_types(device_type, ctx, types);
    if (!types.cuda || !types.cpu || types.xla) return;
    ctx.report(call,
               fmt::format("'{}' takes its device type ('{}') from a choice between \"cuda\" and \"cpu\": on an XLA "
                           "device that is \"cpu\", so autocast leaves the TPU's ops in float32",
                           *q, device_type.text()),
               "on an XLA device pass 'device_type=\"xla\"' ('torch.autocast(\"xla\", dtype=torch.bfloat16)'), or "
               "derive the device type from the device with \"xla\" among its choices",
               "autocast device type chosen between \"cuda\" and \"cpu\"");
  }
};

const AutocastCudaDeviceType kCheck;

}  // namespace

extern const CheckDef TPU417_autocast_cuda_device_type{
    .info = {
        .id = "TPU417",
        .name = "autocast-cuda-device-type",
        .summary = "autocast whose device type is a choice between \"cuda\" and \"cpu\" (\"cpu\" on an XLA device: "
                   "float32 on the TPU)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 0.5},
        .doc = {
            .what = "`torch.autocast(...)`, `torch.amp.autocast(...)` whose device type (the first argument or "
                    "`device_type=`) is not a literal but an expression choosing between `\"cuda\"` and `\"cpu\"` "
                    "with no `\"xla\"` among the choices: a conditional expression (`\"cuda\" if "
                    "torch.cuda.is_available() else \"cpu\"`), a name assigned one (`device_type = \"cuda\" if "
                    "\"cuda\" in device else \"cpu\"`, or `\"cuda\"` in one branch of an `if` and `\"cpu\"` in the "
                    "other), or `device.type` where the file builds `device` from such a choice (`device = "
                    "torch.device(\"cuda\" if ... else \"cpu\")`). TPU409 reports the literal `\"cuda\"` "
                    "(`torch.autocast(\"cuda\")`, `torch.cuda.amp.autocast()`); this check reports the device "
                    "types that look portable because they follow the device, but only know two.",
            .why = "Autocast runs for the device type it is given. On a TPU the program's device is `\"xla\"`, which "
                   "a test for `\"cuda\"` sends to the `\"cpu\"` branch: autocast then applies CPU autocast "
                   "(bfloat16 on CPU ops only) or, as in nanoGPT's `nullcontext() if device_type == 'cpu' else "
                   "torch.amp.autocast(...)`, none at all. Nothing fails: the model silently trains in float32 on "
                   "the TPU, at a fraction of its bfloat16 throughput and with twice the activation memory.",
            .example = "device_type = 'cuda' if 'cuda' in device else 'cpu'\n"
                       "ctx = torch.amp.autocast(device_type=device_type, dtype=torch.bfloat16)",
            .use_instead = "Include the XLA device in the choice: `device_type = device.type` with `device = "
                           "torch_xla.device()` (its type is `\"xla\"`), or `\"xla\" if use_tpu else ...`; then "
                           "`torch.autocast(device_type, dtype=torch.bfloat16)` (on an XLA device, "
                           "`torch.autocast(\"xla\", dtype=torch.bfloat16)` or `torch_xla.amp.autocast(device)`).",
            .effort = "Low: 0.25-0.5 h per site, to add the XLA branch where the device type is chosen.",
            .heuristic = "The device type is followed through string literals, conditional expressions, the values "
                         "assigned to a local name (or, when the function assigns none, a module-level one), "
                         "`torch.device(...)`, and `x.type` through the values of `x`; for an attribute "
                         "(`self.device.type`) every assignment in the file to an attribute of that name counts, "
                         "with the choice written there (`self.device = torch.device(\"cuda\" if ... else "
                         "\"cpu\")`; a name there is not followed). A choice made in another module or passed "
                         "in as a parameter is not seen. A call with `enabled=False` is not reported.",
            .references = {"https://docs.pytorch.org/xla/master/perf/amp.html",
                           "https://docs.pytorch.org/docs/stable/amp.html",
                           "https://github.com/karpathy/nanoGPT/blob/master/train.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
