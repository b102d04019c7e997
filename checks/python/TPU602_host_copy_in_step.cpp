// TPU602: `.cpu()`, `.numpy()`, `.tolist()` or `.to("cpu")` on a tensor inside a step.
// User docs: docs/checks/TPU602.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// `.to("cpu")`, `.to(device="cpu")`, `.to(torch.device("cpu"))`.
bool to_cpu(Node call, const python::PythonContext& ctx) {
  auto args = python::call_arguments(call);
  Node target = pyapi::argument(args, 0, "device");
  if (target && target.kind() == Kind::Call) {
    const auto& q = ctx.qualified_name(target.field(Field::Function));
    if (!q || *q != "torch.device") return false;
    target = pyapi::argument(python::call_arguments(target), 0, "type");
  }
  auto s = pyapi::string_literal(target);
  return s && *s == "cpu";
}

// The copy a method call makes to the host, or empty: "cpu", "numpy", "tolist", "to".
std::string_view host_copy(Node call, const python::PythonContext& ctx) {
  Node callee = call.field(Field::Function);
  if (callee.kind() != Kind::Attribute) return {};
  std::string_view m = callee.field(Field::Attribute).text();
  if (m == "cpu" || m == "numpy" || m == "tolist" || m == "item") return m;
  if (m == "to" && to_cpu(call, ctx)) return m;
  return {};
}

// True when a call earlier in the receiver chain already copied to the host:
// `x.cpu().numpy()` is one copy, reported at `.cpu()`.
bool receiver_on_host(Node callee, const python::PythonContext& ctx) {
  for (Node n = callee.field(Field::Object); n;) {
    if (n.kind() == Kind::Call) {
      if (!host_copy(n, ctx).empty()) return true;
      n = n.field(Field::Function);
    } else if (n.kind() == Kind::Attribute) {
      n = n.field(Field::Object);
    } else if (n.kind() == Kind::Subscript) {
      n = n.field(Field::Value);
    } else {
      return false;
    }
  }
  return false;
}

class HostCopyInStep final : public step::StepCallCheck {
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"cpu", "numpy", "tolist", "to"};
    return k;
  }

  void check_call(Node call, python::PythonContext& ctx) const override {
    std::string_view copy = host_copy(call, ctx);
    if (copy.empty() || copy == "item") return;  // '.item()' is TPU601's
    Node callee = call.field(Field::Function);
    if (copy == "numpy" ? !step::receiver_may_be(callee, ctx, "torch") &&
                              !step::receiver_may_be(callee, ctx, "tensorflow")
                        : !step::receiver_may_be(callee, ctx, "torch"))
      return;
    if (receiver_on_host(callee, ctx)) return;
    step::Step in = step::enclosing_step(call, ctx);
    if (!in || in.periodic) return;
    std::string method = copy == "to" ? ".to(\"cpu\")" : fmt::format(".{}()", copy);
    std::string message =
        in.compiler == step::Compiler::Tf || in.compiler == step::Compiler::Jax
            ? fmt::format("'{}' in {} fails on a symbolic tensor", method, step::describe(in))
            : fmt::format("'{}' in {} waits for the device and copies the tensor to the host", method,
                          step::describe(in));
    ctx.report(pyapi::from_method_name(call), std::move(message),
               "keep the value on the device in the step; copy results to the host after the loop or every N "
               "steps ('if step % N == 0:'), or in 'xm.add_step_closure'",
               copy == "to" ? "torch.Tensor.to" : fmt::format("torch.Tensor.{}", copy));
  }
};

const HostCopyInStep kCheck;

}  // namespace

extern const CheckDef TPU602_host_copy_in_step{
    .info = {
        .id = "TPU602",
        .name = "host-copy-in-step",
        .summary = "'.cpu()', '.numpy()', '.tolist()' or '.to(\"cpu\")' inside a training or inference step",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `.cpu()`, `.tolist()` and `.to(\"cpu\")` (also `.to(torch.device(\"cpu\"))`) in "
                    "files that import torch, and `.numpy()` in files that import torch or TensorFlow, inside a "
                    "training or inference step (see TPU601 for what a step is). A chain such as "
                    "`x.cpu().numpy()` is one copy, reported once.",
            .why = "A host copy needs the tensor's value now: PyTorch/XLA cuts the lazy graph, runs it, waits "
                   "for the TPU and transfers the data, so the device idles while the host waits and then "
                   "starts tracing the rest of the step. Per step, that erases the overlap of host and device "
                   "that keeps a TPU busy. In a `tf.function` `.numpy()` fails on a symbolic tensor.",
            .example = "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n"
                       "    optimizer.step()\n    preds.append(model(x).argmax(1).cpu().numpy())",
            .use_instead = "Keep results on the device and copy once: collect `logits.argmax(1)` tensors and "
                           "`torch.cat(...).cpu()` after the loop, copy every N steps, or in "
                           "`xm.add_step_closure(...)`, which runs after the step's graph has been dispatched.",
            .effort = "Low: move the copy out of the step or behind a logging interval.",
            .heuristic = "The step heuristic is TPU601's: training loops (a backward pass or optimizer step in "
                         "the body), step functions, compiled functions and torch `forward`; copies under "
                         "`if step % N == 0:` are not reported. The receiver's type is unknown: receivers rooted "
                         "at another import (`np.arange(3).tolist()`) and `self` are skipped, and nothing is "
                         "reported in a file that does not import torch (or TensorFlow, for `.numpy()`).",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
