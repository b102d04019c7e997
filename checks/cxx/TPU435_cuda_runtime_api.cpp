// TPU435: the rest of the CUDA runtime/driver API: error handling, execution control and occupancy, modules (`cudaGetLastError`, `cudaFuncSetAttribute`, `cuModuleLoad`).
// User docs: docs/checks/TPU435.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_api_group.h"

namespace tpulint::checks {

namespace {

const CudaApiGroupCheck kCheck{
    "runtime", "CUDA runtime API",
    "drop CUDA error checks and execution tuning with the kernel they serve; the framework reports its own errors",
    "cudart"};

}  // namespace

extern const CheckDef TPU435_cuda_runtime_api{
    .info = {
        .id = "TPU435",
        .name = "cuda-runtime-api",
        .summary = "the rest of the CUDA runtime/driver API: error handling, execution control, occupancy, modules (`cudaGetLastError`, `cudaFuncSetAttribute`, `cuModuleLoad`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "A call of the CUDA runtime or driver API outside the memory, stream, graph, IPC and device groups: error handling (`cudaGetLastError`, `cudaGetErrorString`, `cuGetErrorName`), execution control and occupancy (`cudaFuncSetAttribute`, `cudaFuncGetAttributes`, `cudaOccupancyMaxActiveBlocksPerMultiprocessor`), modules and libraries (`cuModuleLoad`, `cuModuleGetFunction`, `cudaLibraryLoadData`), profiler control, and cuComplex arithmetic (`make_cuComplex`, `cuCmulf`). Its types and constants (`cudaError_t`, `cudaSuccess`, `CUresult`, `cuComplex`, `__half`, `__nv_bfloat16`) and `#include <cuda_runtime.h>`-style lines are counted in this check's work item as lines to touch.",
            .why = "These calls speak to the CUDA runtime, which a TPU host does not have: there is no CUDA error state to query, no kernel attribute or occupancy to tune, no cubin or PTX module to load. The types they use (`cudaError_t`, `__half`) come from CUDA headers a TPU build does not have.",
            .example = "cudaError_t err = cudaGetLastError();\nif (err != cudaSuccess) printf(\"%s\\n\", cudaGetErrorString(err));\ncudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);",
            .use_instead = "Remove error checks and tuning together with the kernel they serve: the framework op or Pallas kernel that replaces it reports errors as exceptions, and XLA picks its own tiling. Half-precision types become `jnp.bfloat16` / `torch.bfloat16` tensors; complex arithmetic becomes complex tensor ops.",
            .effort = "Low per call: an error check or an attribute disappears with the kernel it wraps; 15 min to 1 h each.",
            .heuristic = kCudaApiGroupHeuristic,
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__ERROR.html", "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__EXECUTION.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
