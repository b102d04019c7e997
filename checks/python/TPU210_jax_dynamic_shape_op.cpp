// TPU210: a jax.numpy op whose output size depends on values (nonzero, unique, one-argument where,
// ...) called without its static-size argument. User docs: docs/checks/TPU210.md.
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// The ops and the keyword that gives each a static output size (jax/_src/numpy/lax_numpy.py,
// setops.py; jax 0.11.1).
struct SizedOp {
  std::string_view name;
  std::string_view size_keyword;
};

constexpr std::array<SizedOp, 18> kOps = {{
    {"argwhere", "size"},         {"bincount", "length"},      {"compress", "size"},
    {"extract", "size"},          {"flatnonzero", "size"},     {"intersect1d", "size"},
    {"mask_indices", "size"},     {"nonzero", "size"},         {"repeat", "total_repeat_length"},
    {"setdiff1d", "size"},        {"setxor1d", "size"},        {"union1d", "size"},
    {"unique", "size"},           {"unique_all", "size"},      {"unique_counts", "size"},
    {"unique_inverse", "size"},   {"unique_values", "size"},   {"where", "size"},
}};

class JaxDynamicShapeOp final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = python::last_name_parts(kOps, &SizedOp::name);
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    constexpr std::string_view kJnp = "jax.numpy.";
    if (!q || !q->starts_with(kJnp)) return;
    std::string_view name = std::string_view(*q).substr(kJnp.size());
    const SizedOp* op = nullptr;
    for (const SizedOp& o : kOps)
      if (o.name == name) op = &o;
    if (!op) return;
    auto args = python::call_arguments(call);
    if (args.has_splat || args.keyword(op->size_keyword)) return;
    // `jnp.where(c, x, y)` selects elementwise: only the one-argument form returns indices.
    if (name == "where" && (args.positional.size() > 1 || args.keyword("x") || args.keyword("y"))) return;
    auto traced = dyn::jax_traced_scope(ctx);
    // `jnp.repeat(x, 3)` is static; only repeats computed from traced values have no static length.
    if (name == "repeat" &&
        (!traced || !dyn::uses_traced_value(pyapi::argument(args, 1, "repeats"), *traced, ctx)))
      return;
    std::string hint = name == "where"
                           ? "use the three-argument 'jnp.where(cond, x, y)', or pass 'size=' (and 'fill_value=')"
                           : op->size_keyword == "size"
                               ? std::string("pass a static 'size=' (and 'fill_value=' to pad)")
                               : fmt::format("pass a static '{}='", op->size_keyword);
    if (traced) {
      Finding& f = ctx.report(
          call,
          fmt::format("'{}' without '{}=' fails under '{}' (ConcretizationTypeError): its output size depends on "
                      "the values",
                      *q, op->size_keyword, traced->transform),
          std::move(hint), *q);
      f.severity = Severity::Error;
    } else {
      ctx.report(call,
                 fmt::format("'{}' without '{}=' has a data-dependent output size: it cannot be traced by 'jax.jit'",
                             *q, op->size_keyword),
                 std::move(hint), *q);
    }
  }
};

const JaxDynamicShapeOp kCheck;

}  // namespace

extern const CheckDef TPU210_jax_dynamic_shape_op{
    .info = {
        .id = "TPU210",
        .name = "jax-dynamic-shape-op",
        .summary = "jax.numpy nonzero/argwhere/unique/one-argument where/... without a static size=",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 2},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `jnp.nonzero`, `flatnonzero`, `argwhere`, the one-argument `jnp.where(cond)`, "
                    "`extract`, `compress`, `mask_indices`, `unique` and `unique_values/counts/inverse/all`, "
                    "`union1d`, `intersect1d`, `setdiff1d`, `setxor1d` without `size=`, `jnp.bincount` "
                    "without `length=`, and, inside a traced function, `jnp.repeat` whose repeats are "
                    "traced and no `total_repeat_length=`, under any alias of jax.numpy. With the static-size argument they are "
                    "fine, and so is the three-argument `jnp.where(c, x, y)`. An error inside a function "
                    "traced by `jax.jit`, `pmap`, `vmap`, `lax.scan`/`fori_loop`/`while_loop`/`cond`, "
                    "`shard_map` or `checkpoint` (decorated, or passed by name to one of them in the scope "
                    "that defines it); a warning elsewhere, since the function may still be traced from another file.",
            .why = "XLA compiles static shapes, and every JAX program on a TPU runs compiled. These ops "
                   "return as many elements as the data holds, so under a trace JAX cannot know the output "
                   "shape and raises `ConcretizationTypeError`. Outside a trace each call runs eagerly: it "
                   "works, but it is an op-by-op dispatch with a device-to-host read of the size.",
            .example = "@jax.jit\ndef positives(x):\n    idx = jnp.nonzero(x > 0)\n    return x[idx]",
            .use_instead = "Give the result a static size and pad: `jnp.nonzero(x > 0, size=k, fill_value=0)`, "
                           "`jnp.unique(labels, size=num_classes, fill_value=-1)`, "
                           "`jnp.bincount(x, length=num_bins)`; or keep a mask: `jnp.where(x > 0, x, 0)`.",
            .effort = "Low: 15 min-2 h, to choose the bound and handle the padding.",
            .heuristic = "Function forms resolved through the imports only: `x.nonzero()` on a JAX array is "
                         "not reported (the receiver's type is unknown). The trace is known from decorators "
                         "(`@jax.jit`, `@partial(jax.jit, ...)`, `@jax.vmap`, ...) and from calls in the same "
                         "scope that take the function by name (`step = jax.jit(step)`); functions nested in a "
                         "traced one are traced. `numpy.nonzero` and the other NumPy look-alikes are not JAX.",
            .references = {"https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html",
                           "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.nonzero.html",
                           "https://docs.jax.dev/en/latest/errors.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
