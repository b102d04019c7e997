// TPU434: CUDA device and context management (`cudaSetDevice`, `cudaGetDeviceProperties`, `cuCtxCreate`, `cuInit`).
// User docs: docs/checks/TPU434.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_api_group.h"

namespace tpulint::checks {

namespace {

const CudaApiGroupCheck kCheck{
    "device", "CUDA device-management API",
    "use the framework's device API: `torch_xla.device()`, `torch_xla.runtime.world_size()`/`global_ordinal()`, `jax.devices()`"};

}  // namespace

extern const CheckDef TPU434_cuda_device_management_api{
    .info = {
        .id = "TPU434",
        .name = "cuda-device-management-api",
        .summary = "CUDA device and context management (`cudaSetDevice`, `cudaGetDeviceProperties`, `cuCtxCreate`, `cuInit`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "A call of the CUDA device or context management API: `cudaSetDevice`, `cudaGetDevice`, `cudaGetDeviceCount`, `cudaGetDeviceProperties`, `cudaDeviceGetAttribute`, `cudaDeviceSetLimit`, `cudaDeviceReset`, version queries, and the driver API's `cuInit`, `cuDevice*`, `cuCtx*`, `cuDevicePrimaryCtx*`.",
            .why = "There is no CUDA device or context on a TPU host: these calls fail at run time there. Device selection, counts and properties come from the XLA runtime.",
            .example = "int count;\ncudaGetDeviceCount(&count);\ncudaSetDevice(rank % count);\ncudaDeviceProp prop;\ncudaGetDeviceProperties(&prop, 0);",
            .use_instead = "`torch_xla.device()` for the local device, `torch_xla.runtime.world_size()` / `global_ordinal()` for the process topology, `jax.devices()` / `jax.local_devices()` in JAX. Tuning done from device properties (SM count, shared memory per block) goes away with the kernel it tunes.",
            .effort = "Low per call: a device query becomes a framework call or disappears.",
            .heuristic = kCudaApiGroupHeuristic,
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__DEVICE.html", "https://docs.pytorch.org/xla/master/learn/api-guide.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
