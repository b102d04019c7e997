// TPU412: NVTX ranges and CUDA profiler control (torch.cuda.nvtx.*, torch.cuda.profiler.*, emit_nvtx).
// User docs: docs/checks/TPU412.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU412"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("NVTX annotations and CUDA profiler control", "TPU412");

}  // namespace

extern const CheckDef TPU412_cuda_nvtx_profiling{
    .info = {
        .id = "TPU412",
        .name = "cuda-nvtx-profiling",
        .summary = "NVTX ranges and CUDA profiler control (torch.cuda.nvtx.*, torch.cuda.profiler.*, emit_nvtx)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = kWhat,
            .why = "NVTX ranges annotate timelines for NVIDIA Nsight tools; a CPU-only PyTorch build has no NVTX "
                   "library and the calls raise (`NVTX functions not installed`). Nsight does not see TPU work "
                   "either.",
            .example = "torch.cuda.nvtx.range_push(\"forward\")\nout = model(x)\ntorch.cuda.nvtx.range_pop()",
            .use_instead = "`import torch_xla.debug.profiler as xp`; `xp.start_server(9012)` once, then `with "
                           "xp.Trace(\"forward\"):` for named ranges, and capture with TensorBoard or "
                           "`xp.trace_detached`.",
            .effort = "Low: minutes per range.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or another CUDA test) is "
                         "skipped on a TPU host and is reported as a warning that says so.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://cloud.google.com/tpu/docs/pytorch-xla-performance-profiling-tpu-vm"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
