// TPU112: a launch `kernel[grid](...)` of a Triton or Numba CUDA kernel defined in the same file.
// User docs: docs/checks/TPU112.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using pyhelp::KernelDsl;

// The kernel language of the module-level function `name`, if it is defined in this file.
KernelDsl module_kernel(std::string_view name, const python::PythonContext& ctx) {
  Node root = ctx.tree().root();
  for (uint32_t i = 0; i < root.named_child_count(); ++i) {
    Node d = root.named_child(i);
    if (d.kind() != Kind::DecoratedDefinition) continue;
    Node fn = d.field(Field::Definition);
    if (!fn || fn.kind() != Kind::FunctionDefinition) continue;
    if (Node n = fn.field(Field::Name); n && n.text() == name) return pyhelp::kernel_dsl(fn, ctx);
  }
  return KernelDsl::None;
}

class PythonKernelLaunch final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Subscript) return;
    bool triton = ctx.imports().imports("triton");
    if (!triton && !ctx.imports().imports("numba")) return;
    Node kernel = callee.field(Field::Value);
    if (!kernel) return;

    KernelDsl dsl = KernelDsl::None;
    std::string name;
    if (kernel.kind() == Kind::Identifier) {
      name = kernel.text();
      dsl = module_kernel(name, ctx);
    } else if (kernel.kind() == Kind::Call) {
      // torch.library.wrap_triton(kernel)[grid](...): the Triton launch that torch.compile can trace.
      const auto& q = ctx.qualified_name(kernel.field(Field::Function));
      python::CallArguments args = python::call_arguments(kernel);
      if (q && (*q == "torch.library.wrap_triton" || *q == "torch.library.capture_triton") &&
          !args.positional.empty()) {
        dsl = KernelDsl::Triton;
        name = args.positional[0].text();
      }
    }
    if (dsl != KernelDsl::Triton && dsl != KernelDsl::NumbaCuda) return;
    ByteSpan at{callee.span().begin, call.field(Field::Arguments).span().begin};
    ctx.report(at, fmt::format("launch of the {} kernel '{}'", pyhelp::display_name(dsl), name),
               "launch its TPU replacement instead: a Pallas kernel through 'pl.pallas_call' with a TPU grid, or "
               "the tensor ops that replace it",
               name);
  }
};

const PythonKernelLaunch kCheck;

}  // namespace

extern const CheckDef TPU112_python_kernel_launch{
    .info = {
        .id = "TPU112",
        .name = "python-kernel-launch",
        .summary = "launch `kernel[grid](...)` of a Triton or Numba CUDA kernel",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.5, 2},
        .doc = {
            .what = "A call `kernel[grid](...)` where `kernel` is a Triton kernel (`@triton.jit`, "
                    "`@triton.autotune`, `@triton.heuristics`) or a Numba CUDA kernel (`@cuda.jit`) defined at "
                    "the top level of the same file, and `torch.library.wrap_triton(kernel)[grid](...)`.",
            .why = "Each launch site computes a GPU grid and passes raw pointers, strides and block sizes. On a "
                   "TPU the kernel is replaced (TPU111, TPU113), and every launch site has to call the "
                   "replacement with its own calling convention.",
            .example = "grid = lambda meta: (triton.cdiv(n, meta[\"BLOCK\"]),)\n"
                       "add_kernel[grid](x, y, out, n, BLOCK=1024)",
            .use_instead = "Call the replacement: a Pallas kernel through `pl.pallas_call(kernel, grid=..., "
                           "in_specs=..., out_specs=...)` (from PyTorch through "
                           "`torch_xla.experimental.custom_kernel`), or the tensor ops that do the same work.",
            .effort = "Low per launch site: the work is in rewriting the kernel itself (TPU111, TPU113); "
                      "adapting the call takes 0.5-2 h.",
            .heuristic = "A subscripted call `name[...](...)` is a launch only when `name` is a kernel defined "
                         "at the top level of the same file (in a file that imports triton or numba): a launch "
                         "of a kernel imported from another module is not reported (a false negative), since "
                         "`registry[key](x)` looks the same.",
            .references = {"https://triton-lang.org/main/getting-started/tutorials/01-vector-add.html",
                           "https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
