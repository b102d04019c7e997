// TPU524: the CUDA library cuSPARSE, by its headers and its API.
// User docs: docs/checks/TPU524.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cusparse"};

}  // namespace

extern const CheckDef TPU524_cuda_library_cusparse{
    .info = {
        .id = "TPU524",
        .name = "cuda-library-cusparse",
        .summary = "cuSPARSE, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {8, 24},
        .doc = {
            .what = "cuSPARSE: `#include <cusparse.h>`, calls such as `cusparseSpMM`, `cusparseSpMV`, `cusparseCreateCsr`, `cusparseScsrmv`.",
            .why = "cuSPARSE runs sparse linear algebra on NVIDIA GPUs. TPUs have no sparse BLAS and XLA has limited sparse support: sparse products become dense, masked or gather/scatter computations, which changes the algorithm's cost.",
            .example = "cusparseSpMM(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, matB, &beta, matC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buffer);",
            .use_instead = "Dense matmuls with masks when the matrices are small enough; gathers and segment sums (`jax.ops.segment_sum`, `torch.index_add`, `torch_scatter`-style code in plain ops) for graph-style sparsity; block-sparse Pallas kernels for structured sparsity.",
            .effort = "High: 8-24 h where the library comes in, because the sparse algorithm has to be redesigned for dense hardware; 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/jax.experimental.sparse.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
