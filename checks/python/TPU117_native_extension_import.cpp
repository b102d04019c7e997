// TPU117: an import of a compiled extension module (`import selective_scan_cuda`,
// `from detectron2 import _C`): the Python side of a native PyTorch extension.
// User docs: docs/checks/TPU117.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <optional>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "core/plan.h"
#include "data/cuda_only_libraries.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// Frameworks whose own compiled modules (torch._C, triton._C) are not the project's extensions.
constexpr std::array<std::string_view, 7> kFrameworks = {"jax", "jaxlib", "numpy", "tensorflow", "torch",
                                                         "torchvision", "triton"};

// The naming conventions of compiled PyTorch extensions: `_C` (pkg._C, amp_C) and `_cuda`
// (selective_scan_cuda, fused_layer_norm_cuda).
bool extension_like(std::string_view module) {
  std::string_view last = module.substr(module.rfind('.') == std::string_view::npos ? 0 : module.rfind('.') + 1);
  return last.ends_with("_C") || (last.ends_with("_cuda") && last.size() > 5);
}

bool cuda_named(std::string_view module) { return module.ends_with("_cuda"); }

// The modules an import statement names that may be compiled extensions. A from-import's names
// count as submodules when they can be: `from pkg import _C` names "pkg._C" unless pkg is a
// Python file (then `_C` is a variable in it, like a config node), and `from pkg import x_cuda`
// only when pkg is a package of the project (elsewhere it is as likely a function).
std::vector<std::string> named_modules(Node stmt, std::string_view package, const SourceFile& file) {
  std::vector<std::string> modules = python::imported_modules(stmt, package);
  if (stmt.kind() != Kind::ImportFromStatement) return modules;
  std::string base = modules.empty() ? "" : modules[0];
  Node module_name = stmt.field(Field::ModuleName);
  if (base.empty() && module_name) base = std::string(module_name.text());  // `from . import _C` above the root
  std::optional<pyhelp::ProjectModule> kind_cache;  // a file-system lookup: only for extension-like names
  auto module_kind = [&] {
    if (!kind_cache) kind_cache = pyhelp::project_module(base, file);
    return *kind_cache;
  };
  for (std::string_view n : pyhelp::from_import_names(stmt)) {
    if (!extension_like(n)) continue;
    pyhelp::ProjectModule kind = module_kind();
    bool submodule = n.ends_with("_C") ? kind != pyhelp::ProjectModule::File
                                       : kind == pyhelp::ProjectModule::Package || base.starts_with('.');
    if (submodule) modules.push_back(base.ends_with('.') ? base + std::string(n) : base + "." + std::string(n));
  }
  return modules;
}

class NativeExtensionImport final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::ImportStatement, Kind::ImportFromStatement};
    return k;
  }

  void check(Node stmt, python::PythonContext& ctx) const override {
    std::string package = python::package_of(ctx.file().path());
    std::vector<std::string> modules = named_modules(stmt, package, ctx.file());
    for (size_t i = 0; i < modules.size(); ++i) {
      const std::string& module = modules[i];
      if (!extension_like(module)) continue;
      if (std::any_of(modules.begin(), modules.begin() + i,
                      [&](const std::string& m) { return extension_key(m) == extension_key(module); }))
        continue;
      std::string_view top = pyhelp::top_level(module);
      if (std::find(kFrameworks.begin(), kFrameworks.end(), top) != kFrameworks.end()) continue;
      // A CUDA-only library's own extension (xformers._C) is its import's finding (TPU501).
      bool library = std::any_of(std::begin(data::kCudaOnlyLibraries), std::end(data::kCudaOnlyLibraries),
                                 [&](const auto& row) { return python::has_module_prefix(module, row.module); });
      if (library && !pyhelp::is_first_party(top, ctx)) continue;
      if (pyhelp::is_python_module_in_project(module, ctx.file())) continue;  // a .py file, not a build product
      // One finding per extension and file, at its first import; optional only when every
      // import of it in the file is.
      pyhelp::ImportSummary sum = pyhelp::summarize_imports(stmt, ctx, [&](Node other) {
        auto others = named_modules(other, package, ctx.file());
        return std::any_of(others.begin(), others.end(),
                           [&](const std::string& m) { return extension_key(m) == extension_key(module); });
      });
      if (sum.first) report(stmt, module, sum.optional, ctx);
    }
  }

 private:
  static void report(Node stmt, const std::string& module, bool optional, python::PythonContext& ctx) {
    std::string kind = cuda_named(module) ? "CUDA extension" : "native extension";
    if (optional) {
      Finding& f = ctx.report(
          stmt, fmt::format("optional import of the compiled {} '{}'; the code runs without it", kind, module),
          "check that the fallback taken without it is the one that runs on TPU", module);
      pyhelp::mark_optional(f);
      return;
    }
    ctx.report(stmt, fmt::format("import of the compiled {} '{}'; its ops cannot run on XLA tensors", kind, module),
               "call TPU implementations of its ops instead (torch ops that XLA compiles, or Pallas kernels), and "
               "import it only on GPU hosts",
               module);
  }
};

const NativeExtensionImport kCheck;

}  // namespace

extern const CheckDef TPU117_native_extension_import{
    .info = {
        .id = "TPU117",
        .name = "native-extension-import",
        .summary = "import of a compiled extension module (`import selective_scan_cuda`, `from pkg import _C`)",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "`import` of a module named like a compiled PyTorch extension, `_C` (`from detectron2 import "
                    "_C`, `import amp_C`) or `*_cuda` (`import selective_scan_cuda`), that is not a Python file of "
                    "the project: the Python side of a native extension, where its ops are called.",
            .why = "The extension is native code built for CUDA or the CPU (TPU110 reports its build, TPU101 its "
                   "kernels). Its functions take tensors and read their memory or launch CUDA kernels; an XLA "
                   "tensor has no host memory and a TPU host no CUDA, so every call through the module has to go "
                   "to a TPU implementation.",
            .example = "import selective_scan_cuda\n"
                       "out, x, *rest = selective_scan_cuda.fwd(u, delta, A, B, C, D, None, delta_bias, True)",
            .use_instead = "Route the calls to an implementation XLA compiles: the reference PyTorch code most "
                           "extensions keep for testing, or a Pallas kernel through "
                           "`torch_xla.experimental.custom_kernel`; import the extension only where CUDA is "
                           "available.",
            .effort = "Medium: 2-8 h per importing file to reroute its calls; Low (0.25-1 h, a warning) for an "
                      "optional import with a fallback.",
            .heuristic = "Recognized by name only: a last component ending in `_C` or `_cuda`, which is no "
                         "`.py` file or package of the scanned project (extensions are build products, absent "
                         "from a checkout). The compiled modules of torch, triton, jax, numpy, tensorflow and "
                         "torchvision are not reported, nor those of a CUDA-only library (TPU501 reports its "
                         "import). Extensions named otherwise (`fused_dense_lib`, `mmcv._ext`) are missed.",
            .references = {"https://docs.pytorch.org/docs/stable/cpp_extension.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
