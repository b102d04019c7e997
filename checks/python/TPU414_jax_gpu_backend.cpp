// TPU414: JAX code that asks for the GPU backend (jax.devices("gpu"), backend="gpu", jax_platforms="cuda").
// User docs: docs/checks/TPU414.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

bool gpu_platform(Node n) {
  auto s = pa::string_literal(n);
  if (!s) return false;
  std::string v = pa::ascii_lower(*s);
  // jax_platforms takes a comma-separated priority list: "cuda,cpu".
  return v == "gpu" || v == "cuda" || v == "rocm" || v.starts_with("cuda,") || v.starts_with("gpu,");
}

constexpr std::string_view kHint = "use 'jax.devices()', which lists the TPU devices on a TPU host";

class JaxGpuBackend final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::Assignment};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"devices", "device_count", "local_device_count", "local_devices", "jit", "pmap", "update", "dot_product_attention"};
    return k;
  }

  void check(Node n, python::PythonContext& ctx) const override {
    if (n.kind() == Kind::Assignment) return check_environ(n, ctx);
    const auto& q = ctx.qualified_name(n.field(Field::Function));
    if (!q || !q->starts_with("jax")) return;
    python::CallArguments args = python::call_arguments(n);
    Node platform;
    if (*q == "jax.devices" || *q == "jax.device_count" || *q == "jax.local_device_count")
      platform = pa::argument(args, 0, "backend");
    else if (*q == "jax.local_devices")
      platform = pa::argument(args, 1, "backend");
    else if (*q == "jax.jit" || *q == "jax.pmap")
      platform = args.keyword("backend");
    else if (*q == "jax.config.update" && args.positional.size() >= 2) {
      auto name = pa::string_literal(args.positional[0]);
      if (name && (*name == "jax_platform_name" || *name == "jax_platforms")) platform = args.positional[1];
    } else if (*q == "jax.nn.dot_product_attention") {
      Node impl = args.keyword("implementation");
      if (pa::string_literal(impl) == "cudnn")
        ctx.report(impl.parent(),
                   "'jax.nn.dot_product_attention(implementation=\"cudnn\")' is the cuDNN kernel, which only GPUs have",
                   "use 'implementation=\"xla\"' (or leave it unset), or the Pallas TPU 'flash_attention' kernel",
                   "jax.nn.dot_product_attention(implementation=\"cudnn\")");
      return;
    }
    if (!platform || !gpu_platform(platform)) return;
    ctx.report(n,
               fmt::format("'{}' asks for the GPU backend ({}), which a TPU host does not have", *q, platform.text()),
               std::string(kHint), *q);
  }

 private:
  // os.environ["JAX_PLATFORMS"] = "cuda"
  static void check_environ(Node assign, python::PythonContext& ctx) {
    Node left = assign.field(Field::Left);
    if (!left || left.kind() != Kind::Subscript || !gpu_platform(assign.field(Field::Right))) return;
    const auto& target = ctx.qualified_name(left.field(Field::Value));
    auto key = pa::string_literal(left.field(Field::Subscript));
    if (!target || *target != "os.environ" || !key || (*key != "JAX_PLATFORMS" && *key != "JAX_PLATFORM_NAME")) return;
    ctx.report(assign, fmt::format("'{}' selects the GPU backend, which a TPU host does not have", *key),
               "leave it unset (JAX picks the TPU), or set it to \"tpu\"", *key);
  }
};

const JaxGpuBackend kCheck;

}  // namespace

extern const CheckDef TPU414_jax_gpu_backend{
    .info = {
        .id = "TPU414",
        .name = "jax-gpu-backend",
        .summary = "JAX code that asks for the GPU backend (jax.devices(\"gpu\"), backend=\"gpu\", JAX_PLATFORMS=cuda)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Jax,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.5},
        .doc = {
            .what = "`jax.devices(\"gpu\")`, `jax.local_devices(backend=\"gpu\")`, `jax.device_count(\"gpu\")`, "
                    "`jax.jit(..., backend=\"gpu\")`, `jax.pmap(..., backend=\"cuda\")`, "
                    "`jax.config.update(\"jax_platforms\", \"cuda\")` and `os.environ[\"JAX_PLATFORMS\"] = \"cuda\"` "
                    "(also `\"rocm\"`), and `jax.nn.dot_product_attention(implementation=\"cudnn\")`.",
            .why = "On a TPU host JAX has the TPU and CPU backends only: asking for `\"gpu\"` raises "
                   "`RuntimeError: Unknown backend gpu`, and forcing `JAX_PLATFORMS=cuda` makes JAX fail to start. "
                   "The cuDNN attention implementation exists only on NVIDIA GPUs.",
            .example = "gpus = jax.devices(\"gpu\")\nx = jax.device_put(x, gpus[0])",
            .use_instead = "`jax.devices()` lists the default backend's devices (the TPUs); use "
                           "`jax.devices(\"tpu\")` to be explicit and `jax.devices(\"cpu\")` for host work. Use "
                           "`implementation=\"xla\"` (or the Pallas TPU flash attention) for attention.",
            .effort = "Low: one argument per call.",
            .heuristic = "Only literal platform names are reported: `jax.devices(platform)` with a variable is not. "
                         "`jax.devices(\"cpu\")` and `jax.default_backend() == \"gpu\"` tests are fine.",
            .references = {"https://docs.jax.dev/en/latest/_autosummary/jax.devices.html",
                           "https://docs.jax.dev/en/latest/_autosummary/jax.nn.dot_product_attention.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
