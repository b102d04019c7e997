// TPU305: 64-bit floats in JAX code (jax_enable_x64, JAX_ENABLE_X64, jnp.float64, jnp.complex128).
// User docs: docs/checks/TPU305.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

// The 64-bit types of jax.numpy (the first four) and of NumPy.
constexpr std::array<std::string_view, 7> kFloat64Names = {"jax.numpy.float64", "jax.numpy.double",
                                                           "jax.numpy.complex128", "jax.numpy.cdouble",
                                                           "numpy.float64", "numpy.double", "numpy.complex128"};
bool is_jax_float64(std::string_view q) {
  return std::find(kFloat64Names.begin(), kFloat64Names.begin() + 4, q) != kFloat64Names.begin() + 4;
}
bool is_numpy_float64(std::string_view q) {
  return std::find(kFloat64Names.begin() + 4, kFloat64Names.end(), q) != kFloat64Names.end();
}

// A value that turns a flag on: True, a non-zero int, or a string other than "0"/"false".
bool truthy_literal(Node v) {
  if (auto b = pa::bool_literal(v)) return *b;
  if (auto i = pa::int_literal(v)) return *i != 0;
  if (auto s = pa::string_literal(v)) return !s->empty() && *s != "0" && *s != "false" && *s != "False";
  return false;
}

constexpr std::string_view kX64Hint =
    "keep 'jax_enable_x64' off on the TPU and compute the few values that need float64 in NumPy on the host";
constexpr std::string_view kDtypeHint = "use 'jnp.float32' (or bfloat16), and keep float64 math in NumPy on the host";

class JaxFloat64 final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::Assignment};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"update", "enable_x64", "setdefault"};
    return k;
  }

  void check(Node n, python::PythonContext& ctx) const override {
    if (n.kind() == Kind::Call) return check_call(n, ctx);
    check_assignment(n, ctx);
  }

  bool checks_references() const override { return true; }
  std::span<const std::string_view> reference_names() const override { return kFloat64Names; }
  void check_reference(Node n, const std::string& q, python::PythonContext& ctx) const override {
    if (!(is_jax_float64(q) || is_numpy_float64(q))) return;
    if (pa::in_test(n, ctx) || pa::in_dict_entry(n, ctx)) return;
    Node p = n.parent();
    if (is_jax_float64(q)) {
      ctx.report(n, fmt::format("'{}' is a 64-bit type: a TPU emulates it in software when x64 is on (and JAX "
                                "silently uses 32 bits when it is off)",
                                q),
                 std::string(kDtypeHint), q);
      return;
    }
    // np.float64 handed to a JAX function as a dtype: jnp.zeros(n, dtype=np.float64).
    if (is_numpy_float64(q)) {
      Node holder = p && p.kind() == Kind::KeywordArgument ? p.parent() : p;
      if (!holder || holder.kind() != Kind::ArgumentList) return;
      const auto& callee = ctx.qualified_name(holder.parent().field(Field::Function));
      if (!callee || !callee->starts_with("jax.")) return;
      ctx.report(n, fmt::format("'{}' asks a JAX function for a 64-bit type, which a TPU emulates in software when "
                                "x64 is on",
                                q),
                 std::string(kDtypeHint), q);
    }
  }

  static void report_x64(Node at, python::PythonContext& ctx, std::string what) {
    Finding& f = ctx.report(at, fmt::format("{} turns on 64-bit floats everywhere, which a TPU emulates in software",
                                            what),
                            std::string(kX64Hint), "jax_enable_x64");
    f.effort = EffortClass::Medium;
    f.hours = {1, 4};
  }

  // jax.config.update("jax_enable_x64", True); jax.experimental.enable_x64().
  static void check_call(Node call, python::PythonContext& ctx) {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (!q || (*q != "jax.config.update" && *q != "jax.config.config.update" && *q != "jax.experimental.enable_x64" &&
               *q != "jax.enable_x64" && *q != "os.environ.setdefault"))
      return;
    python::CallArguments args = python::call_arguments(call);
    if (*q == "jax.config.update" || *q == "jax.config.config.update") {
      if (args.positional.size() < 2) return;
      auto name = pa::string_literal(args.positional[0]);
      if (name && *name == "jax_enable_x64" && truthy_literal(args.positional[1]))
        report_x64(call, ctx, "'jax_enable_x64'");
      return;
    }
    if (*q == "jax.experimental.enable_x64" || *q == "jax.enable_x64") {
      Node on = pa::argument(args, 0, "new_val");
      if (!on || truthy_literal(on)) report_x64(call, ctx, fmt::format("'{}'", *q));
      return;
    }
    // os.environ.setdefault("JAX_ENABLE_X64", "1")
    if (*q == "os.environ.setdefault" && args.positional.size() >= 2) {
      auto name = pa::string_literal(args.positional[0]);
      if (name && *name == "JAX_ENABLE_X64" && truthy_literal(args.positional[1]))
        report_x64(call, ctx, "'JAX_ENABLE_X64'");
    }
  }

  // os.environ["JAX_ENABLE_X64"] = "1"; jax.config.jax_enable_x64 = True.
  static void check_assignment(Node assign, python::PythonContext& ctx) {
    Node left = assign.field(Field::Left);
    Node right = assign.field(Field::Right);
    if (!left || !right) return;
    // The target decides before the value is read: most assignments set neither flag.
    if (left.kind() == Kind::Subscript) {
      if (!pa::may_resolve_to(left.field(Field::Value), "os.environ", ctx)) return;
      const auto& target = ctx.qualified_name(left.field(Field::Value));
      if (!target || *target != "os.environ") return;
      auto key = pa::string_literal(left.field(Field::Subscript));
      if (key && *key == "JAX_ENABLE_X64" && truthy_literal(right)) report_x64(assign, ctx, "'JAX_ENABLE_X64'");
      return;
    }
    if (!pa::may_resolve_to(left, "jax.config.jax_enable_x64", ctx)) return;
    if (const auto& q = ctx.qualified_name(left); q && *q == "jax.config.jax_enable_x64" && truthy_literal(right))
      report_x64(assign, ctx, "'jax_enable_x64'");
  }
};

