// TPU501: an import of a CUDA-only library (flash_attn, apex, xformers, bitsandbytes, triton, ...).
// User docs: docs/checks/TPU501.md (generated from the CheckInfo below).
#include <algorithm>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "data/cuda_only_libraries.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

// The table row whose module is `module` or a dotted prefix of it ("flash_attn.layers" ->
// "flash_attn"); the longest such prefix wins.
const data::CudaOnlyLibrariesRow* find_library(std::string_view module) {
  const data::CudaOnlyLibrariesRow* best = nullptr;
  for (const auto& row : data::kCudaOnlyLibraries) {
    bool prefix = module.starts_with(row.module) &&
                  (module.size() == row.module.size() || module[row.module.size()] == '.');
    if (prefix && (!best || row.module.size() > best->module.size())) best = &row;
  }
  return best;
}

class CudaOnlyLibraryImport final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::ImportStatement, Kind::ImportFromStatement};
    return k;
  }

  void check(Node stmt, python::PythonContext& ctx) const override {
    for (const std::string& module : python::imported_modules(stmt, python::package_of(ctx.file().path()))) {
      const data::CudaOnlyLibrariesRow* lib = find_library(module);
      if (!lib) continue;
      bool no_path = lib->tpu_path == "none";
      Finding& f = ctx.report(
          stmt,
          fmt::format("'{}' is a CUDA-only library ({}){}", lib->module, lib->kind,
                      no_path ? " with no TPU path" : ""),
          no_path ? fmt::format("remove the dependency on '{}' from TPU code paths", lib->module)
                  : fmt::format("use {}", lib->replacement),
          std::string(lib->module));
      if (no_path) {
        f.effort = EffortClass::High;
        f.hours = {16, 40};
      }
    }
  }
};

const CudaOnlyLibraryImport kCheck;

}  // namespace

extern const CheckDef TPU501_cuda_only_library_import{
    .info = {
        .id = "TPU501",
        .name = "cuda-only-library-import",
        .summary = "import of a CUDA-only library (flash_attn, apex, xformers, bitsandbytes, triton, cupy, ...)",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .doc = {
            .what = "`import X` / `from X import ...` of a Python library that only runs on NVIDIA GPUs: "
                    "flash_attn, xformers, apex, bitsandbytes, triton, cupy, pycuda, transformer_engine, "
                    "TensorRT, DALI, RAPIDS and others (the table is `checks/data/cuda_only_libraries.tsv`, "
                    "with its sources).",
            .why = "These libraries ship CUDA kernels or bind the CUDA runtime; they do not import, or do "
                   "not work, on a TPU host. Each finding names the documented TPU-side replacement when "
                   "there is one.",
            .example = "from flash_attn import flash_attn_func\nimport bitsandbytes as bnb",
            .use_instead = "`F.scaled_dot_product_attention` or "
                           "`torch_xla.experimental.custom_kernel.flash_attention` for flash_attn and xformers; "
                           "`torch.autocast(\"xla\", dtype=torch.bfloat16)` and stock optimizers for apex; "
                           "Pallas for Triton kernels; `jax.numpy` for CuPy.",
            .effort = "Medium (2-8 h per importing file) when a replacement exists; High (16-40 h) when the "
                      "table lists no TPU path and the code that uses the library must be rewritten.",
            .heuristic = "",
            .references = {"https://docs.pytorch.org/xla/master/features/pallas.html",
                           "https://docs.jax.dev/en/latest/pallas/tpu/index.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
