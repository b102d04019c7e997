// TPU104: a `__device__` function: GPU-only code that a kernel calls.
// User docs: docs/checks/TPU104.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/cxx/device_code.h"
#include "checks/kernel_class.h"

namespace tpulint::checks {

namespace {

HoursRange device_function_hours(uint32_t lines) {
  if (lines <= 10) return {1, 4};
  if (lines <= 50) return {2, 8};
  return {4, 16};
}

class CudaDeviceFunction final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    std::vector<kernels::Classification> classes;
    for (size_t i = 0; i < facts.functions.size(); ++i) {
      const cxx::FunctionFact& f = facts.functions[i];
      if (!f.is_device || f.is_kernel) continue;
      // A `__host__ __device__` helper is ordinary C++ the host compiles too, unless it uses
      // device-only features.
      if (f.is_host && !f.metrics.any()) continue;
      if (classes.empty()) classes = kernels::classify_native(facts, ctx.file().path());
      const kernels::Classification& c = classes[i];
      std::string what = fmt::format("CUDA device function '{}' {}", f.name, device_code::description(f));
      if (c.kind != kernels::Kind::Novel) {
        // Part of a trivial kernel or of a standard op: it goes with them, at no cost of its own.
        std::string role = "goes with the elementwise kernels that call it";
        if (c.op) role = fmt::format("goes with the {} op: use {}", c.op->title, c.op->use);
        Finding& finding = ctx.report(f.name_span, what + " " + role);
        kernels::apply(finding, c, f.name);
        finding.code_lines = f.lines;
        continue;
      }
      Finding& finding = ctx.report(
          f.name_span, what + " runs only inside GPU kernels",
          "rewrite it with the kernels that call it: as jnp/torch ops, or inside the Pallas kernel", f.name);
      finding.hours = device_code::scaled(device_function_hours(f.lines), f);
      finding.code_lines = f.lines;
      // Novel, whether its callers are novel kernels of the file or it has none here: High, so
      // that Medium keeps meaning "a standard op" (the check's default class is for the docs).
      finding.effort = EffortClass::High;
    }
  }
};

const CudaDeviceFunction kCheck;

}  // namespace

extern const CheckDef TPU104_cuda_device_function{
    .info = {
        .id = "TPU104",
        .name = "cuda-device-function",
        .summary = "CUDA `__device__` function (GPU-only helper of kernels)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Warning,
        .effort = EffortClass::High,
        .hours = {1, 16},
        .doc = {
            .what = "A function defined `__device__` (templated or not): code that only runs on the GPU, called "
                    "from kernels. `__host__ __device__` helpers are reported only when they use device-only "
                    "features (shared memory, warp intrinsics, atomics, tensor cores, cooperative groups).",
            .why = "Device functions are part of the kernels that call them: they go away, or are rewritten, "
                   "with those kernels. Warp-level or shared-memory helpers (block reductions, shuffles) have "
                   "no TPU counterpart at all; the TPU's vector and matrix units are programmed through XLA "
                   "or Pallas.",
            .example = "__device__ float warp_sum(float v) {\n"
                       "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);\n"
                       "  return v;\n"
                       "}",
            .use_instead = "A reduction helper becomes `jnp.sum`/`torch.sum` over the right axis (XLA emits the "
                           "TPU reduction); arithmetic helpers become plain functions called inside a Pallas "
                           "kernel body or traced tensor code.",
            .effort = "The class of the kernels of its file that call it (directly or through other device "
                      "functions), as TPU101 decides it: low (0 h) when they are all trivial, medium (0 h) when one "
                      "is a standard op, whose replacement the message names: the helper goes away with them. High "
                      "when one is novel: 1-4 h up to 10 lines, 2-8 h up to 50, 4-16 h beyond, scaled like kernels "
                      "(+25% per device feature, +50% for tensor cores). Called by no kernel of its file (a helper "
                      "in a header): medium, a standard op when its name or file says so (0 h, or the op's hours "
                      "when no kernel of the file carries them, as for functors run by a generic kernel elsewhere), "
                      "else high (novel) with the hours above.",
            .heuristic = "Plain `__host__ __device__` math helpers are not reported: the host compiles them, so "
                         "they are portable C++ unless they use device-only features. Callers are found by name in "
                         "the file's calls, so overloads count as one function, and a helper called only through a "
                         "template parameter or a function pointer has no caller.",
            .references = {"https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
