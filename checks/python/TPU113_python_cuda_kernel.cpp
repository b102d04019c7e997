// TPU113: a CUDA kernel built from Python: CuPy raw and elementwise kernels, Numba CUDA, PyCUDA
// SourceModule, CuTe DSL, TileLang, cuTile and torch.cuda.jiterator.
// User docs: docs/checks/TPU113.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include <algorithm>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using pyhelp::KernelDsl;

constexpr std::string_view kRewriteHint =
    "rewrite it as a Pallas TPU kernel (jax.experimental.pallas), or as array ops (jax.numpy or PyTorch) that "
    "XLA fuses";
// Elementwise, reduction and fused kernels are trivial by construction: a few array ops.
constexpr HoursRange kElementwiseHours{1, 2};
constexpr HoursRange kFuseHours{0.5, 1};
constexpr HoursRange kLoaderHours{0.5, 1};  // a call compiling a kernel source that TPU101 prices

constexpr std::string_view kElementwiseHint =
    "write the operation as array ops (jax.numpy or PyTorch): XLA fuses elementwise code into one kernel";

// The string literal an argument holds, directly or through one assignment of a literal.
Node source_literal(Node arg, const python::PythonContext& ctx) {
  if (!arg) return Node();
  if (arg.kind() == Kind::String || arg.kind() == Kind::ConcatenatedString) return arg;
  if (arg.kind() != Kind::Identifier) return Node();
  for (Node v : pyhelp::assigned_values(arg.text(), ctx))
    if (v.kind() == Kind::String || v.kind() == Kind::ConcatenatedString) return v;
  return Node();
}

// The identifier just before the first '(' at or after `from`: a C function's name.
std::string name_before_paren(std::string_view code, size_t from) {
  size_t end = code.find('(', from);
  if (end == std::string_view::npos) return "";
  while (end > from && std::isspace(static_cast<unsigned char>(code[end - 1]))) --end;
  size_t begin = end;
  while (begin > from && (std::isalnum(static_cast<unsigned char>(code[begin - 1])) || code[begin - 1] == '_')) --begin;
  return std::string(code.substr(begin, end - begin));
}

// The name of the first `__global__` function in CUDA C source text.
std::string first_global_kernel(std::string_view code) {
  size_t g = code.find("__global__");
  return g == std::string_view::npos ? "" : name_before_paren(code, g);
}

std::string literal_arg(Node n) {
  if (!n) return "";
  auto s = python::string_value(n);
  return s ? *s : "";
}

