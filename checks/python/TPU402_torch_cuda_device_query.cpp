// TPU402: torch.cuda device selection and device queries (set_device, current_device, device_count, ...).
// User docs: docs/checks/TPU402.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU402"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("Calls of the `torch.cuda` device-selection and device-query functions", "TPU402");

}  // namespace

extern const CheckDef TPU402_torch_cuda_device_query{
    .info = {
        .id = "TPU402",
        .name = "torch-cuda-device-query",
        .summary = "torch.cuda device selection and queries (set_device, current_device, device_count, "
                   "get_device_properties, ...)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.5},
        .doc = {
            .what = kWhat,
            .why = "On a TPU host PyTorch is a CPU-only build next to torch_xla: the functions that initialize CUDA "
                   "raise (`Torch not compiled with CUDA enabled`), and the others return defaults that silently "
                   "steer the program away from the TPU: `device_count()` is 0 (a world size of 0 processes), "
                   "`is_bf16_supported()` is False (the code falls back to float16).",
            .example = "torch.cuda.set_device(local_rank)\nworld_size = torch.cuda.device_count()\nname = "
                       "torch.cuda.get_device_name()",
            .use_instead = "Let `torch_xla.launch(fn)` start one process per TPU device and use `torch_xla.device()` "
                           "in it; `xr.world_size()` and `xr.global_ordinal()` (`torch_xla.runtime`) give the "
                           "process count and rank, `xm.xla_device_kind()` the TPU generation, and "
                           "`torch_xla.runtime.is_bf16_supported()` the bfloat16 test.",
            .effort = "Low: 0.1-0.5 h per call, mechanical once the launcher gives each process its device.",
            .heuristic = "`torch.cuda.is_available()` is not reported: it is a harmless test (False on a TPU host), "
                         "and the CUDA code it guards is reported by its own check, as a warning saying a TPU host "
                         "skips it. A guard is recognized in an enclosing `if`/conditional expression testing "
                         "`torch.cuda.is_available()`, `.is_cuda`, a \"cuda\" string comparison or a "
                         "`cuda`/`use_cuda`/`use_gpu` flag; an early `return` guard is not seen.",
            .references = {"https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
                           "https://docs.pytorch.org/xla/master/learn/_pjrt.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
