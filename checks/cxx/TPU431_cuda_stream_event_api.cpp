// TPU431: CUDA streams and events (`cudaStreamCreate`, `cudaEventRecord`, `cudaStreamSynchronize`, `cudaDeviceSynchronize`).
// User docs: docs/checks/TPU431.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_api_group.h"

namespace tpulint::checks {

namespace {

const CudaApiGroupCheck kCheck{
    "streams", "CUDA stream/event API",
    "drop it: XLA orders and overlaps device work itself; to wait for results use `torch_xla.sync()` / `xm.wait_device_ops()` or `jax.block_until_ready`"};

}  // namespace

extern const CheckDef TPU431_cuda_stream_event_api{
    .info = {
        .id = "TPU431",
        .name = "cuda-stream-event-api",
        .summary = "CUDA streams and events (`cudaStreamCreate`, `cudaEventRecord`, `cudaStreamSynchronize`, `cudaDeviceSynchronize`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "A call of the CUDA stream or event API: `cudaStreamCreate*`, `cudaStreamWaitEvent`, `cudaStreamSynchronize`, `cudaEventCreate`/`Record`/`Synchronize`/`ElapsedTime`, `cudaDeviceSynchronize`, `cudaLaunchHostFunc`, and the driver API's `cuStream*`/`cuEvent*`.",
            .why = "Streams and events are how CUDA code orders and overlaps asynchronous work by hand. XLA schedules a compiled program itself; there are no user streams or events on a TPU, and a device-wide synchronize is a host-device sync that stalls the TPU pipeline.",
            .example = "cudaEvent_t start, stop;\ncudaEventCreate(&start);\ncudaEventRecord(start, stream);\nkernel<<<grid, block, 0, stream>>>(x);\ncudaStreamSynchronize(stream);",
            .use_instead = "Remove them. Overlap comes from XLA's scheduling and from asynchronous dispatch; timing uses the profiler (`torch_xla.debug.profiler`, `jax.profiler`) or `xm.wait_device_ops()` / `jax.block_until_ready` around a step.",
            .effort = "Low per call: they go away with the kernels they order.",
            .heuristic = kCudaApiGroupHeuristic,
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__STREAM.html", "https://docs.jax.dev/en/latest/async_dispatch.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
