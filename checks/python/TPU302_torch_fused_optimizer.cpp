// TPU302: a torch.optim optimizer built with fused=True, whose fused kernels exist for CUDA/CPU but not XLA.
// User docs: docs/checks/TPU302.md (generated from the CheckInfo below).
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

// The optimizers with a `fused` flag (torch/optim in PyTorch 2.9), each reaching its
// `_fused_<name>_` op, and whether torch_xla.amp.syncfree has a counterpart.
struct FusedOptimizer {
  std::string_view name;
  std::string_view aten_op;
  bool syncfree;
};
constexpr std::array<FusedOptimizer, 4> kFused = {{
    {"Adagrad", "_fused_adagrad_", false},
    {"Adam", "_fused_adam_", true},
    {"AdamW", "_fused_adamw_", true},
    {"SGD", "_fused_sgd_", true},
}};

const FusedOptimizer* find_optimizer(std::string_view qualified) {
  // torch.optim.AdamW, or its defining module: torch.optim.adamw.AdamW.
  constexpr std::string_view kOptim = "torch.optim.";
  if (!qualified.starts_with(kOptim)) return nullptr;
  std::string_view name = qualified.substr(qualified.rfind('.') + 1);
  std::string_view middle = qualified.substr(kOptim.size(), qualified.size() - kOptim.size() - name.size());
  if (!middle.empty() && middle.find('.') != middle.size() - 1) return nullptr;
  for (const auto& o : kFused)
    if (o.name == name) return &o;
  return nullptr;
}

class TorchFusedOptimizer final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = python::last_name_parts(kFused, &FusedOptimizer::name);
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (!q) return;
    const FusedOptimizer* opt = find_optimizer(*q);
    if (!opt) return;
    python::CallArguments args = python::call_arguments(call);
    Node fused = args.keyword("fused");
    if (!fused || pa::bool_literal(fused) != true) return;
    std::string hint = opt->syncfree
                           ? fmt::format("drop 'fused=True' (the default step compiles into the XLA graph), or use "
                                         "'torch_xla.amp.syncfree.{}'",
                                         opt->name)
                           : std::string("drop 'fused=True': the default step compiles into the XLA graph");
    ctx.report(fused.parent(),
               fmt::format("'torch.optim.{}(fused=True)' has no XLA kernel ('aten::{}'): the step raises for "
                           "parameters on an XLA device",
                           opt->name, opt->aten_op),
               std::move(hint), fmt::format("torch.optim.{}(fused=True)", opt->name));
  }
};

const TorchFusedOptimizer kCheck;

}  // namespace

extern const CheckDef TPU302_torch_fused_optimizer{
    .info = {
        .id = "TPU302",
        .name = "torch-fused-optimizer",
        .summary = "torch.optim optimizer with fused=True: the fused kernels exist for CUDA and CPU, not XLA",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = "`torch.optim.Adam`, `AdamW`, `SGD` and `Adagrad` built with a literal `fused=True` "
                    "(any import spelling: `from torch.optim import AdamW`, `torch.optim.adamw.AdamW`).",
            .why = "The fused step runs one `_fused_adam_`-style kernel per parameter group. Those kernels exist "
                   "for CUDA, CPU, MPS and a few other backends, not for XLA: PyTorch checks the parameters' device "
                   "type against its list of fused-capable devices and raises `RuntimeError: fused=True requires "
                   "all the params to be floating point Tensors of supported devices` for XLA parameters.",
            .example = "opt = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)",
            .use_instead = "Drop `fused=True`: the default (for-loop or foreach) step is traced into the XLA graph "
                           "and fused by the compiler. For mixed precision, the sync-free optimizers in "
                           "`torch_xla.amp.syncfree` (`Adam`, `AdamW`, `SGD`) avoid a device-host sync per step.",
            .effort = "Low: delete one argument.",
            .heuristic = "Only a literal `fused=True` is reported: `fused` passed through `**kwargs` or a variable "
                         "is not (code that picks it with `device_type == \"cuda\"` already turns it off on a TPU).",
            .references = {"https://docs.pytorch.org/docs/stable/optim.html",
                           "https://docs.pytorch.org/xla/master/perf/amp.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
