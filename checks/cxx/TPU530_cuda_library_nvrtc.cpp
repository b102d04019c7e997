// TPU530: the CUDA library NVRTC, by its headers and its API.
// User docs: docs/checks/TPU530.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"nvrtc"};

}  // namespace

extern const CheckDef TPU530_cuda_library_nvrtc{
    .info = {
        .id = "TPU530",
        .name = "cuda-library-nvrtc",
        .summary = "NVRTC, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {8, 24},
        .doc = {
            .what = "NVRTC, CUDA's run-time compiler: `#include <nvrtc.h>`, calls such as `nvrtcCreateProgram`, `nvrtcCompileProgram`, `nvrtcGetPTX`.",
            .why = "NVRTC compiles CUDA C++ source to PTX while the program runs, usually for kernels generated from templates or strings. The generated kernels are invisible to static analysis and cannot run on a TPU; there is no run-time CUDA compiler there.",
            .example = "nvrtcCreateProgram(&prog, source, \"kernel.cu\", 0, nullptr, nullptr);\nnvrtcCompileProgram(prog, 1, opts);",
            .use_instead = "Generate the computation as framework ops (XLA compiles them just in time), or write the kernels as Pallas kernels generated from Python.",
            .effort = "High: 8-24 h where the library comes in, plus the kernels it compiles (TPU101 where their source is a string literal of the project); 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.nvidia.com/cuda/nvrtc/index.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
