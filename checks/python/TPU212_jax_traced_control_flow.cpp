// TPU212: Python `if`/`while`/conditional expression on a traced value inside a jitted (or
// vmapped, scanned, ...) JAX function. User docs: docs/checks/TPU212.md (generated below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

// True for a bare truth test of a parameter or a field (`if decode:`, `if not cache:`,
// `if state.dynamic_scale:`, `s = state.scale; if s:`): Python flags and presence tests of values
// that may be None, which working code keeps static; a computed local (`ok = jnp.all(...); if ok:`)
// is still a test of a traced value.
bool flag_or_presence_test(Node cond, const python::PythonContext& ctx) {
  cond = python::unparenthesized(cond);
  while (cond.kind() == Kind::NotOperator) cond = python::unparenthesized(cond.named_child(0));
  if (cond.kind() == Kind::Attribute) return true;
  if (cond.kind() != Kind::Identifier) return false;
  Node value = python::unparenthesized(dyn::last_assignment(cond.text(), cond.span().begin, ctx));
  return !value || value.kind() == Kind::Attribute || value.kind() == Kind::Subscript;
}

class JaxTracedControlFlow final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override { return dyn::branch_kinds(); }

  void check(Node n, python::PythonContext& ctx) const override {
    auto scope = dyn::jax_traced_scope(ctx);
    if (!scope) return;
    Node cond = dyn::branch_condition(n);
    if (!cond || flag_or_presence_test(cond, ctx) || !dyn::uses_traced_value(cond, *scope, ctx)) return;
    bool loop = n.kind() == Kind::WhileStatement;
    ctx.report(cond,
               fmt::format("Python {} on a traced value under '{}' raises TracerBoolConversionError",
                           dyn::branch_statement(n),
                           scope->transform),
               loop ? "use 'jax.lax.while_loop' (or 'lax.fori_loop'), or mark the argument static"
                    : "use 'jnp.where(cond, a, b)' or 'jax.lax.cond', or mark the argument static "
                      "('static_argnames=')",
               "Python control flow on a traced value");
  }
};

const JaxTracedControlFlow kCheck;

}  // namespace

extern const CheckDef TPU212_jax_traced_control_flow{
    .info = {
        .id = "TPU212",
        .name = "jax-traced-control-flow",
        .summary = "Python if/while on a traced value inside a jitted JAX function",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 2},
        .device_code_only = true,
        .doc = {
            .what = "`if`, `elif`, `while` and conditional expressions whose condition computes with a "
                    "traced value (`if x > 0:`, `while err > tol:`, `y if flag else z` with `flag` traced) "
                    "inside a function traced by `jax.jit`, `pmap`, `vmap`, "
                    "`lax.scan`/`fori_loop`/`while_loop`/`cond`, `shard_map` or `checkpoint`.",
            .why = "A traced value has no concrete value while JAX builds the program, so Python cannot "
                   "choose a branch: JAX raises `TracerBoolConversionError` (or `ConcretizationTypeError`). "
                   "Code that runs in NumPy style on a CPU fails once it is jitted for a TPU.",
            .example = "@jax.jit\ndef relu_or_zero(x, threshold):\n    if x.sum() > threshold:\n"
                       "        return x\n    return jnp.zeros_like(x)",
            .use_instead = "Select on the device: `jnp.where(x.sum() > threshold, x, jnp.zeros_like(x))`, or "
                           "`jax.lax.cond(pred, true_fn, false_fn, x)`; loops become `jax.lax.while_loop` or "
                           "`lax.fori_loop`. A Python-level option becomes a static argument: "
                           "`@partial(jax.jit, static_argnames=\"training\")`.",
            .effort = "Low: 15 min-2 h per branch.",
            .heuristic = "Traced functions and parameters as in TPU211 (static arguments and parameters "
                         "with a literal default or an enum member's are not traced). The condition uses a traced value when it "
                         "reads a traced name, or a local last assigned from one, other than through "
                         "`.shape`, `.ndim`, `.dtype`, `.size`, `len()`, `isinstance()`, `is`/`in` tests or "
                         "`jnp.ndim()`/`jnp.shape()`/`jnp.size()`, or a comparison with a string or None. A bare "
                         "truth test of a parameter, a field or a local read from one (`if decode:`, "
                         "`if state.dynamic_scale:`) is taken for a Python flag or a presence test of a value "
                         "that may be None, which working jitted code keeps static: only computed values "
                         "(`ok = jnp.all(...); if ok:`) count. Results of functions other than jax/jnp/lax "
                         "and methods of traced values are not taken for traced. A static argument declared "
                         "in another file (`jax.jit(f, static_argnums=1)` elsewhere) is not seen.",
            .references = {"https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html",
                           "https://docs.jax.dev/en/latest/control-flow.html",
                           "https://docs.jax.dev/en/latest/errors.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
