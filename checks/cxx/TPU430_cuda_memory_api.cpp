// TPU430: CUDA runtime/driver memory management (`cudaMalloc`, `cudaMemcpy`, unified memory, memory pools).
// User docs: docs/checks/TPU430.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_api_group.h"

namespace tpulint::checks {

namespace {

const CudaApiGroupCheck kCheck{
    "memory", "CUDA memory API",
    "allocate tensors with torch/JAX on the XLA device (`torch.empty(..., device=torch_xla.device())`, `jax.device_put`); copies become `.to(device)` / `jax.device_get`"};

}  // namespace

extern const CheckDef TPU430_cuda_memory_api{
    .info = {
        .id = "TPU430",
        .name = "cuda-memory-api",
        .summary = "CUDA runtime/driver memory management (`cudaMalloc`, `cudaMemcpy`, unified memory, memory pools)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "A call of the CUDA runtime or driver memory API: allocation (`cudaMalloc`, `cudaMallocAsync`, `cuMemAlloc`), copies (`cudaMemcpy*`, `cuMemcpy*`), `cudaMemset`, pinned host memory (`cudaHostAlloc`, `cudaHostRegister`), unified memory (`cudaMallocManaged`, `cudaMemPrefetchAsync`, `cudaMemAdvise`), memory pools and virtual memory management (`cuMemCreate`, `cuMemMap`).",
            .why = "TPU memory is owned by the XLA runtime: there is no raw device pointer to allocate, copy into or free, no unified memory and no host-pinned allocation API. Buffers exist as XLA arrays (tensors on the XLA device).",
            .example = "float* d_x;\ncudaMalloc(&d_x, n * sizeof(float));\ncudaMemcpy(d_x, h_x, n * sizeof(float), cudaMemcpyHostToDevice);",
            .use_instead = "Let the framework own the buffers: create tensors on the XLA device (`torch.zeros(n, device=torch_xla.device())`, `jnp.zeros(n)`) and move data with `.to(device)` / `jax.device_put`. Host staging buffers become NumPy arrays fed through the input pipeline (`MpDeviceLoader`, `tf.data`).",
            .effort = "Low per call: allocations and copies disappear when the kernel they feed is replaced by framework code; 15 min to 1 h each, more if pointer arithmetic runs through the host code.",
            .heuristic = kCudaApiGroupHeuristic,
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__MEMORY.html", "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
