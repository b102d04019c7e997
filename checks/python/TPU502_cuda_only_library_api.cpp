// TPU502: a call of a CUDA-only library's API (apex.amp.initialize, bnb.nn.Linear8bitLt,
// xops.memory_efficient_attention, ...) that has a known TPU-side replacement.
// User docs: docs/checks/TPU502.md (generated from the CheckInfo below).
#include <algorithm>
#include <vector>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "data/cuda_only_library_apis.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

const data::CudaOnlyLibraryApisRow* find_api(std::string_view q) {
  static const std::vector<std::string_view> kPackages =
      pyhelp::top_level_packages(data::kCudaOnlyLibraryApis, &data::CudaOnlyLibraryApisRow::library);
  if (!pyhelp::in_packages(kPackages, q)) return nullptr;
  for (const auto& row : data::kCudaOnlyLibraryApis)
    if (python::has_module_prefix(q, row.library) && pyhelp::api_names(row.api, q)) return &row;
  return nullptr;
}

// True if every import binding the root name of `expr` is optional: the code runs without the
// library, so its calls sit on a path the TPU never takes.
bool optional_binding(Node expr, const python::PythonContext& ctx) {
  Node root = expr;
  while (root.kind() == Kind::Attribute) root = root.field(Field::Object);
  if (root.kind() != Kind::Identifier) return false;
  bool any = false;
  for (const python::ImportBinding& b : ctx.imports().bindings()) {
    if (b.local != root.text()) continue;
    any = true;
    if (!pyhelp::is_optional_import(b.statement, ctx)) return false;
  }
  return any;
}

class CudaOnlyLibraryApi final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call, Kind::ClassDefinition};
    return k;
  }

  // A call, or `class Norm(FusedLayerNorm):`, which inherits the CUDA-only implementation.
  void check(Node node, python::PythonContext& ctx) const override {
    for (const auto& [name, role] : pyhelp::called_or_subclassed(node)) check_reference(name, role, ctx);
  }

 private:
  static void check_reference(Node ref, std::string_view role, python::PythonContext& ctx) {
    const auto& q = ctx.qualified_name(ref);
    if (!q) return;
    const data::CudaOnlyLibraryApisRow* row = find_api(*q);
    if (!row) return;
    if (pyhelp::is_first_party(pyhelp::top_level(row->library), ctx)) return;
    if (optional_binding(ref, ctx)) return;
    Finding& f = ctx.report(ref, fmt::format("{}'{}' runs CUDA-only code from '{}'", role, *q, row->library),
                            std::string(row->use), *q);
    // Its callers change with it: priced and weighed as the op's kernel, its hint the table's.
    if (const kernels::StandardOp* op = kernels::op_row(row->rewrite_op)) {
      kernels::apply_standard_op_use(f, *op, op->op);
      f.hint = InternedString(row->use);
    }
  }
};

const CudaOnlyLibraryApi kCheck;

}  // namespace

extern const CheckDef TPU502_cuda_only_library_api{
    .info = {
        .id = "TPU502",
        .name = "cuda-only-library-api",
        .summary = "call of a CUDA-only library's API with a known TPU replacement (`amp.initialize`, "
                   "`FusedAdam`, `flash_attn_func`, `memory_efficient_attention`, `Linear8bitLt`, ...)",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "Each call (and each use as a base class) of an API of a CUDA-only library that has a "
                    "known replacement on the TPU side: apex's `amp.initialize`, `amp.scale_loss`, fused "
                    "optimizers and norms; `flash_attn_func` and its variants; xformers' "
                    "`memory_efficient_attention` and attention biases; bitsandbytes' 8-bit and 4-bit layers "
                    "and optimizers; Transformer Engine's layers and `fp8_autocast`; deepspeed.ops optimizers; "
                    "Liger, Mamba, causal-conv1d, DALI and Torch-TensorRT entry points. The table is "
                    "`checks/data/cuda_only_library_apis.tsv`.",
            .why = "The library's import (TPU501) says the file depends on CUDA-only code; this finding says "
                   "where, and what each call becomes: the replacement differs per API (`FusedAdam` becomes "
                   "`torch.optim.AdamW`, `amp.initialize` disappears under bf16 autocast, `flash_attn_func` "
                   "becomes torch_xla's `flash_attention`).",
            .example = "model, optimizer = amp.initialize(model, optimizer, opt_level=\"O1\")\n"
                       "out = xops.memory_efficient_attention(q, k, v, attn_bias=xops.LowerTriangularMask())",
            .use_instead = "The replacement named in each finding, for example:\n"
                           "`optimizer = torch.optim.AdamW(model.parameters())` for `FusedAdam`;\n"
                           "`with torch.autocast(\"xla\", dtype=torch.bfloat16):` around the step for "
                           "`amp.initialize`;\n"
                           "`F.scaled_dot_product_attention(q, k, v, is_causal=True)` for "
                           "`memory_efficient_attention` with a `LowerTriangularMask`.",
            .effort = "Low per call (0.25-1 h): the swap itself. The work of removing the library from a file "
                      "is counted once, on its import (TPU501). An API whose port changes the code that calls it "
                      "(the table's `rewrite_op`: attention over packed variable-length sequences, `flash_attn_varlen_func` "
                      "or xformers' `BlockDiagonalMask`, becomes padded or segment-id attention; `flash_attn_with_kvcache` "
                      "becomes ragged paged attention) is priced as that standard op of checks/data/standard_kernels.tsv, "
                      "once for the project, and weighs in the verdict as the op's kernel would: a real rewrite with a "
                      "known TPU path.",
            .heuristic = "Calls through an optional import (in `try: ... except ImportError:`) are not reported: "
                         "the code already has a fallback path. Nor are calls inside the library's own project "
                         "(as for TPU501). A CUDA-only API passed as a value without being called "
                         "(`norm_layer=FusedLayerNorm`) is not reported.",
            .references = {"https://docs.pytorch.org/xla/master/perf/amp.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html",
                           "https://docs.pytorch.org/xla/master/perf/quantized_ops.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
