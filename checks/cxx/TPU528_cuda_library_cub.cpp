// TPU528: the CUDA library CUB, by its headers and its API.
// User docs: docs/checks/TPU528.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cub"};

}  // namespace

extern const CheckDef TPU528_cuda_library_cub{
    .info = {
        .id = "TPU528",
        .name = "cuda-library-cub",
        .summary = "CUB, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "CUB: `#include <cub/...>`, or names under `cub::` (`cub::DeviceReduce::Sum`, `cub::BlockReduce`, `cub::WarpScan`, `cub::DeviceRadixSort`).",
            .why = "CUB provides block-, warp- and device-wide primitives for CUDA kernels. Block and warp primitives only exist inside CUDA kernels; device-wide ones are framework reductions, scans and sorts on a TPU.",
            .example = "typedef cub::BlockReduce<float, 256> BlockReduce;\n__shared__ typename BlockReduce::TempStorage temp;\nfloat sum = BlockReduce(temp).Sum(v);",
            .use_instead = "Device-wide: `torch.sum`/`cumsum`/`sort`, `jnp.sum`/`cumsum`/`sort`. Block/warp-level: part of the kernel's rewrite (TPU101), as tensor ops or inside a Pallas kernel (`jnp.sum` over a block).",
            .effort = "Medium: 2-8 h per file that uses it; reported once per file.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
