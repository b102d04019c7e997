// TPU604: printing or logging a tensor inside a step (print, logging, wandb, TensorBoard).
// User docs: docs/checks/TPU604.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include <array>
#include <vector>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// The logging call `call` is, as shown in messages, or empty: print, logging.info, logger.info,
// wandb.log, mlflow.log_metric, writer.add_scalar, progress.set_postfix.
bool logging_api(std::string_view q) {
  return (q.starts_with("logging.") && q.find('.', 8) == std::string_view::npos) || q == "wandb.log" ||
         q.starts_with("mlflow.log_metric");
}

// A logger's methods, on a receiver whose name says "log"; and progress and board writers' methods.
constexpr std::array<std::string_view, 8> kLevels = {"critical", "debug", "error", "exception",
                                                     "info",     "log",   "warn",  "warning"};
constexpr std::array<std::string_view, 4> kBoards = {"add_scalar", "add_scalars", "add_histogram", "set_postfix"};

std::string logging_call(Node call, const python::PythonContext& ctx) {
  Node callee = call.field(Field::Function);
  if (callee.kind() == Kind::Identifier)
    return callee.text() == "print" && !step::explicit_qualified_name(callee, ctx) ? "print" : "";
  if (callee.kind() != Kind::Attribute) return {};
  std::string_view method = callee.field(Field::Attribute).text();
  bool level = std::find(kLevels.begin(), kLevels.end(), method) != kLevels.end();
  bool board = std::find(kBoards.begin(), kBoards.end(), method) != kBoards.end();
  // Most calls are none of these: tell them before the star-import test of explicit_qualified_name.
  const auto& resolved = ctx.qualified_name(callee);
  if (!level && !board && !(resolved && logging_api(*resolved))) return {};
  if (auto q = step::explicit_qualified_name(callee, ctx)) return logging_api(*q) ? *q : "";
  std::string receiver = pyapi::ascii_lower(python::chain_last_name(callee.field(Field::Object)));
  if (level && receiver.find("log") != std::string::npos) return fmt::format("{}.{}", receiver, method);
  if (board) return fmt::format("{}.{}", receiver, method);
  return {};
}

// The first argument expression, looking into f-strings, '%' and '.format' formatting, str()/repr(),
// containers and keyword values, that holds a tensor.
Node tensor_argument(Node call, const python::PythonContext& ctx, const step::Step& in, bool traced) {
  std::vector<Node> pending;
  Node args = call.field(Field::Arguments);
  for (uint32_t i = args ? args.named_child_count() : 0; i-- > 0;) pending.push_back(args.named_child(i));
  while (!pending.empty()) {
    Node e = pending.back();
    pending.pop_back();
    std::string_view t = e.type();
    Node inner;
    if (e.kind() == Kind::KeywordArgument) {
      inner = e.field(Field::Value);
    } else if (e.kind() == Kind::String || e.kind() == Kind::Interpolation || t == "dictionary" || t == "pair" ||
               t == "list" || t == "tuple" || t == "parenthesized_expression" || t == "concatenated_string" ||
               (t == "binary_operator" && e.named_child(0).kind() == Kind::String)) {
      for (uint32_t i = e.named_child_count(); i-- > 0;) pending.push_back(e.named_child(i));
      continue;
    } else if (e.kind() == Kind::Call) {
      Node callee = e.field(Field::Function);
      bool formats = (callee.kind() == Kind::Identifier && (callee.text() == "str" || callee.text() == "repr")) ||
                     (callee.kind() == Kind::Attribute && callee.field(Field::Attribute).text() == "format" &&
                      callee.field(Field::Object).kind() == Kind::String);
      if (formats) {
        Node a = e.field(Field::Arguments);
        for (uint32_t i = a ? a.named_child_count() : 0; i-- > 0;) pending.push_back(a.named_child(i));
        continue;
      }
      inner = e;
    } else {
      inner = e;
    }
    if (inner && inner.kind() != Kind::String && step::tensor_valued(inner, ctx, in, traced)) return inner;
  }
  return Node();
}

