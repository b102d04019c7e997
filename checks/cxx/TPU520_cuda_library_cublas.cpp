// TPU520: the CUDA library cuBLAS/cuBLASLt, by its headers and its API.
// User docs: docs/checks/TPU520.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cublas"};

}  // namespace

extern const CheckDef TPU520_cuda_library_cublas{
    .info = {
        .id = "TPU520",
        .name = "cuda-library-cublas",
        .summary = "cuBLAS/cuBLASLt, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "cuBLAS or cuBLASLt: `#include <cublas_v2.h>`/`<cublasLt.h>`, calls such as `cublasSgemm`, `cublasGemmEx`, `cublasLtMatmul`, `cublasCreate`.",
            .why = "cuBLAS is NVIDIA's GPU BLAS. A TPU runs matrix products through XLA on its matrix units; there is no BLAS library to call, and handles, workspaces and math modes have no counterpart.",
            .example = "cublasHandle_t handle;\ncublasCreate(&handle);\ncublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, A, m, B, k, &beta, C, m);",
            .use_instead = "A matmul in the framework: `torch.matmul`/`torch.bmm`/`F.linear` on the XLA device, `jnp.dot`/`jnp.einsum`/`jax.lax.dot_general` (bf16 inputs with f32 accumulation use the MXU at full rate).",
            .effort = "Medium: 2-8 h where the library comes in, to replace the GEMM with a framework op and move its layout handling (leading dimensions, transposes) to tensor shapes; 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/_autosummary/jax.lax.dot_general.html", "https://cloud.google.com/tpu/docs/intro-to-tpu"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
