// TPU501: an import of a CUDA-only library (flash_attn, apex, xformers, bitsandbytes, triton, ...).
// User docs: docs/checks/TPU501.md (generated from the CheckInfo below).
#include <algorithm>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "data/cuda_only_libraries.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// The top-level packages of the table's modules, sorted.
const std::vector<std::string_view>& library_packages() {
  static const std::vector<std::string_view> kPackages =
      pyhelp::top_level_packages(data::kCudaOnlyLibraries, &data::CudaOnlyLibrariesRow::module);
  return kPackages;
}

// The table row whose module is `module` or a dotted prefix of it ("flash_attn.layers" ->
// "flash_attn"); the longest such prefix wins.
const data::CudaOnlyLibrariesRow* find_library(std::string_view module) {
  if (!pyhelp::in_packages(library_packages(), module)) return nullptr;
  return pyhelp::longest_module_row(data::kCudaOnlyLibraries, &data::CudaOnlyLibrariesRow::module, module);
}

// False when the statement is absolute and none of the packages it names at the top is a
// library's: most imports (torch, numpy, the project's modules) are told so without building
// the names they import. A relative import may name anything once resolved.
bool may_name_library(Node stmt) {
  auto library_top = [](Node dotted_name) {
    Node first = dotted_name.kind() == Kind::DottedName ? dotted_name.named_child(0) : Node();
    if (!first || first.kind() != Kind::Identifier) return true;  // not a plain name: the whole way
    return pyhelp::in_packages(library_packages(), first.text());
  };
  if (stmt.kind() == Kind::ImportFromStatement) {
    Node module = stmt.field(Field::ModuleName);
    return !module || module.kind() != Kind::DottedName || library_top(module);
  }
  for (uint32_t i = 0; i < stmt.named_child_count(); ++i) {
    Node c = stmt.named_child(i);
    if (library_top(c.kind() == Kind::AliasedImport ? c.field(Field::Name) : c)) return true;
  }
  return false;
}

// The CUDA-only libraries an import statement names, each once. A from-import also names its
// imported names as submodules, so `from deepspeed import ops` and `from numba import cuda`
// are found like `import deepspeed.ops`.
std::vector<const data::CudaOnlyLibrariesRow*> libraries_of(Node stmt, std::string_view package) {
  if (!may_name_library(stmt)) return {};
  std::vector<std::string> modules = python::imported_modules(stmt, package);
  if (stmt.kind() == Kind::ImportFromStatement && modules.size() == 1) {
    std::string base = modules[0];
    for (std::string_view name : pyhelp::from_import_names(stmt)) modules.push_back(base + "." + std::string(name));
  }
  std::vector<const data::CudaOnlyLibrariesRow*> out;
  for (const std::string& m : modules) {
    const data::CudaOnlyLibrariesRow* lib = find_library(m);
    if (!lib) continue;
    // cupy and cupyx are one library: one finding.
    bool known = std::any_of(out.begin(), out.end(), [&](auto* o) { return o->package == lib->package; });
    if (!known) out.push_back(lib);
  }
  return out;
}

// Whether the file imports a language GPU kernels are written in (the table's `kernel-language` rows).
bool imports_kernel_language(const python::PythonContext& ctx) {
  return std::any_of(std::begin(data::kCudaOnlyLibraries), std::end(data::kCudaOnlyLibraries), [&](const auto& row) {
    return row.role == "kernel-language" && ctx.imports().imports(row.module);
  });
}

