// TPU525: the CUDA library cuSOLVER, by its headers and its API.
// User docs: docs/checks/TPU525.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cusolver"};

}  // namespace

extern const CheckDef TPU525_cuda_library_cusolver{
    .info = {
        .id = "TPU525",
        .name = "cuda-library-cusolver",
        .summary = "cuSOLVER, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "cuSOLVER: `#include <cusolverDn.h>` (and Sp/Rf/Mg), calls such as `cusolverDnSgetrf`, `cusolverDnSsyevd`, `cusolverDnSgesvd`, `cusolverDnSpotrf`.",
            .why = "cuSOLVER provides dense and sparse factorizations on NVIDIA GPUs. On a TPU the framework's linear-algebra ops are lowered by XLA (some, such as nonsymmetric eigendecompositions, have no TPU lowering at all).",
            .example = "cusolverDnSpotrf(handle, CUBLAS_FILL_MODE_LOWER, n, A, lda, workspace, lwork, dev_info);",
            .use_instead = "`torch.linalg.cholesky`/`qr`/`eigh`/`svd`/`solve_triangular`, or `jnp.linalg`/`jax.scipy.linalg` equivalents; prefer symmetric/Hermitian forms, which TPUs support.",
            .effort = "Medium: 2-8 h where the library comes in; 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/jax.numpy.html#module-jax.numpy.linalg"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
