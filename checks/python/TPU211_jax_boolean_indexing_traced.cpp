// TPU211: boolean-mask indexing of a traced array inside a jitted (or vmapped, scanned, ...) JAX
// function. User docs: docs/checks/TPU211.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

class JaxBooleanIndexingTraced final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Subscript};
    return k;
  }

  void check(Node subscript, python::PythonContext& ctx) const override {
    // Most subscripts index with strings, integers or slices: no trace analysis for those.
    std::vector<Node> indices = dyn::subscript_indices(subscript);
    bool maybe_mask = false;
    for (Node index : indices) {
      const Kind k = python::unparenthesized(index).kind();
      maybe_mask |= k == Kind::Identifier || k == Kind::Call || k == Kind::ComparisonOperator ||
                    k == Kind::BinaryOperator || k == Kind::UnaryOperator;
    }
    if (!maybe_mask || !ctx.imports().imports("jax")) return;
    auto scope = dyn::jax_traced_scope(ctx);
    if (!scope) return;
    for (Node index : indices) {
      if (!dyn::is_traced_mask(index, *scope, ctx)) continue;
      ctx.report(subscript,
                 fmt::format("indexing with the traced boolean mask '{}' under '{}' raises "
                             "NonConcreteBooleanIndexError: the result's size depends on the values",
                             index.text(), scope->transform),
                 "keep the shape: 'jnp.where(mask, x, 0)', or reduce with 'where=mask' ('jnp.sum(x, where=mask)')",
                 "boolean-mask indexing under a JAX trace");
      return;
    }
  }
};

const JaxBooleanIndexingTraced kCheck;

}  // namespace

extern const CheckDef TPU211_jax_boolean_indexing_traced{
    .info = {
        .id = "TPU211",
        .name = "jax-boolean-indexing-traced",
        .summary = "boolean-mask indexing of a traced array inside a jitted JAX function",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 2},
        .device_code_only = true,
        .doc = {
            .what = "Subscripts with a boolean mask computed from traced values (`x[x > 0]`, `x[mask]`, "
                    "`x[:, m & (y < 3)]`, `x.at[mask].set(0)`) inside a function traced by `jax.jit`, "
                    "`pmap`, `vmap`, `lax.scan`/`fori_loop`/`while_loop`/`cond`, `shard_map` or "
                    "`checkpoint`.",
            .why = "Under a trace the mask's values are unknown, so the number of selected elements, the "
                   "result's shape, is unknown too: JAX raises `NonConcreteBooleanIndexError`. The code runs "
                   "on a CPU eagerly and fails the moment it is jitted for a TPU.",
            .example = "@jax.jit\ndef mean_positive(x):\n    return x[x > 0].mean()",
            .use_instead = "Keep every element and carry the mask: `jnp.where(x > 0, x, 0.0)`, or the `where=` "
                           "argument of reductions: `jnp.mean(x, where=x > 0)`. For updates, "
                           "`x = jnp.where(mask, v, x)` replaces `x.at[mask].set(v)`.",
            .effort = "Low: 15 min-2 h; the masked reduction is usually a one-line change.",
            .heuristic = "A function is traced when it is decorated with one of those transforms (also "
                         "through `functools.partial`; `flax.nnx.jit` and `equinox.filter_jit` too), is passed to "
                         "one by name in the scope that defines it, or is nested "
                         "in a traced function, unless it is handed to a host callback (`jax.debug.callback`, "
                         "`jax.pure_callback`, `io_callback`: the `host_callback` rows of "
                         "checks/data/python_code_roles.tsv), which JAX calls on the host with concrete values. Its parameters are traced except `self`/`cls`, those named in "
                         "`static_argnums`/`static_argnames`/`static_broadcasted_argnums` or given `in_axes` None "
                         "by `vmap`, and those with a "
                         "literal default or an enum member's (`training=False`, `mode=\"sum\"`, `norm=Norm.NORMAL`), taken for Python options; when the "
                         "static arguments are given by a variable (`static_argnums=argnums`), none is taken for "
                         "traced. The "
                         "index is a traced mask when it is an elementwise comparison, `&`/`|`/`^`/`~`, or a "
                         "`jnp` predicate (`jnp.isnan`, `jnp.logical_and`, ...) using a traced value, or a "
                         "traced name named like a mask or last assigned from one. Flax `nn.Module` methods "
                         "are traced by `jax.jit` of the caller, which this check does not see.",
            .references = {"https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html",
                           "https://docs.jax.dev/en/latest/errors.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
