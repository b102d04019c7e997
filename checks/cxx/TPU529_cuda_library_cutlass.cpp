// TPU529: the CUDA library CUTLASS/CuTe, by its headers and its API.
// User docs: docs/checks/TPU529.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cutlass"};

}  // namespace

extern const CheckDef TPU529_cuda_library_cutlass{
    .info = {
        .id = "TPU529",
        .name = "cuda-library-cutlass",
        .summary = "CUTLASS/CuTe, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {16, 60},
        .doc = {
            .what = "CUTLASS or CuTe: `#include <cutlass/...>`/`<cute/...>`, or names under `cutlass::`/`cute::` (`cutlass::gemm::device::Gemm`, `cute::Tensor`, `cute::make_layout`).",
            .why = "CUTLASS and CuTe are templates for writing tensor-core GEMMs, convolutions and fused attention for specific NVIDIA architectures. Code built on them is custom kernel code of the most hardware-specific kind: tile shapes, pipelines and warp specialization have no TPU meaning.",
            .example = "using Gemm = cutlass::gemm::device::Gemm<cutlass::half_t, cutlass::layout::RowMajor, cutlass::half_t,\n    cutlass::layout::ColumnMajor, float, cutlass::layout::RowMajor>;",
            .use_instead = "The framework's matmul and attention ops (XLA fuses epilogues), or a Pallas TPU kernel for a genuinely custom fused GEMM (`pl.pallas_call` with `BlockSpec` tiling).",
            .effort = "High: 16-60 h per file that uses it; the fused operation has to be redesigned for the TPU's matrix units. Reported once per file. A file that only specializes or instantiates a template defined elsewhere (flash-attention's generated `flash_fwd_hdim128_fp16_sm80.cu`: `template<> void run_mha_fwd_<cutlass::half_t, 128, false>(...) { run_mha_fwd_hdim128<cutlass::half_t, false>(params, stream); }`) costs nothing: its findings, of this and every C/C++/CUDA check, are listed with the effort class none, 0 h, and the instantiated template as their subject, so that they form one work item with it.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/pallas/tpu/matmul.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