class PythonCudaKernel final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::FunctionDefinition};
    return k;
  }

  void check(Node node, python::PythonContext& ctx) const override {
    if (node.kind() == Kind::FunctionDefinition)
      check_function(node, ctx);
    else
      check_call(node, ctx);
  }

 private:
  // Asked only once a node could be a finding: most calls and functions are not.
  static bool imports_kernel_library(const python::PythonContext& ctx) {
    const python::ImportTable& im = ctx.imports();
    return im.imports("cupy") || im.imports("cupyx") || im.imports("numba") || im.imports("pycuda") ||
           im.imports("cutlass") || im.imports("tilelang") || im.imports("cuda.tile") || im.imports("torch");
  }

  // The APIs check_call reports.
  static bool kernel_api(std::string_view api) {
    static constexpr std::string_view kApis[] = {"cupy.RawKernel",
                                                 "cupy.RawModule",
                                                 "pycuda.compiler.SourceModule",
                                                 "cupy.ElementwiseKernel",
                                                 "cupy.ReductionKernel",
                                                 "pycuda.elementwise.ElementwiseKernel",
                                                 "pycuda.reduction.ReductionKernel",
                                                 "torch.cuda.jiterator._create_jit_fn",
                                                 "torch.cuda.jiterator._create_multi_output_jit_fn",
                                                 "cupy.fuse",
                                                 "numba.cuda.jit"};
    return std::find(std::begin(kApis), std::end(kApis), api) != std::end(kApis);
  }

  static void check_function(Node fn, python::PythonContext& ctx) {
    // Only decorators make a kernel.
    if (Node parent = fn.parent(); !parent || parent.kind() != Kind::DecoratedDefinition) return;
    Node name = fn.field(Field::Name);
    if (!name || !imports_kernel_library(ctx)) return;
    uint32_t lines = fn.line_count();
    std::string subject = pyhelp::function_display_name(fn, ctx);
    KernelDsl dsl = pyhelp::kernel_dsl(fn, ctx);
    if (dsl == KernelDsl::NumbaCuda || dsl == KernelDsl::CuteKernel || dsl == KernelDsl::TileLang ||
        dsl == KernelDsl::CuTile) {
      kernels::Classification c = pyhelp::classify_kernel(fn, dsl, ctx);
      if (c.kind != kernels::Kind::Novel) {
        Finding& f = ctx.report(name, fmt::format("{} kernel '{}' ({} lines) {}", pyhelp::display_name(dsl), subject,
                                                  lines, kernels::verdict(c)));
        kernels::apply(f, c, subject);
        f.code_lines = lines;
        return;
      }
      Finding& f = ctx.report(name,
                              fmt::format("{} kernel '{}' ({} lines) cannot run on a TPU",
                                          pyhelp::display_name(dsl), subject, lines),
                              std::string(kRewriteHint), subject);
      f.hours = pyhelp::novel_kernel_hours(dsl, lines);
      f.code_lines = lines;
      return;
    }
    if (dsl == KernelDsl::NumbaCudaDevice) {
      Finding& f = ctx.report(
          name, fmt::format("Numba CUDA device function '{}' ({} lines) cannot run on a TPU", subject, lines),
          "port it with the kernels that call it, as a plain function of array ops", subject);
      f.hours = lines <= 30 ? HoursRange{2, 8} : HoursRange{8, 24};
      return;
    }
    for (const python::Decorator& d : python::decorators_of(fn, ctx)) {
      if (d.qualified == "cupyx.jit.rawkernel") {
        Finding& f = ctx.report(
            name, fmt::format("CuPy JIT raw kernel '{}' ({} lines) cannot run on a TPU", subject, lines),
            std::string(kRewriteHint), subject);
        f.hours = kernels::novel_kernel_hours(lines);
        return;
      }
      if (d.qualified == "cupy.fuse") {
        Finding& f = ctx.report(name, fmt::format("'cupy.fuse' compiles '{}' into a CUDA kernel", subject),
                                "compile it with 'jax.jit' over jax.numpy instead", subject);
        f.effort = kernels::effort_of(kernels::Kind::Trivial);
        f.hours = kFuseHours;
        return;
      }
    }
  }

  static void check_call(Node call, python::PythonContext& ctx) {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute && callee.kind() != Kind::Identifier) return;
    if (call.parent() && call.parent().kind() == Kind::Decorator) return;  // reported on the function
    const auto& q = ctx.qualified_name(callee);
    if (!q || !kernel_api(*q) || !imports_kernel_library(ctx)) return;
    python::CallArguments args = python::call_arguments(call);
    const std::string& api = *q;

    if (api == "cupy.RawKernel" || api == "cupy.RawModule" || api == "pycuda.compiler.SourceModule") {
      Node code = source_literal(!args.positional.empty() ? args.positional[0] : args.keyword("code"), ctx);
      std::string name = api == "cupy.RawKernel"
                             ? literal_arg(args.positional.size() > 1 ? args.positional[1] : args.keyword("name"))
                             : "";
      if (name.empty() && code) name = first_global_kernel(code.text());
      std::string what = api == "cupy.RawKernel"   ? "CuPy raw CUDA kernel"
                         : api == "cupy.RawModule" ? "CuPy raw CUDA module"
                                                   : "PyCUDA SourceModule";
      std::string lines = code ? fmt::format(" ({} lines of CUDA C)", code.line_count()) : "";
      std::string label = name.empty() ? "" : fmt::format(" '{}'", name);
      if (code && code.text().find("__global__") != std::string_view::npos) {
        // The source is in the file: its kernels are read as CUDA code and priced where they are
        // defined (TPU101). What is left here is the call that compiles and loads them.
        Finding& f = ctx.report(callee,
                                fmt::format("{}{}{} compiles CUDA C at run time; its kernels are reported at their "
                                            "definitions (TPU101)",
                                            what, label, lines),
                                std::string(kRewriteHint), name.empty() ? api : name);
        f.effort = EffortClass::Low;
        f.hours = kLoaderHours;
        return;
      }
      kernels::Classification c = kernels::classify_named(name, ctx.file().path());
      if (c.kind != kernels::Kind::Novel) {
        kernels::apply(ctx.report(callee, fmt::format("{}{}{} {}", what, label, lines, kernels::verdict(c))), c, name);
        return;
      }
      Finding& f = ctx.report(callee, fmt::format("{}{}{} cannot run on a TPU", what, label, lines),
                              std::string(kRewriteHint), name.empty() ? api : name);
      f.hours = kernels::novel_kernel_hours(code ? code.line_count() : 0);  // no source: the smallest range
      return;
    }

    size_t name_pos = 0;
    std::string what;
    if (api == "cupy.ElementwiseKernel") name_pos = 3, what = "CuPy elementwise kernel";
    else if (api == "cupy.ReductionKernel") name_pos = 6, what = "CuPy reduction kernel";
    else if (api == "pycuda.elementwise.ElementwiseKernel") name_pos = 2, what = "PyCUDA elementwise kernel";
    else if (api == "pycuda.reduction.ReductionKernel") name_pos = 5, what = "PyCUDA reduction kernel";
    if (!what.empty()) {
      std::string name =
          literal_arg(args.positional.size() > name_pos ? args.positional[name_pos] : args.keyword("name"));
      std::string label = name.empty() ? "" : fmt::format(" '{}'", name);
      Finding& f = ctx.report(callee, fmt::format("{}{} is CUDA C compiled at run time", what, label),
                              std::string(kElementwiseHint), name.empty() ? api : name);
      f.effort = kernels::effort_of(kernels::Kind::Trivial);
      f.hours = kElementwiseHours;
      return;
    }

    if (api == "torch.cuda.jiterator._create_jit_fn" || api == "torch.cuda.jiterator._create_multi_output_jit_fn") {
      Node code = source_literal(!args.positional.empty() ? args.positional[0] : Node(), ctx);
      // jiterator code is a C++ template function: `template <typename T> T name(T x) {...}`.
      std::string name = code ? name_before_paren(code.text(), 0) : "";
      std::string label = name.empty() ? "" : fmt::format(" '{}'", name);
      Finding& f = ctx.report(callee, fmt::format("'torch.cuda.jiterator' compiles the CUDA elementwise kernel{}", label),
                              "write the operation as PyTorch ops: XLA fuses elementwise code into one kernel",
                              name.empty() ? api : name);
      f.effort = kernels::effort_of(kernels::Kind::Trivial);
      f.hours = kElementwiseHours;
      return;
    }

    if (api == "cupy.fuse" || api == "numba.cuda.jit") {
      // The call form: `fused = cupy.fuse(f)`, `kernel = cuda.jit(f)`.
      if (args.positional.empty() || args.positional[0].kind() != Kind::Identifier) return;
      std::string fn(args.positional[0].text());
      if (api == "cupy.fuse") {
        Finding& f = ctx.report(callee, fmt::format("'cupy.fuse' compiles '{}' into a CUDA kernel", fn),
                                "compile it with 'jax.jit' over jax.numpy instead", fn);
        f.effort = kernels::effort_of(kernels::Kind::Trivial);
        f.hours = kFuseHours;
      } else if (kernels::Classification c = kernels::classify_named(fn, ctx.file().path());
                 c.kind != kernels::Kind::Novel) {
        kernels::apply(ctx.report(callee, fmt::format("Numba CUDA kernel '{}' {}", fn, kernels::verdict(c))), c, fn);
      } else {
        ctx.report(callee, fmt::format("Numba CUDA kernel '{}' cannot run on a TPU", fn), std::string(kRewriteHint),
                   fn);
      }
    }
  }
};