const JaxFloat64 kCheck;

}  // namespace

extern const CheckDef TPU305_jax_float64{
    .info = {
        .id = "TPU305",
        .name = "jax-float64",
        .summary = "64-bit floats in JAX code (jax_enable_x64, JAX_ENABLE_X64, jnp.float64, jnp.complex128)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "Turning on JAX's 64-bit mode (`jax.config.update(\"jax_enable_x64\", True)`, "
                    "`os.environ[\"JAX_ENABLE_X64\"] = \"1\"`, `jax.experimental.enable_x64()`), and the 64-bit "
                    "types in JAX code: `jnp.float64`, `jnp.double`, `jnp.complex128`, `jnp.cdouble`, and "
                    "`np.float64` passed as an argument to a `jax.*` function.",
            .why = "The JAX documentation says TPUs do not support 64-bit floating point. With x64 on, every "
                   "default float array becomes float64 and XLA:TPU rewrites each op into 32-bit sequences: slow, "
                   "and some ops (for example a float64 `nextafter`) fail to compile. With x64 off, a `jnp.float64` "
                   "request is silently truncated to float32, which hides the precision the code asked for.",
            .example = "jax.config.update(\"jax_enable_x64\", True)\nx = jnp.zeros(n, dtype=jnp.float64)",
            .use_instead = "Keep x64 off on the TPU and use float32 (bfloat16 for matmul-heavy code, with "
                           "`precision=\"highest\"` where float32 accuracy matters). Compute the few values that need "
                           "float64 (a long accumulation, a reference check) in NumPy on the host.",
            .effort = "Low (0.25-1 h) per 64-bit dtype; medium (1-4 h) for enabling x64, which changes the dtype "
                      "of every array the program makes and needs its numerics re-checked.",
            .heuristic = "NumPy's `np.float64` is reported only as an argument of a `jax.*` call (elsewhere it runs "
                         "on the host). Comparisons (`x.dtype == jnp.float64`) and dict entries are not reported.",
            .references = {"https://docs.jax.dev/en/latest/default_dtypes.html",
                           "https://docs.jax.dev/en/latest/type_promotion.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
