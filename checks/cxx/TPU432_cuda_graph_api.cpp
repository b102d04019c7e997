// TPU432: CUDA graphs (`cudaStreamBeginCapture`, `cudaGraphInstantiate`, `cudaGraphLaunch`, `cuGraph*`).
// User docs: docs/checks/TPU432.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_api_group.h"

namespace tpulint::checks {

namespace {

const CudaApiGroupCheck kCheck{
    "graphs", "CUDA graph API",
    "drop the capture: torch_xla and jax.jit already compile the whole step into one XLA program, which is what a CUDA graph approximates"};

}  // namespace

extern const CheckDef TPU432_cuda_graph_api{
    .info = {
        .id = "TPU432",
        .name = "cuda-graph-api",
        .summary = "CUDA graphs (`cudaStreamBeginCapture`, `cudaGraphInstantiate`, `cudaGraphLaunch`, `cuGraph*`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "A call of the CUDA graph API: stream capture (`cudaStreamBeginCapture`, `cudaStreamEndCapture`, `cudaStreamIsCapturing`), graph construction and editing (`cudaGraphCreate`, `cudaGraphAdd*Node`), instantiation and launch (`cudaGraphInstantiate`, `cudaGraphLaunch`, `cudaGraphExecUpdate`), and the driver API's `cuGraph*`.",
            .why = "CUDA graphs remove per-kernel launch overhead by recording a sequence of launches and replaying it. On a TPU the whole step is already one compiled XLA program; the capture/replay machinery has no counterpart, and the kernels it records must be rewritten anyway.",
            .example = "cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);\nstep<<<grid, block, 0, stream>>>(x);\ncudaStreamEndCapture(stream, &graph);\ncudaGraphInstantiate(&exec, graph, 0);\ncudaGraphLaunch(exec, stream);",
            .use_instead = "Compile the step with `torch.compile(backend=\"openxla\")`, `torch_xla` lazy tensors with `torch_xla.sync()`, or `jax.jit`; keep shapes static so the program is compiled once and replayed.",
            .effort = "Medium: 1-4 h per call site, since graph capture code is usually tied to buffer management that has to be restructured.",
            .heuristic = kCudaApiGroupHeuristic,
            .references = {"https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__GRAPH.html", "https://docs.pytorch.org/xla/master/perf/recompilation.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