class CudaOnlyLibraryImport final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::ImportStatement, Kind::ImportFromStatement};
    return k;
  }

  void check(Node stmt, python::PythonContext& ctx) const override {
    std::string package = python::package_of(ctx.file().path());
    for (const data::CudaOnlyLibrariesRow* lib : libraries_of(stmt, package)) {
      // The project's own package (scanning apex itself): its modules are not a dependency.
      if (pyhelp::is_first_party(pyhelp::top_level(lib->module), ctx)) continue;
      // One finding per library (package) and file, at its first import; it is optional only when every
      // import of it in the file is.
      pyhelp::ImportSummary sum = pyhelp::summarize_imports(stmt, ctx, [&](Node other) {
        auto libs = libraries_of(other, package);
        return std::any_of(libs.begin(), libs.end(), [&](auto* o) { return o->package == lib->package; });
      });
      if (!sum.first) continue;
      Finding* f = report(stmt, *lib, sum.optional, ctx);
      // The file is built on a library with no TPU path: its code has none either. Counted once
      // per file, at the first import of any such library.
      if (f && f->effort == EffortClass::High && first_library_with_no_path(stmt, lib, package, ctx))
        f->code_lines = count_code_lines(ctx.file().text(), Language::Python);
    }
  }

 private:
  // Whether `lib`, named by `stmt`, is the first library with no TPU path the file imports.
  static bool first_library_with_no_path(Node stmt, const data::CudaOnlyLibrariesRow* lib, const std::string& package,
                                         python::PythonContext& ctx) {
    auto no_path = [&](Node other) {
      auto libs = libraries_of(other, package);
      return std::any_of(libs.begin(), libs.end(), [&](auto* o) {
        return o->tpu_path == "none" && !pyhelp::is_first_party(pyhelp::top_level(o->module), ctx);
      });
    };
    if (!pyhelp::summarize_imports(stmt, ctx, no_path).first) return false;
    for (const data::CudaOnlyLibrariesRow* other : libraries_of(stmt, package))
      if (other->tpu_path == "none" && !pyhelp::is_first_party(pyhelp::top_level(other->module), ctx))
        return other == lib;
    return false;
  }

  static Finding* report(Node stmt, const data::CudaOnlyLibrariesRow& lib, bool optional, python::PythonContext& ctx) {
    bool no_path = lib.tpu_path == "none";
    std::string use = no_path ? "" : fmt::format("use {}", lib.replacement);
    if (optional) {
      Finding& f = ctx.report(
          stmt,
          fmt::format("optional import of the CUDA-only library '{}' ({}); the code runs without it", lib.module,
                      lib.kind),
          fmt::format("check that the fallback taken without '{}' is the one that runs on TPU{}", lib.module,
                      no_path ? "" : "; " + use),
          std::string(lib.module));
      pyhelp::mark_optional(f);
      return nullptr;
    }
    Finding& f = ctx.report(
        stmt,
        fmt::format("'{}' is a CUDA-only library ({}){}", lib.module, lib.kind, no_path ? " with no TPU path" : ""),
        no_path ? fmt::format("remove the dependency on '{}' from TPU code paths", lib.module) : use,
        std::string(lib.module));
    if (no_path && lib.role == "runtime-bindings" && imports_kernel_language(ctx)) {
      // The streams and handles a file passes to its kernel language's launches: glue that goes
      // with those kernels, whose findings price the rewrite.
      f.hours = {};
    } else if (no_path) {
      f.effort = EffortClass::High;
      f.hours = {16, 40};
    } else if (pyhelp::defines_kernels_of(lib.module, ctx)) {
      // A kernel language imported to write the file's kernels: their findings (TPU111, TPU113)
      // price the rewrite, the import goes with them.
      f.hours = {};
    }
    return &f;
  }
};

const CudaOnlyLibraryImport kCheck;

}  // namespace

extern const CheckDef TPU501_cuda_only_library_import{
    .info = {
        .id = "TPU501",
        .name = "cuda-only-library-import",
        .summary = "import of a CUDA-only library (flash_attn, apex, xformers, bitsandbytes, triton, cupy, deepspeed.ops, ...)",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "`import X` / `from X import ...` of a Python library that only runs on NVIDIA GPUs: "
                    "flash_attn, xformers, apex, bitsandbytes, triton, cupy, pycuda, cuda-python, numba.cuda, "
                    "deepspeed.ops (not DeepSpeed itself, which has a TPU accelerator), transformer_engine, "
                    "TensorRT, DALI, RAPIDS, liger_kernel, unsloth, mamba_ssm, the CUTLASS, TileLang and cuTile kernel "
                    "languages, JAX Pallas's GPU backends, PyTorch's FlexAttention (`torch.nn.attention.flex_attention`, "
                    "which raises on an XLA device), NVML monitoring and others (the table is "
                    "`checks/data/cuda_only_libraries.tsv`, with its sources). One finding per library and file, "
                    "at its first import.",
            .why = "These libraries ship CUDA kernels or bind the CUDA runtime; they do not import, or do "
                   "not work, on a TPU host. Each finding names the documented TPU-side replacement when "
                   "there is one. An optional import (in a `try:` whose `except ImportError:` handler does not "
                   "raise again) only means the code takes its fallback path on a TPU: it is reported as a "
                   "warning, at low effort.",
            .example = "from flash_attn import flash_attn_func\nimport bitsandbytes as bnb\n\n"
                       "try:\n    from apex.normalization import FusedLayerNorm  # optional: a warning\n"
                       "except ImportError:\n    FusedLayerNorm = None",
            .use_instead = "`F.scaled_dot_product_attention` or "
                           "`torch_xla.experimental.custom_kernel.flash_attention` for flash_attn and xformers; "
                           "`torch.autocast(\"xla\", dtype=torch.bfloat16)` and stock optimizers for apex; "
                           "Pallas for Triton kernels; `jax.numpy` for CuPy; `tpu-info` for NVML monitoring.",
            .effort = "Medium (2-8 h per importing file) when a replacement exists; High (16-40 h) when the "
                      "table lists no TPU path and the code that uses the library must be rewritten; Low "
                      "(0.25-1 h) for an optional import, where the work is checking the fallback. A kernel "
                      "language (Triton, Numba CUDA, CuTe, TileLang, cuTile) imported by a file that defines "
                      "kernels in it costs nothing of its own: those kernels' findings (TPU111, TPU113) price the "
                      "rewrite. Nor do the CUDA driver and runtime bindings (cuda-python's `cuda.bindings`) in a "
                      "file that imports a kernel language: there they are the streams and handles its kernels "
                      "are launched with, glue that goes with the kernels (the table's `role` column).",
            .heuristic = "Imports of the scanned project's own package are not reported (scanning apex itself "
                         "reports its kernels, not `import apex`): a library is the project's own when the scan "
                         "root, its `src/` or the importing file's directory holds `<name>/__init__.py` or "
                         "`<name>.py`, or when the root is package `<name>` itself. A handler that ends with `raise` makes the import required.",
            .references = {"https://docs.pytorch.org/xla/master/features/pallas.html",
                           "https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
