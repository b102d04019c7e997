// TPU103: inline PTX assembly (`asm volatile("...")` in device code or with PTX instructions).
// User docs: docs/checks/TPU103.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/kernel_class.h"

namespace tpulint::checks {

namespace {

// PTX is recognizable by its typed, dotted instructions and special registers; x86 host
// assembly (`pause`, `rdtsc`, `cpuid`) has neither and is not a TPU concern.
bool looks_like_ptx(std::string_view text) {
  static constexpr std::array<std::string_view, 24> kMarkers = {
      ".u32", ".s32", ".u64", ".s64", ".b16", ".b32", ".b64", ".f16", ".f32", ".f64", ".pred", ".global",
      ".shared", ".sync", ".aligned", ".gpu", ".cta", "membar.", "bar.", "%laneid", "%warpid", "%smid",
      "mma.", "cp.async"};
  for (std::string_view m : kMarkers)
    if (text.find(m) != std::string_view::npos) return true;
  return false;
}

class InlineAssembly final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    std::vector<kernels::Classification> classes;
    for (const cxx::AsmFact& a : facts.asm_statements) {
      if (!a.in_device_code && !looks_like_ptx(a.text)) continue;
      std::string where = a.function.empty() ? "" : fmt::format(" in '{}'", a.function);
      std::string message = fmt::format("inline PTX assembly{} cannot run on a TPU", where);
      // In the device code of a table op, the assembly goes away with the op when it is swapped
      // for its replacement: the op's class, at no cost of its own.
      if (a.in_device_code) {
        if (classes.empty()) classes = kernels::classify_native(facts, ctx.file().path());
        const cxx::FunctionFact* fn = cxx::innermost_function(facts.functions, a.span);
        const kernels::Classification* c = fn ? &classes[size_t(fn - facts.functions.data())] : nullptr;
        if (c && c->op) {
          Finding& f = ctx.report(a.span, fmt::format("{}; it goes with the {} op: use {}", message, c->op->title,
                                                      c->op->use));
          kernels::apply(f, *c, a.function);
          f.hours = {};
          continue;
        }
        // Any other device function is rewritten whole, and its finding (TPU101, TPU104) prices
        // that rewrite, assembly included (a kernel's shape counts it as block-level code).
        Finding& f = ctx.report(a.span, fmt::format("{}; it is rewritten with '{}'", message, a.function),
                                "express the operation with CUDA-free code: tensor ops, or a Pallas kernel", a.function);
        f.hours = {};
        continue;
      }
      ctx.report(a.span, message, "express the operation with CUDA-free code: tensor ops, or a Pallas kernel",
                 a.function);
    }
  }
};

const InlineAssembly kCheck;

}  // namespace

extern const CheckDef TPU103_inline_assembly{
    .info = {
        .id = "TPU103",
        .name = "inline-ptx-assembly",
        .summary = "inline PTX assembly in device code",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {8, 24},
        .doc = {
            .what = "An `asm` / `asm volatile` statement inside a `__global__` or `__device__` function, or "
                    "anywhere when its text is PTX (typed instructions such as `mov.u32`, `ld.global.nc`, "
                    "`mma.sync`, special registers such as `%laneid`).",
            .why = "PTX is NVIDIA's virtual instruction set. It is usually there for the last bit of "
                   "performance (tensor-core MMA, cache hints, warp-level tricks) and has no TPU "
                   "counterpart: the code around it must be redesigned, not translated.",
            .example = "asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));",
            .use_instead = "Tensor ops that XLA lowers to the TPU's matrix units, or a Pallas kernel.",
            .effort = "High: 8-24 h per statement outside device code (PTX in host code, or in a function Clang "
                      "could not place). In device code, 0 h of its own: the kernel or device function it is in "
                      "is rewritten whole and priced by its own finding (TPU101, TPU104), whose shape counts the "
                      "assembly as block-level code; in the device code of a standard op with a known TPU "
                      "replacement, medium: it goes away when the op is swapped for its replacement.",
            .heuristic = "Host-side assembly (x86 `pause`, `rdtsc`) is not reported: the TPU host is an "
                         "ordinary CPU. Assembly counts as PTX when it is in device code or its text "
                         "contains PTX markers; PTX built from macros whose text is not visible can be "
                         "missed in host code.",
            .references = {"https://docs.nvidia.com/cuda/inline-ptx-assembly/index.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
