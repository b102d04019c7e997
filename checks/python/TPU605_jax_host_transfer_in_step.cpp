// TPU605: `jax.device_get`, `.block_until_ready()` or `np.asarray(x)` inside a jitted function or
// a JAX training loop. User docs: docs/checks/TPU605.md (generated from the CheckInfo below).
#include <fmt/format.h>


#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// True when the code around a loop waits on purpose: a unit test (named `test*`), or a benchmark,
// which reads a clock (`time.perf_counter()`) and waits for the device to time steps (and to warm
// up before it does).
bool waits_on_purpose(Node loop, const python::PythonContext& ctx) {
  const python::Frame* fn = ctx.enclosing_function();
  if (fn && fn->node.field(Field::Name).text().starts_with("test")) return true;
  return step::scope_reads_clock(fn ? fn->node.field(Field::Body) : loop.field(Field::Body), ctx);
}

class JaxHostTransferInStep final : public step::StepCallCheck {
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"device_get", "asarray", "array", "block_until_ready"};
    return k;
  }

  void check_call(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    // Told by name first: the imports test and the star-import rule of explicit_qualified_name
    // cost more, and most calls are none of these.
    const auto& resolved = ctx.qualified_name(callee);
    bool named = resolved && (*resolved == "jax.device_get" || *resolved == "numpy.asarray" ||
                              *resolved == "numpy.array" || *resolved == "jax.block_until_ready");
    bool method = callee.kind() == Kind::Attribute && callee.field(Field::Attribute).text() == "block_until_ready";
    if ((!named && !method) || !ctx.imports().imports("jax")) return;
    auto q = step::explicit_qualified_name(callee, ctx);
    std::string what;
    bool waits_only = false;  // block_until_ready: waits, copies nothing
    if (q && (*q == "jax.device_get" || *q == "numpy.asarray" || *q == "numpy.array")) {
      what = *q == "jax.device_get" ? "jax.device_get" : fmt::format("np.{}", q->substr(6));
    } else if (q && *q == "jax.block_until_ready") {
      what = "jax.block_until_ready";
      waits_only = true;
    } else if (!q && callee.kind() == Kind::Attribute && callee.field(Field::Attribute).text() == "block_until_ready" &&
               step::receiver_may_be(callee, ctx, "jax")) {
      what = ".block_until_ready()";
      waits_only = true;
    } else {
      return;
    }
    auto args = python::call_arguments(call);
    if (args.positional.empty()) {
      if (what != ".block_until_ready()") return;
    }
    step::Step in = step::enclosing_step(call, ctx);
    if (!in || in.periodic) return;
    bool traced = in.kind == step::StepKind::CompiledFunction;
    if (traced && in.compiler != step::Compiler::Jax) return;
    // np.asarray of host data (a batch being prepared) is no transfer: only device values count.
    if (what.starts_with("np.") && !step::tensor_valued(args.positional[0], ctx, in, traced)) return;
    // Under jax.jit, a static argument (static_argnums/static_argnames) is a Python value, not
    // a traced one: np.asarray of it is host work at trace time, not a transfer.
    if (what.starts_with("np.") && traced && args.positional[0].kind() == Kind::Identifier) {
      auto scope = dyn::jax_traced_scope(ctx);
      const python::Frame* fn = ctx.enclosing_function();
      std::string name(args.positional[0].text());
      if (scope && fn && step::is_function_parameter(fn->node, name) && !scope->traced.count(name)) return;
    }
    if (!traced && waits_only && in.kind == step::StepKind::TrainingLoop && waits_on_purpose(in.node, ctx)) return;
    if (traced) {
      ctx.report(call, fmt::format("'{}' in {} fails on a traced value", what, step::describe(in)),
                 "compute with 'jnp' on traced values; fetch results after the compiled call returns", what);
      return;
    }
    ctx.report(call,
               waits_only ? fmt::format("'{}' in {} makes the host wait for the device every step", what,
                                        step::describe(in))
                          : fmt::format("'{}' in {} waits for the device and copies the values to the host every step",
                                        what, step::describe(in)),
               waits_only ? "drop the wait: JAX dispatches asynchronously, and the host blocks only when it reads a "
                            "value"
                          : "keep metrics on the device and fetch them every N steps ('if step % N == 0:')",
               what);
  }
};

const JaxHostTransferInStep kCheck;

}  // namespace

extern const CheckDef TPU605_jax_host_transfer_in_step{
    .info = {
        .id = "TPU605",
        .name = "jax-host-transfer-in-step",
        .summary = "'jax.device_get', '.block_until_ready()' or 'np.asarray(x)' inside a jitted function or a JAX "
                   "training loop",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .device_code_only = true,
        .doc = {
            .what = "In files that import jax: calls of `jax.device_get`, `jax.block_until_ready`, "
                    "`x.block_until_ready()`, and `np.asarray(x)`/`np.array(x)` of a device value, inside a "
                    "function compiled by `jax.jit`/`jax.pmap`/`pjit` or a training loop (a loop that calls a "
                    "compiled callable of the file, `state.apply_gradients` or `optax.apply_updates`).",
            .why = "JAX dispatches each step asynchronously: the host queues the next step while the TPU runs "
                   "this one. Fetching or waiting on a result every step serializes them, and the TPU idles "
                   "while the host copies values and prepares the next batch. Inside a compiled function "
                   "these calls fail on traced values (TracerArrayConversionError).",
            .example = "for batch in batches:\n    state, metrics = p_train_step(state, batch)\n"
                       "    history.append(jax.device_get(metrics))",
            .use_instead = "Keep metrics on the device and fetch them every N steps "
                           "(`if step % 100 == 0: jax.device_get(metrics)`), or stack a window of them and fetch "
                           "it once. Do not wait on each step; inside `jit`, use `jnp` and return results.",
            .effort = "Low: move the fetch behind a logging interval.",
            .heuristic = "The step heuristic is TPU601's; fetches under `if step % N == 0:` are not reported. "
                         "`np.asarray(x)` counts only when `x` looks like a device value (the tensor heuristic of "
                         "TPU603: a `jnp`/`jax` result, a result of a compiled callable of the file, or inside "
                         "a compiled function any parameter), so host-side batch preparation is not reported. A "
                         "wait in a function that reads a clock (`time.perf_counter()`), or at top level in a "
                         "loop that does, is a benchmark's (timing or warm-up), and one in a function named "
                         "`test*` a unit test's: neither is reported.",
            .references = {"https://docs.jax.dev/en/latest/async_dispatch.html",
                           "https://docs.jax.dev/en/latest/errors.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
