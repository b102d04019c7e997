// TPU522: the CUDA library cuFFT, by its headers and its API.
// User docs: docs/checks/TPU522.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"cufft"};

}  // namespace

extern const CheckDef TPU522_cuda_library_cufft{
    .info = {
        .id = "TPU522",
        .name = "cuda-library-cufft",
        .summary = "cuFFT, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "cuFFT: `#include <cufft.h>`/`<cufftXt.h>`, calls such as `cufftPlan1d`, `cufftPlanMany`, `cufftExecC2C`, `cufftExecR2C`.",
            .why = "cuFFT is NVIDIA's GPU FFT library, driven by plans. On a TPU the FFT is an XLA operation of the framework; plans and work areas do not exist.",
            .example = "cufftHandle plan;\ncufftPlan1d(&plan, n, CUFFT_C2C, batch);\ncufftExecC2C(plan, in, out, CUFFT_FORWARD);",
            .use_instead = "`torch.fft.fft`/`rfft`/`fftn` on the XLA device, or `jnp.fft.fft`/`rfft`/`fftn`.",
            .effort = "Medium: 2-8 h where the library comes in; 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.jax.dev/en/latest/jax.numpy.html#module-jax.numpy.fft"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
