// TPU531: the CUDA library NVTX, by its headers and its API.
// User docs: docs/checks/TPU531.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"nvtx"};

}  // namespace

extern const CheckDef TPU531_cuda_library_nvtx{
    .info = {
        .id = "TPU531",
        .name = "cuda-library-nvtx",
        .summary = "NVTX, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Info,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "NVTX profiler annotations: `#include <nvToolsExt.h>`/`<nvtx3/...>`, calls such as `nvtxRangePushA`, `nvtxRangePop`, `nvtxMarkA`, or `nvtx3::scoped_range`.",
            .why = "NVTX ranges annotate timelines for NVIDIA's profilers (Nsight). They are harmless without a GPU only if the library is present; on a TPU host they annotate nothing, and the TPU profiler has its own annotations.",
            .example = "nvtxRangePushA(\"forward\");\n// ...\nnvtxRangePop();",
            .use_instead = "The framework profiler's annotations: `torch_xla.debug.profiler.Trace`/`StepTrace`, `jax.profiler.TraceAnnotation`/`StepTraceAnnotation`.",
            .effort = "Low: minutes per call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.pytorch.org/xla/master/perf/profiling.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
