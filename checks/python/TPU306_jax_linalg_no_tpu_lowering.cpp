// TPU306: a JAX linear-algebra function whose primitive has no TPU lowering (eig, eigvals, schur, pivoted QR).
// User docs: docs/checks/TPU306.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Node;
namespace pa = pyapi;

// From the mlir.register_lowering(..., platform=...) calls in jax/_src/lax/linalg.py,
// jax/_src/tpu/linalg/*.py and the public wrappers in jax/_src/numpy/linalg.py and
// jax/_src/scipy/linalg.py, github.com/jax-ml/jax @ cec06d116c05f0d52adfceee3d3b730fdbcb0ce5
// (jax 0.11.1). `pivoting` rows fail only with pivoting=True.
struct NoTpuLinalg {
  std::string_view api;
  std::string_view primitive;
  bool only_with_pivoting;
  std::string_view hint;
};

constexpr std::string_view kEigHint =
    "use 'jnp.linalg.eigh' when the matrix is symmetric (or Hermitian), or run this function on a CPU device "
    "('jax.jit(f, backend=\"cpu\")')";
constexpr std::string_view kCpuHint = "run this function on a CPU device ('jax.jit(f, backend=\"cpu\")')";
constexpr std::string_view kQrHint = "use 'qr' without pivoting (it has a TPU lowering), or run it on a CPU device";

constexpr std::array<NoTpuLinalg, 12> kNoTpu = {{
    {"jax.lax.linalg.eig", "eig", false, kEigHint},
    {"jax.lax.linalg.hessenberg", "hessenberg", false, kCpuHint},
    {"jax.lax.linalg.qr", "geqp3", true, kQrHint},
    {"jax.lax.linalg.schur", "schur", false, kCpuHint},
    {"jax.lax.linalg.tridiagonal", "tridiagonal", false, "use 'jnp.linalg.eigh' directly, or run it on a CPU device"},
    {"jax.numpy.linalg.eig", "eig", false, kEigHint},
    {"jax.numpy.linalg.eigvals", "eig", false,
     "use 'jnp.linalg.eigvalsh' when the matrix is symmetric (or Hermitian), or run it on a CPU device"},
    {"jax.scipy.linalg.hessenberg", "hessenberg", false, kCpuHint},
    {"jax.scipy.linalg.qr", "geqp3", true, kQrHint},
    {"jax.scipy.linalg.schur", "schur", false, kCpuHint},
    {"jax.scipy.linalg.solve_sylvester", "eig", false, kCpuHint},
    {"jax.scipy.linalg.sqrtm", "schur", false,
     "use an eigendecomposition ('jnp.linalg.eigh') for symmetric positive semi-definite matrices, or run it on a "
     "CPU device"},
}};

// qr_multiply has the same pivoting argument as qr, and is matched as qr.
constexpr std::string_view kQrMultiply = "jax.scipy.linalg.qr_multiply";

class JaxLinalgNoTpuLowering final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override {
    static constexpr auto k = [] {
      std::array<std::string_view, kNoTpu.size() + 1> names{kQrMultiply};
      for (size_t i = 0; i < kNoTpu.size(); ++i) names[i + 1] = kNoTpu[i].api;
      return names;
    }();
    return k;
  }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (!q.starts_with("jax.")) return std::nullopt;
    std::string_view api = q == kQrMultiply ? "jax.scipy.linalg.qr" : std::string_view(q);
    const NoTpuLinalg* row = nullptr;
    for (const auto& r : kNoTpu)
      if (r.api == api) row = &r;
    if (!row || pa::in_test(n, ctx)) return std::nullopt;
    if (!row->only_with_pivoting)
      return Match{fmt::format("'{}' uses the '{}' primitive, which has no TPU lowering (CPU and GPU only)", q,
                               row->primitive),
                   std::string(row->hint)};
    Node call = pa::call_of(n, ctx);
    Node pivoting = call ? python::call_arguments(call).keyword("pivoting") : Node();
    if (!pivoting || pa::bool_literal(pivoting) != true) return std::nullopt;
    return Match{fmt::format("'{}(pivoting=True)' uses the '{}' primitive, which has no TPU lowering", q,
                             row->primitive),
                 std::string(row->hint)};
  }
};

const JaxLinalgNoTpuLowering kCheck;

}  // namespace

extern const CheckDef TPU306_jax_linalg_no_tpu_lowering{
    .info = {
        .id = "TPU306",
        .name = "jax-linalg-no-tpu-lowering",
        .summary = "JAX linear algebra with no TPU lowering (jnp.linalg.eig/eigvals, schur, sqrtm, pivoted QR)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .device_code_only = true,
        .doc = {
            .what = "`jnp.linalg.eig`, `jnp.linalg.eigvals`, `jax.lax.linalg.eig`, `jax.scipy.linalg.schur`, "
                    "`sqrtm`, `hessenberg`, `solve_sylvester` (built on `eig`), `jax.lax.linalg.schur`, "
                    "`hessenberg`, `tridiagonal`, and `qr`/`qr_multiply` with `pivoting=True`.",
            .why = "These functions bind primitives (`eig`, `schur`, `hessenberg`, `tridiagonal`, `geqp3`) that JAX "
                   "lowers only for CPU (and for some, GPU): on a TPU, compiling them fails with a missing "
                   "lowering rule. Their docstrings say \"only implemented on CPU and GPU\".",
            .example = "w, v = jnp.linalg.eig(a)\nt, z = jax.scipy.linalg.schur(a)",
            .use_instead = "For symmetric or Hermitian matrices use `jnp.linalg.eigh`/`eigvalsh` (TPU-specific "
                           "QDWH lowering); use `qr` without pivoting. Otherwise run that function on a CPU device: "
                           "`jax.jit(f, backend=\"cpu\")`, or `jax.device_put(x, jax.devices(\"cpu\")[0])` first.",
            .effort = "Medium: 2-8 h, to show the matrix is symmetric (and switch to `eigh`) or to move the "
                      "computation to the host without stalling the step.",
            .heuristic = "",
            .references = {"https://docs.jax.dev/en/latest/_autosummary/jax.numpy.linalg.eig.html",
                           "https://github.com/jax-ml/jax/blob/main/jax/_src/lax/linalg.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