const PythonCudaKernel kCheck;

const std::string kEffort =
    "By what the kernel is. A `RawKernel`, `RawModule` or `SourceModule` whose CUDA C source is a literal in the "
    "file: 0.5-1 h for the call, its kernels are priced by TPU101 where they are written in the string, like those "
    "of a .cu file. Low, trivial: elementwise, reduction and jiterator kernels (1-2 h) and `cupy.fuse` "
    "(0.5-1 h), which become a few array ops, and kernels of the table's elementwise ops. Medium: a raw, Numba, CuTe "
    "TileLang or cuTile kernel whose name or file is a standard op with a known TPU replacement, named in the message and "
    "hint (checks/data/standard_kernels.tsv): " +
    kernels::ops_doc("standard") +
    " (not a kernel whose name or file has a longer pattern the table calls novel: " + kernels::ops_doc("novel") + ")" +
    "; also a Numba device function (2-8 h up to 30 lines, 8-24 h beyond). High for any other raw CUDA C, Numba, "
    "CuTe DSL, TileLang and cuTile kernel, scaled by its length like TPU101 (16-40 h up to 30 lines, 24-64 h up to "
    "100, 40-120 h beyond; TileLang and cuTile, tile-level languages, like Triton, from 4-12 h).";

}  // namespace