class TensorLoggingInStep final : public step::StepCallCheck {
  // print(...), the methods above, and anything in `logging` or `mlflow` (logging_api).
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = [] {
      std::array<std::string_view, 1 + kLevels.size() + kBoards.size()> names{"print"};
      std::copy(kBoards.begin(), kBoards.end(), std::copy(kLevels.begin(), kLevels.end(), names.begin() + 1));
      return names;
    }();
    return k;
  }
  std::span<const std::string_view> callee_modules() const override {
    static constexpr std::string_view k[] = {"logging", "mlflow"};
    return k;
  }

  void check_call(Node call, python::PythonContext& ctx) const override {
    std::string logger = logging_call(call, ctx);
    if (logger.empty()) return;
    const auto& imports = ctx.imports();
    if (!imports.imports("torch") && !imports.imports("jax") && !imports.imports("tensorflow")) return;
    step::Step in = step::enclosing_step(call, ctx);
    if (!in || in.periodic) return;
    bool traced = in.compiler == step::Compiler::Jax || in.compiler == step::Compiler::Tf;
    Node tensor = tensor_argument(call, ctx, in, traced);
    if (!tensor) return;
    std::string what(tensor.text().substr(0, 40));
    if (traced) {
      bool jax = in.compiler == step::Compiler::Jax;
      ctx.report(call,
                 fmt::format("'{}' of '{}' in {} runs once, at trace time, and shows a tracer, not the value", logger,
                             what, step::describe(in)),
                 jax ? "use 'jax.debug.print(\"{}\", x)' to print the value at run time" : "use 'tf.print(x)'",
                 logger);
      return;
    }
    ctx.report(call,
               fmt::format("'{}' of tensor '{}' in {} waits for the device and copies the value to the host",
                           logger, what, step::describe(in)),
               imports.imports("torch") ? "log every N steps ('if step % N == 0:'), or in "
                                          "'xm.add_step_closure(lambda: ...)', which runs after the step's graph"
                                        : "log every N steps ('if step % N == 0:')",
               logger);
  }
};

const TensorLoggingInStep kCheck;

}  // namespace

extern const CheckDef TPU604_tensor_logging_in_step{
    .info = {
        .id = "TPU604",
        .name = "tensor-logging-in-step",
        .summary = "a tensor printed or logged (print, logging, wandb, TensorBoard) inside a training or "
                   "inference step",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `print`, `logging.*` and `logger.info`-style methods (a receiver named like "
                    "`*log*`), `wandb.log`, `mlflow.log_metric(s)`, TensorBoard `writer.add_scalar(s)`/"
                    "`add_histogram` and tqdm `set_postfix`, in files that import torch, jax or TensorFlow, "
                    "inside a training or inference step (see TPU601), when an argument holds a tensor: "
                    "directly, in an f-string, in `%`/`.format` formatting, in `str()`, or in a dict or tuple. "
                    "Arguments already converted (`loss.item()`, `float(loss)`) are TPU601's and TPU603's.",
            .why = "Printing or logging a tensor reads its value: PyTorch/XLA runs the pending graph, waits for "
                   "the TPU and copies the value to the host, every step, and tracing blocks until the value is "
                   "there. In a function compiled by `jax.jit` or `tf.function`, `print` runs once while tracing "
                   "and shows a tracer, never the values.",
            .example = "for step, (x, y) in enumerate(loader):\n    loss = criterion(model(x), y)\n"
                       "    loss.backward()\n    optimizer.step()\n    logger.info(f\"loss {loss}\")\n"
                       "    writer.add_scalar(\"loss\", loss, step)",
            .use_instead = "Log every N steps (`if step % 100 == 0:`), or hand the value to "
                           "`xm.add_step_closure(lambda: writer.add_scalar(\"loss\", loss, step))`, which runs after "
                           "the step's graph has been dispatched. In JAX use `jax.debug.print(\"{}\", x)`; in "
                           "TensorFlow `tf.print(x)`.",
            .effort = "Low: put the logging behind an interval or a step closure.",
            .heuristic = "The step heuristic is TPU601's (logging under `if step % N == 0:` is not reported) and "
                         "the tensor heuristic TPU603's; in a compiled function its parameters also count as "
                         "traced values (a static argument printed there is a false positive). Logging calls are "
                         "recognized by name: a logger is any receiver whose name contains `log`.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/learn/trace-vs-execution-time.html",
                           "https://docs.jax.dev/en/latest/debugging/print_breakpoint.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
