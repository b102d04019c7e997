// TPU433: CUDA inter-process and peer-to-peer memory (`cudaIpcGetMemHandle`, `cudaDeviceEnablePeerAccess`, `cudaMemcpyPeer`).
// User docs: docs/checks/TPU433.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_api_group.h"

namespace tpulint::checks {

namespace {

const CudaApiGroupCheck kCheck{
    "ipc", "CUDA IPC/peer-access API",
    "share data between devices with collectives (`xm.all_gather`/`all_reduce`, `jax.lax.psum`) or SPMD sharding instead of device pointers"};

}  // namespace

extern const CheckDef TPU433_cuda_ipc_peer_api{
    .info = {
        .id = "TPU433",
        .name = "cuda-ipc-peer-api",
        .summary = "CUDA inter-process and peer-to-peer memory (`cudaIpcGetMemHandle`, `cudaDeviceEnablePeerAccess`, `cudaMemcpyPeer`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "A call of the CUDA IPC or peer-access API: `cudaIpcGetMemHandle`/`cudaIpcOpenMemHandle`/`cudaIpcGetEventHandle`, `cudaDeviceEnablePeerAccess`, `cudaDeviceCanAccessPeer`, `cudaMemcpyPeer*`, shareable-handle export/import (`cuMemExportToShareableHandle`), and the driver API's `cuIpc*`/`cu*Peer*`.",
            .why = "These share raw GPU memory between processes or map one GPU's memory into another. TPU memory is not addressable across processes or chips by pointer: chips exchange data only through XLA collectives over the ICI links.",
            .example = "cudaIpcMemHandle_t handle;\ncudaIpcGetMemHandle(&handle, d_buffer);\n// ... send handle to another process ...\ncudaIpcOpenMemHandle(&peer_ptr, handle, cudaIpcMemLazyEnablePeerAccess);",
            .use_instead = "Express the exchange as a collective (`xm.all_reduce`, `xm.all_gather`, `jax.lax.all_gather` under `shard_map`) or shard the arrays with SPMD (`torch_xla.distributed.spmd`, `jax.sharding`) and let XLA move the data.",
            .effort = "Medium: 2-8 h per call site; the data flow between processes has to be redesigned around collectives.",
            .heuristic = kCudaApiGroupHeuristic,
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__DEVICE.html", "https://docs.pytorch.org/xla/master/perf/spmd_basic.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
