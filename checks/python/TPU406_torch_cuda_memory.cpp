// TPU406: torch.cuda memory statistics and caching-allocator controls.
// User docs: docs/checks/TPU406.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU406"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("Calls of the `torch.cuda` memory statistics and caching-allocator functions", "TPU406");

}  // namespace

extern const CheckDef TPU406_torch_cuda_memory{
    .info = {
        .id = "TPU406",
        .name = "torch-cuda-memory",
        .summary = "torch.cuda memory statistics and allocator controls (memory_allocated, max_memory_allocated, "
                   "mem_get_info, ...)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = kWhat,
            .why = "On a TPU host the statistics read an allocator that was never used: `memory_allocated()` and "
                   "`max_memory_allocated()` return 0 and the logs show no memory use; the functions that need a "
                   "CUDA device (`mem_get_info`, `reset_peak_memory_stats`, `set_per_process_memory_fraction`) "
                   "raise.",
            .example = "mem = torch.cuda.max_memory_allocated() / 2**30\ntorch.cuda.reset_peak_memory_stats()",
            .use_instead = "`xm.get_memory_info(device)` (`torch_xla.core.xla_model`) returns the TPU's "
                           "`bytes_used`, `bytes_limit` and `peak_bytes_used`; "
                           "`torch_xla.debug.metrics.metrics_report()` and the profiler show the rest.",
            .effort = "Low: minutes per call.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or another CUDA test) is "
                         "skipped on a TPU host and is reported as a warning that says so.",
            .references = {"https://github.com/pytorch/xla/blob/master/torch_xla/core/xla_model.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
