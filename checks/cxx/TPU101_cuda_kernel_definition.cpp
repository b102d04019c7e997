// TPU101: a custom CUDA kernel (`__global__` function) defined in the project.
// User docs: docs/checks/TPU101.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/cxx/device_code.h"
#include "checks/kernel_class.h"

namespace tpulint::checks {

namespace {

class CudaKernelDefinition final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    std::vector<kernels::Classification> classes;
    for (size_t i = 0; i < facts.functions.size(); ++i) {
      const cxx::FunctionFact& f = facts.functions[i];
      if (!f.is_kernel) continue;
      if (classes.empty()) classes = kernels::classify_native(facts, ctx.file().path());
      const kernels::Classification& c = classes[i];
      std::string what = fmt::format("custom CUDA kernel '{}' {}", f.name, device_code::description(f));
      if (c.kind != kernels::Kind::Novel) {
        // The launches name the kernel, or its op: one work item for both (TPU102).
        Finding& finding = ctx.report(f.name_span, what + " " + kernels::verdict(c));
        kernels::apply(finding, c, f.name);
        finding.code_lines = f.lines;
        continue;
      }
      Finding& finding = ctx.report(
          f.name_span, what + " has no TPU equivalent",
          "rewrite it as a Pallas TPU kernel, or as tensor ops that XLA fuses when it is elementwise or a reduction",
          f.name);  // the launches name it unqualified: one work item for both
      // A novel kernel's effort grows with its size; its features scale that (device_code.h).
      finding.hours = device_code::scaled(kernels::novel_kernel_hours(f.lines), f);
      finding.code_lines = f.lines;
    }
  }
};

const CudaKernelDefinition kCheck;

const std::string kEffort =
    "By what the kernel is. Low, trivial: an elementwise kernel that tensor ops express and XLA fuses: " +
    kernels::trivial_rule_doc() + "; and kernels of the table's elementwise ops: " + kernels::ops_doc("trivial") +
    ". Medium, a standard op with a known TPU replacement (checks/data/standard_kernels.tsv, with the source of each "
    "row): swapping in the replacement and validating its numerics, per op and file, the hours shared by the op's "
    "kernels in the file: " +
    kernels::ops_doc("standard") +
    " (not a kernel whose name or file has a longer pattern the table calls novel: " + kernels::ops_doc("novel") + ")" +
    ". High, novel: there is no mechanical translation, and the rewrite has to be validated for numerics and tuned "
    "for speed. The hours scale with the kernel's length: 16-40 h up to 30 lines, 24-64 h up to 100 lines, 40-120 h "
    "beyond; then +25% for each of: templated, `__shared__` memory, warp intrinsics (`__shfl_*_sync`, "
    "`__ballot_sync`, `__syncwarp`), atomics, cooperative groups, dynamic parallelism (a launch from device code), and "
    "+50% for tensor-core code (`wmma`, `mma.sync` PTX). The message lists what the kernel uses. A file that only "
    "instantiates templates defined elsewhere costs nothing (see TPU529).";

}  // namespace

extern const CheckDef TPU101_cuda_kernel_definition{
    .info = {
        .id = "TPU101",
        .name = "cuda-kernel-definition",
        .summary = "custom CUDA kernel (`__global__` function): trivial, a standard op with a TPU replacement, or "
                   "novel",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {16, 120},
        .doc = {
            .what = "A `__global__` function: a CUDA kernel written in the project, templated or not. Its effort class "
                    "says what it is: trivial (low), a standard op with a known TPU replacement (medium), or novel "
                    "(high).",
            .why = "TPUs do not run CUDA. Every custom kernel must be rewritten, as a Pallas TPU kernel or "
                   "as tensor operations that XLA compiles and fuses. Custom kernels are the main reason to "
                   "stay on GPU: their value (a fused, hand-tuned operation) does not carry over.",
            .example = "__global__ void scale_kernel(float* x, float a, int n) {\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                       "  if (i < n) x[i] *= a;\n"
                       "}",
            .use_instead = "A standard op is swapped for its TPU replacement, which the message names (NMS, ROI align, "
                           "norms, fused optimizers, flash and paged attention through the Pallas TPU kernels, ...).\n"
                           "An elementwise or reduction kernel becomes plain tensor code, which XLA fuses:\n"
                           "`x = x * a` (PyTorch/XLA) or `x * a` under `jax.jit`.\n"
                           "A kernel with real tiling or memory tricks becomes a Pallas kernel "
                           "(`jax.experimental.pallas` with the TPU backend; from PyTorch through "
                           "`torch_xla.experimental.custom_kernel`).",
            .effort = kEffort,
            .heuristic = "Kernels are found in the AST and, where Clang lost them (after a fatal error, or in code "
                         "it dropped without headers), in the tokens: `__global__ ... name(...) {`. Features, loops and "
                         "statements are counted in the kernel's tokens, inactive `#if` branches included (an `#if "
                         "__CUDA_ARCH__ >= 800` path is code to port); a feature hidden behind a project macro is "
                         "missed. The kernel's name is matched against the table's patterns by whole words "
                         "(`roi_align` matches `RoIAlignForward` and `roi_align_forward_kernel`, not "
                         "`roi_aligned_gather`); a kernel whose name says nothing and that is not elementwise takes the "
                         "op its file is named after (`nms_cuda_kernel.cuh`, `layer_norm/`). A kernel named like a "
                         "standard op but doing something else is priced as that op. A kernel source in a string "
                         "literal (raw or not, adjacent literals joined), compiled at run time with NVRTC or jitify, is "
                         "a kernel too, at its line in the string, its name maybe a format placeholder "
                         "(`__global__ void {KERNEL_NAME}(...)`); it is never judged elementwise, since the code it "
                         "runs is assembled at run time. A Python file's string literals holding `__global__` (CuPy "
                         "`RawKernel`/`RawModule`, PyCUDA `SourceModule`, `load_inline(cuda_sources=...)`) are read "
                         "as a CUDA file where they are written, with the file's lines and columns.",
            .references = {"https://docs.jax.dev/en/latest/pallas/tpu/index.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
