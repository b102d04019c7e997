// TPU527: the CUDA library Thrust, by its headers and its API.
// User docs: docs/checks/TPU527.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"thrust"};

}  // namespace

extern const CheckDef TPU527_cuda_library_thrust{
    .info = {
        .id = "TPU527",
        .name = "cuda-library-thrust",
        .summary = "Thrust, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "Thrust: `#include <thrust/...>`, or names under `thrust::` (`thrust::sort`, `thrust::device_vector`, `thrust::transform`).",
            .why = "Thrust runs parallel algorithms (sort, scan, reduce, transform) on NVIDIA GPUs through CUDA. On a TPU the same algorithms are framework array operations compiled by XLA.",
            .example = "thrust::device_vector<int> keys(n);\nthrust::sort_by_key(keys.begin(), keys.end(), values.begin());",
            .use_instead = "`torch.sort`/`argsort`/`cumsum`/`unique` (with a static size) on the XLA device, `jnp.sort`/`argsort`/`cumsum`/`jax.lax.sort` with multiple operands for sort-by-key.",
            .effort = "Medium: 2-8 h per file that uses it; it is reported once per file (its API is as much types as calls).",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/_autosummary/jax.lax.sort.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
