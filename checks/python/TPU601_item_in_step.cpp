// TPU601: `.item()` on a tensor inside a training or inference step.
// User docs: docs/checks/TPU601.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

class ItemInStep final : public step::StepCallCheck {
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"item"};
    return k;
  }

  void check_call(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute || callee.field(Field::Attribute).text() != "item") return;
    if (call.field(Field::Arguments).named_child_count() != 0) return;
    if (!step::receiver_may_be(callee, ctx, "torch") && !step::receiver_may_be(callee, ctx, "jax"))
      return;
    step::Step in = step::enclosing_step(call, ctx);
    if (!in || in.periodic) return;
    std::string hint = in.compiler == step::Compiler::Jax
                           ? "return the value from the compiled function and read it outside, every N steps"
                           : "keep it a tensor (accumulate on the device) and read it after the loop, every N steps "
                             "('if step % N == 0:'), or in 'xm.add_step_closure'";
    std::string message =
        in.compiler == step::Compiler::Jax
            ? fmt::format("'.item()' in {} fails on a traced value", step::describe(in))
            : fmt::format("'.item()' in {} waits for the device and copies the value to the host",
                          step::describe(in));
    ctx.report(pyapi::from_method_name(call), std::move(message),
               std::move(hint), "torch.Tensor.item");
  }
};

const ItemInStep kCheck;

}  // namespace

extern const CheckDef TPU601_item_in_step{
    .info = {
        .id = "TPU601",
        .name = "item-in-step",
        .summary = "'.item()' inside a training or inference step: a device-to-host sync every step",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `.item()` (no arguments) in files that import torch or jax, inside a training or "
                    "inference step: a training loop, a step function, a function compiled by `jax.jit`, "
                    "`jax.pmap`, `tf.function` or `torch.compile`, or `forward` of a `torch.nn.Module`. "
                    "`.item()` after the loop (an epoch or evaluation summary) is not reported.",
            .why = "PyTorch/XLA runs a step as one lazily traced graph. `.item()` needs the value now: it cuts "
                   "the graph, runs it, waits for the TPU and copies the scalar to the host (the "
                   "`_local_scalar_dense` transfer), so the host stops feeding the device on every step. "
                   "Under `jax.jit` it fails outright on a traced value (ConcretizationTypeError).",
            .example = "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n"
                       "    optimizer.step()\n    total += loss.item()",
            .use_instead = "Accumulate on the device and read once: `total += loss.detach()` in the loop, "
                           "`total.item()` after it. To log, read every N steps (`if step % 100 == 0:`) or in "
                           "`xm.add_step_closure(lambda: log(loss.item()))`, which runs after the step's graph.",
            .effort = "Low: move the read out of the step or behind a logging interval.",
            .heuristic = "A step is: a `for`/`while` loop whose own body (not a nested loop's: an epoch loop "
                         "around a batch loop runs its summary once per epoch) calls `.backward()` (except in a "
                         "function named `test*`), "
                         "`optimizer.step()`-like methods (a receiver named like `optim*`, `opt`, `*_opt`, "
                         "`*scaler*`, `*engine*`), `xm.optimizer_step`, `.apply_gradients`, "
                         "`optax.apply_updates`, or a step function or a JAX/TF compiled callable of the same "
                         "file (a `torch.compile`d model is not one: calling it is a forward pass); a function "
                         "that updates parameters (those calls but `.backward()`) outside its own loops and is "
                         "not named `test*` (a backward pass alone may be a unit test, run once), or is named "
                         "`train_step`, `training_step`, `validation_step`, `eval_step`, `test_step` or "
                         "`predict_step`; a "
                         "function decorated with or passed to a compiler (and functions nested in it); "
                         "`forward` of a class deriving, in this file, from `torch.nn` or Lightning. A loop that calls "
                         "a function of the file which itself runs a training loop (`train_one_epoch`) is an "
                         "epoch loop, not a step, whatever else it calls. "
                         "Evaluation loops without a backward pass or a compiled call are not steps, so their "
                         "per-batch syncs are not reported. A call under an `if` whose condition uses `%` "
                         "(`if step % 100 == 0:`), passes a name containing `step` or `iter`, or a period (a name "
                         "containing `every`, `freq` or `interval`) to a helper (`if u.itstime(step, every):`, "
                         "`if divisible_by(i, validate_every):`), or compares one for equality (`if step == 0:`), runs "
                         "once every N steps or once, as the torch_xla guide recommends "
                         "for logging: it is not reported. The receiver's type is unknown: receivers rooted at "
                         "another import (`np.float32(1).item()`) and `self` are skipped.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/learn/xla-advanced.html",
                           "https://docs.jax.dev/en/latest/errors.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