extern const CheckDef TPU113_python_cuda_kernel{
    .info = {
        .id = "TPU113",
        .name = "python-cuda-kernel",
        .summary = "CUDA kernel built from Python: CuPy `RawKernel`/`ElementwiseKernel`, Numba `@cuda.jit`, "
                   "PyCUDA `SourceModule`, CuTe DSL, TileLang, cuTile, jiterator",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {1, 120},
        .doc = {
            .what = "GPU kernels written in or compiled from Python code: CuPy `RawKernel`, `RawModule`, "
                    "`ElementwiseKernel`, `ReductionKernel`, `@cupyx.jit.rawkernel` and `cupy.fuse`; Numba "
                    "`@cuda.jit` kernels and device functions (`from numba import cuda`); PyCUDA "
                    "`SourceModule`, `ElementwiseKernel`, `ReductionKernel`; CUTLASS CuTe DSL `@cute.kernel`; "
                    "TileLang `@tilelang.jit` (and `@T.prim_func` outside one); cuTile Python `@ct.kernel` (`import "
                    "cuda.tile as ct`); "
                    "`torch.cuda.jiterator._create_jit_fn`. All under any alias (`import cupy as cp`).",
            .why = "Each of these compiles CUDA C, PTX or a GPU-only IR at run time and launches it on an NVIDIA "
                   "GPU; none has a TPU backend. The kernel has to be rewritten.",
            .example = "kernel = cp.RawKernel(r'''\nextern \"C\" __global__ void scale(float* x, float a, int n) {\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= a;\n}''', "
                       "'scale')\n\n@cuda.jit\ndef add(x, y, out):\n    i = cuda.grid(1)\n"
                       "    if i < out.size:\n        out[i] = x[i] + y[i]",
            .use_instead = "Elementwise and reduction kernels become array ops (`jax.numpy`, or PyTorch on the XLA "
                           "device), which XLA fuses: `out = x + y`. Kernels with real tiling become Pallas "
                           "kernels (`jax.experimental.pallas` with the TPU backend).",
            .effort = kEffort,
            .heuristic = "The length of a CUDA C kernel is the length of its source string, when the string is "
                         "a literal argument or a literal assigned to the variable passed; otherwise the "
                         "smallest range is used. Kernels are classified by name: the kernel name given to "
                         "`RawKernel` (or the first `__global__` of the source), the decorated function's name for "
                         "Numba, CuTe, TileLang and cuTile, matched by whole words against "
                         "checks/data/standard_kernels.tsv; then, for those kernels, by a file "
                         "named for a standard op, then by their shape as TPU111 measures Triton's (no "
                         "`cute.gemm`/MMA, atomics, shared arrays, barriers, scans, no loop carrying a value, a "
                         "store, at most 80 lines and 40 statements: trivial), then by a file named for a trivial "
                         "op.",
            .references = {"https://docs.cupy.dev/en/stable/user_guide/kernel.html",
                           "https://numba.readthedocs.io/en/stable/cuda/kernels.html",
                           "https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
