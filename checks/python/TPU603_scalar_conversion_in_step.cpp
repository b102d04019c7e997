// TPU603: `float(t)`, `int(t)` or `bool(t)` on a tensor inside a step.
// User docs: docs/checks/TPU603.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

class ScalarConversionInStep final : public step::StepCallCheck {
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"float", "int", "bool"};
    return k;
  }

  void check_call(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Identifier) return;
    std::string_view builtin = callee.text();
    if (builtin != "float" && builtin != "int" && builtin != "bool") return;
    if (step::explicit_qualified_name(callee, ctx)) return;  // an imported name, not the builtin
    const auto& imports = ctx.imports();
    if (!imports.imports("torch") && !imports.imports("jax") && !imports.imports("tensorflow")) return;
    auto args = python::call_arguments(call);
    if (args.positional.size() != 1 || !args.keywords.empty()) return;
    step::Step in = step::enclosing_step(call, ctx);
    if (!in || in.periodic || !step::tensor_valued(args.positional[0], ctx, in)) return;
    bool traced = in.compiler == step::Compiler::Jax || in.compiler == step::Compiler::Tf;
    std::string message =
        traced ? fmt::format("'{}()' on a traced value in {} fails", builtin, step::describe(in))
               : fmt::format("'{}()' on a tensor in {} waits for the device and copies the value to the host",
                             builtin, step::describe(in));
    ctx.report(call, std::move(message),
               traced ? "keep it an array ('x.astype(...)', 'jnp.where' for branches) or mark the argument static"
                      : "keep it a tensor in the step ('loss.detach()', 'torch.where' for branches); convert after "
                        "the loop or every N steps",
               fmt::format("builtins.{}", builtin));
  }
};

const ScalarConversionInStep kCheck;

}  // namespace

extern const CheckDef TPU603_scalar_conversion_in_step{
    .info = {
        .id = "TPU603",
        .name = "scalar-conversion-in-step",
        .summary = "'float(t)', 'int(t)' or 'bool(t)' on a tensor inside a training or inference step",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .device_code_only = true,
        .doc = {
            .what = "Calls of the builtins `float`, `int` and `bool` on a value that looks like a tensor, in "
                    "files that import torch, jax or TensorFlow, inside a training or inference step (see "
                    "TPU601 for what a step is).",
            .why = "Converting a tensor to a Python number is `.item()` under another name: PyTorch/XLA runs "
                   "the pending graph, waits for the TPU and copies the value to the host, every step. Under "
                   "`jax.jit` or `tf.function` the value is traced and has no number yet: `int(x)` raises "
                   "(TracerIntegerConversionError, ConcretizationTypeError).",
            .example = "loss = criterion(model(x), y)\nloss.backward()\noptimizer.step()\n"
                       "history.append(float(loss))",
            .use_instead = "Keep values as tensors in the step (`total += loss.detach()`), choose with "
                           "`torch.where` / `jnp.where` instead of Python branches, and convert after the loop or "
                           "every N steps. In JAX, pass Python numbers as static arguments.",
            .effort = "Low: move the conversion out of the step.",
            .heuristic = "The step heuristic is TPU601's. The argument counts as a tensor when it is a call of "
                         "a torch, `torch.nn.functional`, `jax.numpy`, `jax.lax`, `jax.nn` or `tf.math` function, "
                         "a tensor method that returns a tensor (`x.sum()`, `loss.detach()`), a call of something "
                         "named like a loss or `criterion`; a name assigned only such values in the function; a "
                         "name containing `loss` never assigned a host value (`.item()`, `float(...)`, a "
                         "literal); or an attribute `.loss`/`.logits` (Hugging Face outputs). Missed: values from "
                         "helpers with other names (`acc = accuracy(out, y)`) and names first set to `0`. Wrong: "
                         "a helper named like a loss that returns a Python float.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.jax.dev/en/latest/errors.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
