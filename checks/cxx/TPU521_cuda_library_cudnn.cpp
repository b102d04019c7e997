// TPU521: the CUDA library cuDNN, by its headers and its API.
// User docs: docs/checks/TPU521.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cudnn"};

}  // namespace

extern const CheckDef TPU521_cuda_library_cudnn{
    .info = {
        .id = "TPU521",
        .name = "cuda-library-cudnn",
        .summary = "cuDNN, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {4, 16},
        .doc = {
            .what = "cuDNN (or its frontend): `#include <cudnn.h>`, calls such as `cudnnConvolutionForward`, `cudnnCreateTensorDescriptor`, `cudnnBatchNormalizationForwardTraining`.",
            .why = "cuDNN implements convolutions, normalization, RNNs and attention for NVIDIA GPUs, configured through descriptors and algorithm searches. XLA lowers the same operations for TPUs from the framework's ops; the descriptor code has nothing to drive.",
            .example = "cudnnConvolutionForward(handle, &alpha, x_desc, x, w_desc, w, conv_desc, algo, workspace, ws_size, &beta, y_desc, y);",
            .use_instead = "The framework's ops: `torch.nn.functional.conv2d`/`batch_norm`/`scaled_dot_product_attention`, `jax.lax.conv_general_dilated`, `jax.nn.dot_product_attention`, `flax.linen` layers.",
            .effort = "Medium: 4-16 h where the library comes in (descriptor setup and algorithm selection are usually wrapped in a layer that must be re-expressed); 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/_autosummary/jax.lax.conv_general_dilated.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
