// TPU523: the CUDA library cuRAND, by its headers and its API.
// User docs: docs/checks/TPU523.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"curand"};

}  // namespace

extern const CheckDef TPU523_cuda_library_curand{
    .info = {
        .id = "TPU523",
        .name = "cuda-library-curand",
        .summary = "cuRAND, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "cuRAND, host or device API: `#include <curand.h>`/`<curand_kernel.h>`, calls such as `curandCreateGenerator`, `curandGenerateUniform`, `curand_init`, `curand_uniform`.",
            .why = "cuRAND generates random numbers on NVIDIA GPUs, in host calls or inside kernels (per-thread states). On a TPU, random numbers come from the framework's RNG, which XLA compiles; per-thread generator states have no meaning outside CUDA kernels.",
            .example = "curandState state;\ncurand_init(seed, idx, 0, &state);\nfloat r = curand_uniform(&state);",
            .use_instead = "`torch.rand`/`randn`/`bernoulli` on the XLA device (seeded with `xm.set_rng_state`), or `jax.random.uniform`/`normal` with explicit keys (`jax.random.split` per step).",
            .effort = "Medium: 1-4 h where the library comes in (random streams must be reproduced with the framework's RNG, and results will not be bit-identical); 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/jax.random.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
