// TPU111: a Triton kernel (@triton.jit, @triton.autotune, @triton.heuristics) defined in the project.
// User docs: docs/checks/TPU111.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

constexpr std::string_view kPortHint =
    "rewrite it as a Pallas kernel (jax.experimental.pallas with the TPU backend, called from PyTorch through "
    "torch_xla.experimental.custom_kernel.make_kernel_from_pallas), or as tensor ops that XLA fuses";

class TritonKernel final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::FunctionDefinition};
    return k;
  }

  void check(Node function, python::PythonContext& ctx) const override {
    if (!ctx.imports().imports("triton")) return;
    if (pyhelp::kernel_dsl(function, ctx) != pyhelp::KernelDsl::Triton) return;
    Node name = function.field(Field::Name);
    if (!name) return;
    uint32_t lines = function.line_count();
    std::string subject = pyhelp::function_display_name(function, ctx);
    kernels::Classification c = pyhelp::classify_kernel(function, pyhelp::KernelDsl::Triton, ctx);
    if (c.by_callers) {
      // A helper taking values: compiled into its callers and ported with them.
      std::string role = "is a helper of the kernels that call it (values in, values out): it is ported with them";
      if (c.kind == kernels::Kind::Trivial && !c.op)
        role = "is an elementwise helper (values in, values out): tensor ops express it, with the kernels that call it";
      else if (c.kind != kernels::Kind::Novel)
        role = fmt::format("goes with the {} op of the kernels that call it: use {}", c.op->title, c.op->use);
      Finding& f = ctx.report(name, fmt::format("Triton helper '{}' ({} lines) {}", subject, lines, role),
                              c.kind == kernels::Kind::Novel ? std::string(kPortHint) : kernels::hint(c),
                              std::string(kernels::subject(c, subject)));
      f.effort = c.kind == kernels::Kind::Novel ? EffortClass::High : kernels::effort_of(c.kind);
      f.hours = {};
      f.code_lines = lines;
      return;
    }
    if (c.kind != kernels::Kind::Novel) {
      std::string what = fmt::format("Triton kernel '{}' ({} lines) {}", subject, lines, kernels::verdict(c));
      Finding& f = ctx.report(name, what);
      kernels::apply(f, c, subject);
      f.code_lines = lines;
      return;
    }
    Finding& f = ctx.report(name, fmt::format("Triton kernel '{}' ({} lines) cannot run on a TPU", subject, lines),
                            std::string(kPortHint), subject);
    f.hours = pyhelp::novel_kernel_hours(pyhelp::KernelDsl::Triton, lines);
    f.code_lines = lines;
  }
};

const TritonKernel kCheck;

const std::string kEffort =
    "By what the kernel is. Medium for a standard op with a known TPU replacement, named in the message and hint "
    "(checks/data/standard_kernels.tsv): swapping it in and validating its numerics, per op and file, the hours shared "
    "by the op's kernels in the file: " +
    kernels::ops_doc("standard") +
    " (not a kernel whose name or file has a longer pattern the table calls novel: " + kernels::ops_doc("novel") +
    "). Low for the table's elementwise ops: " + kernels::ops_doc("trivial") +
    ", and for a kernel of the elementwise shape (see the heuristic): 0.5-1.5 h up to 10 lines, 1-2 h up to 25, 1-3 h "
    "beyond. A helper taking values costs 0 h of its own, in the class of its callers. High for any other kernel; the hours grow with the function's length: 4-12 h up to 15 lines, 8-24 h up to 50, "
    "16-48 h up to 150, 24-80 h beyond. Pallas and Triton share a block-level model, so a port is closer to a "
    "translation than a CUDA kernel's, but numerics and tiling for the TPU's memory still need work.";

}  // namespace

extern const CheckDef TPU111_triton_kernel{
    .info = {
        .id = "TPU111",
        .name = "triton-kernel",
        .summary = "Triton kernel (`@triton.jit`, `@triton.autotune`, `@triton.heuristics`): a standard op with a TPU "
                   "replacement, or a rewrite",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {4, 80},
        .doc = {
            .what = "A function decorated with `@triton.jit`, `@triton.autotune` or `@triton.heuristics` "
                    "(under any alias: `from triton import jit`), or compiled by these calls where the module rebinds "
                    "a name to it (`_fwd = triton.jit(_fwd)`, `_fwd = triton.heuristics({...})(_fwd)`), reported "
                    "once at its name however many of these decorators it has. Helper functions marked `@triton.jit` and called from kernels are "
                    "reported too: they are Triton code to port as well.",
            .why = "Triton compiles for NVIDIA and AMD GPUs only. A TPU has no Triton backend, and "
                   "`torch.compile(backend=\"openxla\")` does not lower Triton kernels: every kernel must be "
                   "rewritten.",
            .example = "@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                       "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                       "    mask = offs < n\n"
                       "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)",
            .use_instead = "Elementwise and reduction kernels become plain tensor code, which XLA fuses (`out = x + "
                           "y`). Kernels with real tiling (attention, scans, grouped matmuls) become Pallas "
                           "kernels: `jax.experimental.pallas` with `jax.experimental.pallas.tpu`, called from "
                           "PyTorch through `torch_xla.experimental.custom_kernel.make_kernel_from_pallas`; "
                           "torch_xla ships some ready ones (`flash_attention`, `ragged_paged_attention`, `gmm`).",
            .effort = kEffort,
            .heuristic = "A Triton kernel is classified by its name, its file and its shape: a name or else a file "
                         "name matching a standard op's pattern of checks/data/standard_kernels.tsv by whole words "
                         "(`_layer_norm_fwd_fused`, `ops/triton/rms_norm.py`) makes it that op; else a kernel with no `tl.dot`, atomics, "
                         "scans, sorts, barriers or inline assembly, no loop that carries a value from one "
                         "iteration to the next (`acc += ...`; pointer and offset advances do not count), at least "
                         "one store, and at most 80 lines and 40 statements is elementwise (trivial); else a file named "
                         "for a trivial op (`swiglu.py`) makes it that op, else it is novel. A trivial row (an activation) "
                         "never takes a kernel that calls `tl.dot`. A `@triton.jit` helper that loads and stores "
                         "nothing (it takes values) costs 0 h: trivial when elementwise, else the class of the "
                         "file's kernels that call it, novel when none does. The shape is a guess: a single-block "
                         "row softmax with an unhelpful name and file counts as elementwise.",
            .references = {"https://docs.pytorch.org/xla/master/features/pallas.html",
                           "https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
