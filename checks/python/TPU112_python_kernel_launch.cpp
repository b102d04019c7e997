// TPU112: a launch `kernel[grid](...)` of a Triton or Numba CUDA kernel of the project.
// User docs: docs/checks/TPU112.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "python/links.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using pyhelp::KernelDsl;

// The kernel language of the module-level function `name`, if it is defined in this file, or of
// the function a module-level `name = triton.jit(fn)` compiles (one such hop: `a = jit(b)`,
// `b = jit(a)` is no kernel).
KernelDsl module_kernel(std::string_view name, const python::PythonContext& ctx, bool follow_rebinding = true) {
  Node root = ctx.tree().root();
  for (uint32_t i = 0; i < root.named_child_count(); ++i) {
    Node fn = root.named_child(i);
    if (fn.kind() == Kind::DecoratedDefinition) fn = fn.field(Field::Definition);
    if (!fn || fn.kind() != Kind::FunctionDefinition) continue;
    if (Node n = fn.field(Field::Name); n && n.text() == name)
      if (KernelDsl dsl = pyhelp::kernel_dsl(fn, ctx); dsl != KernelDsl::None) return dsl;
  }
  if (std::string_view wrapped = pyhelp::rebound_name(name, ctx); follow_rebinding && !wrapped.empty())
    return module_kernel(wrapped, ctx, false);
  return KernelDsl::None;
}

// The kernels other modules launch: Triton's and Numba CUDA's (not device functions).
bool launchable(KernelDsl dsl) { return dsl == KernelDsl::Triton || dsl == KernelDsl::NumbaCuda; }

constexpr std::string_view kHint =
    "launch its TPU replacement instead: a Pallas kernel through 'pl.pallas_call' with a TPU grid, or the tensor "
    "ops that replace it";

class PythonKernelLaunch final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::FunctionDefinition};
    return k;
  }

  void check(Node node, python::PythonContext& ctx) const override {
    if (node.kind() == Kind::FunctionDefinition) return note_kernel(node, ctx);
    Node callee = node.field(Field::Function);
    if (callee.kind() != Kind::Subscript) return;
    Node kernel = callee.field(Field::Value);
    if (!kernel) return;
    const ByteSpan at{callee.span().begin, node.field(Field::Arguments).span().begin};
    if (ctx.imports().imports("triton") || ctx.imports().imports("numba"))
      if (launch_here(kernel, at, ctx)) return;
    if (python::LinkRecorder* links = ctx.links()) launch_elsewhere(kernel, at, ctx, *links);
  }

 private:
  // A top-level kernel of the file, for the launches in other modules (FileLinks::Function::kernel).
  static void note_kernel(Node fn, python::PythonContext& ctx) {
    python::LinkRecorder* links = ctx.links();
    Node statement = fn.parent().kind() == Kind::DecoratedDefinition ? fn.parent() : fn;
    if (!links || statement.parent() != ctx.tree().root()) return;
    // Undecorated, it is a kernel only where the module compiles it by name (`f = triton.jit(f)`).
    if (statement == fn && !ctx.imports().imports("triton") && !ctx.imports().imports("numba")) return;
    if (Node name = fn.field(Field::Name); name && launchable(pyhelp::kernel_dsl(fn, ctx))) links->add_kernel(name.text());
  }

  // A launch of a kernel this file defines, or hands to `torch.library.wrap_triton`.
  static bool launch_here(Node kernel, ByteSpan at, python::PythonContext& ctx) {
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
    if (!launchable(dsl)) return false;
    ctx.report(at, fmt::format("launch of the {} kernel '{}'", pyhelp::display_name(dsl), name), kHint, name);
    return true;
  }

  // A launch of a name imported from one of the project's modules (directly, through a module
  // alias, or through one local assignment): reported once the project links find that name is a
  // kernel of its module (FileLinks::Launch).
  static void launch_elsewhere(Node kernel, ByteSpan at, python::PythonContext& ctx, python::LinkRecorder& links) {
    for (const std::string& q : pyhelp::resolved_names(kernel, ctx)) {
      const size_t dot = q.rfind('.');
      if (dot == std::string::npos) continue;
      if (!links.names_project_code(q) && !pyhelp::is_first_party(pyhelp::top_level(q), ctx)) continue;
      const std::string_view name = std::string_view(q).substr(dot + 1);
      Finding& f = ctx.report(
          at, fmt::format("launch of the kernel '{}' defined in '{}'", name, std::string_view(q).substr(0, dot)),
          kHint, name);
      links.add_launch(at.begin, q, f);
      return;
    }
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
                    "the top level of one of the project's modules: the same file, or another module it is imported "
                    "from (`from .ops import kernel`, `ops.kernel[grid](...)` through a module alias, a name a "
                    "package's `__init__.py` re-exports, or one local assignment `k = ops.kernel`); and "
                    "`torch.library.wrap_triton(kernel)[grid](...)`.",
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
                         "at the top level of a module of the project: of the same file (in a file that imports "
                         "triton or numba), or of the module the name is imported from, as the project-wide links "
                         "find it once every file is analyzed, following packages' re-exports; the launch of a "
                         "kernel of another module names that module instead of the kernel's language. A kernel "
                         "of a third-party package, one bound by an assignment in its module (`k = triton.jit(f)`), "
                         "passed as an argument or kept in a dict is not reported (a false negative), since "
                         "`registry[key](x)` looks the same.",
            .references = {"https://triton-lang.org/main/getting-started/tutorials/01-vector-add.html",
                           "https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
