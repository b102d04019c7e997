// TPU403: torch.cuda.synchronize(), which raises without CUDA.
// User docs: docs/checks/TPU403.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU403"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("Calls of `torch.cuda.synchronize`", "TPU403");

}  // namespace

extern const CheckDef TPU403_torch_cuda_synchronize{
    .info = {
        .id = "TPU403",
        .name = "torch-cuda-synchronize",
        .summary = "torch.cuda.synchronize(): raises without CUDA; XLA needs torch_xla.sync() and "
                   "xm.wait_device_ops()",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = kWhat,
            .why = "`torch.cuda.synchronize()` initializes CUDA and raises on a TPU host. Where it is guarded by "
                   "`torch.cuda.is_available()` it is skipped instead, and code that times a step or a benchmark "
                   "then measures only how long it took to trace the lazy graph, not to run it.",
            .example = "torch.cuda.synchronize()\nelapsed = time.perf_counter() - start",
            .use_instead = "`torch_xla.sync()` cuts and dispatches the pending graph; `xm.wait_device_ops()` "
                           "(`torch_xla.core.xla_model`) waits until the device has run it. Time a step with both, "
                           "or with `torch_xla.debug.profiler`.",
            .effort = "Low: one line per call.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or a \"cuda\" device test) "
                         "is reported as a warning: it does not raise on a TPU host, but the code then waits for "
                         "nothing.",
            .references = {"https://docs.pytorch.org/xla/master/learn/xla-advanced.html",
                           "https://docs.pytorch.org/xla/master/learn/troubleshoot.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
