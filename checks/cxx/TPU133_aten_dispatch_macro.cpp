// TPU133: a dtype dispatch of a native kernel (`AT_DISPATCH_FLOATING_TYPES(...)` and friends).
// User docs: docs/checks/TPU133.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/cxx/extension_glue.h"

namespace tpulint::checks {

namespace {

class AtenDispatchMacro final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::MacroUseFact& m : facts.macro_uses) {
      // The typed dispatchers and AT_DISPATCH_SWITCH; its AT_DISPATCH_CASE entries are part of it.
      if (!m.name.starts_with("AT_DISPATCH_") || m.name.starts_with("AT_DISPATCH_CASE")) continue;
      std::string op = extension_glue::string_argument(m);
      std::string kind = facts.language == Language::Cuda ? "CUDA" : "native";
      ctx.report(m.span,
                 op.empty() ? fmt::format("dtype dispatch '{}' of a {} kernel", m.name, kind)
                            : fmt::format("dtype dispatch '{}' of the {} kernel '{}'", m.name, kind, op),
                 "express the computation with torch ops (dtype-generic) or a Pallas kernel; the dispatch goes "
                 "away with the kernel",
                 op.empty() ? m.name : op);
    }
  }
};

const AtenDispatchMacro kCheck;

}  // namespace

extern const CheckDef TPU133_aten_dispatch_macro{
    .info = {
        .id = "TPU133",
        .name = "aten-dispatch-macro",
        .summary = "ATen dtype dispatch of a native kernel (`AT_DISPATCH_*`)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Info,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "An `AT_DISPATCH_FLOATING_TYPES(...)`, `AT_DISPATCH_FLOATING_TYPES_AND_HALF(...)`, "
                    "`AT_DISPATCH_ALL_TYPES(...)`, `AT_DISPATCH_SWITCH(...)`, `AT_DISPATCH_V2(...)` (...) macro: "
                    "the switch over a tensor's dtype that instantiates a native kernel (and its launch) once per "
                    "dtype.",
            .why = "It marks host code that calls a hand-written kernel per dtype, CUDA in a .cu file, CPU "
                   "otherwise. On a TPU the kernel is replaced by framework ops or a Pallas kernel, which are "
                   "dtype-generic; the dispatch and the per-dtype instantiations go away. The message names the "
                   "op when the macro's name argument is a string.",
            .example = "AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), \"roi_align_forward\", [&] {\n"
                       "  roi_align_kernel<scalar_t><<<grid, block, 0, stream>>>(...);\n});",
            .use_instead = "Write the computation once with torch ops or `jnp` (dtype-generic), or as a Pallas "
                           "kernel that takes the dtype from its inputs.",
            .effort = "Low: minutes to an hour; the work is the kernel it dispatches to (TPU101, TPU102).",
            .heuristic = "Read from the macro's name and arguments as written, so it works without ATen headers.",
            .references = {"https://docs.pytorch.org/tutorials/advanced/cpp_extension.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
