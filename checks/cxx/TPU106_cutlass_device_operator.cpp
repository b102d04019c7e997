// TPU106: a CUTLASS device-level operator (`cutlass::gemm::device::Gemm<...>`,
// `GemmUniversalAdapter<...>`, `conv::device::ImplicitGemmConvolution<...>`) instantiated by the
// project: a GPU kernel with no `__global__` in the repository.
// User docs: docs/checks/TPU106.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include <array>
#include <map>

#include "checks/check_def.h"
#include "checks/kernel_class.h"

namespace tpulint::checks {

namespace {

// The namespaces of CUTLASS's device-level API (include/cutlass/{gemm,conv,reduction}/device/):
// each class template there is a kernel with its launch, configured by its template arguments.
constexpr std::array<std::string_view, 3> kDeviceNamespaces = {"cutlass::gemm::device::", "cutlass::conv::device::",
                                                               "cutlass::reduction::device::"};

// The operator a qualified name instantiates (`Gemm` of `cutlass::gemm::device::Gemm`), or "": a
// name inside it (`...::Gemm::Arguments`) and the configuration traits (`DefaultGemmConfiguration`)
// are not operators.
std::string_view operator_name(std::string_view qualified) {
  for (std::string_view ns : kDeviceNamespaces) {
    if (!qualified.starts_with(ns)) continue;
    std::string_view name = qualified.substr(ns.size());
    if (name.empty() || name.find("::") != std::string_view::npos || name.starts_with("Default")) return {};
    return name;
  }
  return {};
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The alias a type is bound to when `text` before `at` reads `using NAME = [typename]`, or "".
std::string_view alias_before(std::string_view text, size_t at) {
  auto skip_space = [&](size_t i) {
    while (i > 0 && std::isspace(static_cast<unsigned char>(text[i - 1]))) --i;
    return i;
  };
  auto word_before = [&](size_t i) {
    size_t end = i;
    while (i > 0 && identifier_char(text[i - 1])) --i;
    return text.substr(i, end - i);
  };
  size_t i = skip_space(std::min(at, text.size()));
  if (std::string_view w = word_before(i); w == "typename") i = skip_space(i - w.size());
  if (i == 0 || text[i - 1] != '=') return {};
  i = skip_space(i - 1);
  std::string_view alias = word_before(i);
  if (alias.empty()) return {};
  i = skip_space(i - alias.size());
  return word_before(i) == "using" ? alias : std::string_view{};
}

// The op an operator is: the file's standard op when its file is named after one (a grouped GEMM
// in `cutlass_grouped_gemm.cuh`), else the operator's own
// (`cutlass_` and its name, so that the table's CUTLASS rows match CUTLASS names only).
kernels::Classification classify(std::string_view op_name, std::string_view path) {
  const kernels::StandardOp* file_op = kernels::op_of_file(path);
  if (file_op && file_op->kind == "standard") return kernels::from_row(*file_op);
  if (const kernels::StandardOp* op = kernels::op_named("cutlass_" + std::string(op_name))) return kernels::from_row(*op);
  return {};
}

class CutlassDeviceOperator final : public cxx::NativeCheck {
 public:
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    struct Instance {
      const cxx::QualifiedNameFact* name;
      std::string_view op_name;
      kernels::Classification c;
    };
    std::vector<Instance> instances;
    std::map<const kernels::StandardOp*, size_t> per_op;
    for (const cxx::QualifiedNameFact& q : facts.qualified_names) {
      std::string_view op_name = operator_name(q.name);
      if (op_name.empty()) continue;
      instances.push_back({&q, op_name, classify(op_name, ctx.file().path())});
      ++per_op[instances.back().c.op];
    }
    const std::string_view text = ctx.file().text();
    for (Instance& in : instances) {
      std::string_view alias = alias_before(text, in.name->span.begin);
      std::string name(alias.empty() ? in.op_name : alias);
      std::string what = fmt::format("CUTLASS device-level operator '{}' ({}) is a GPU kernel the project configures", name,
                                     in.name->name);
      if (in.c.kind != kernels::Kind::Novel) {
        // One op's hours are shared by its operators in the file, as its kernels' are (TPU101).
        kernels::Classification c = kernels::from_row(*in.c.op, per_op[in.c.op]);
        Finding& finding = ctx.report(in.name->span, what + ", and " + kernels::verdict(c));
        kernels::apply(finding, c, name);
        continue;
      }
      ctx.report(in.name->span, what + "; it has no TPU equivalent",
                 "rewrite what it computes as tensor ops (XLA runs matmuls and convolutions on the MXU) or as a Pallas "
                 "TPU kernel",
                 name);
    }
  }
};

const CutlassDeviceOperator kCheck;

}  // namespace

extern const CheckDef TPU106_cutlass_device_operator{
    .info = {
        .id = "TPU106",
        .name = "cutlass-device-operator",
        .summary = "CUTLASS device-level operator instantiated by the project (`cutlass::gemm::device::Gemm<...>`): a "
                   "GPU kernel with no `__global__` in the repository",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 40},
        .doc = {
            .what = "A class template of CUTLASS's device-level API named with its template arguments: "
                    "`cutlass::gemm::device::Gemm`, `GemmSplitKParallel`, `GemmUniversalAdapter` (CUTLASS 3's "
                    "wrapper of a kernel built with `CollectiveBuilder`), `SparseGemm`, "
                    "`cutlass::conv::device::ImplicitGemmConvolution`, `cutlass::reduction::device::ReduceSplitK`. "
                    "Each instantiation is a kernel, launched by the operator's `run()` or `operator()`, though "
                    "the repository has no `__global__` for it: the kernel is CUTLASS's, configured by the project "
                    "(tile shapes, data types, epilogue).",
            .why = "TPUs do not run CUDA, and CUTLASS is CUDA templates. What the operator computes usually has a "
                   "direct TPU counterpart: XLA runs matrix multiplications and convolutions on the TPU's matrix "
                   "units (MXU) and fuses a GEMM's epilogue (bias, activation, scaling) into them; the tuning the "
                   "template arguments encode does not carry over and is not needed.",
            .example = "using OurGemm = cutlass::gemm::device::Gemm<cutlass::half_t, cutlass::layout::RowMajor,\n"
                       "    cutlass::half_t, cutlass::layout::ColumnMajor, float, cutlass::layout::RowMajor>;\n"
                       "OurGemm gemm_op;\n"
                       "gemm_op({{M, N, K}, {A, lda}, {B, ldb}, {C, ldc}, {D, ldd}, {alpha, beta}});",
            .use_instead = "The framework's op for what it computes: `torch.matmul`/`F.linear` or `jnp.dot`/"
                           "`jax.lax.dot_general` with the epilogue as tensor ops after it; a grouped GEMM becomes a "
                           "ragged dot (`jax.lax.ragged_dot`) or the Pallas grouped matmul; a convolution `F.conv2d` or "
                           "`jax.lax.conv_general_dilated`; a 2:4 sparse GEMM a dense matmul of the pruned weights "
                           "(the sparsity's speed-up is lost on a TPU, not the result).",
            .effort = "Medium, a standard op (checks/data/standard_kernels.tsv): swapping in the replacement and "
                      "validating its numerics, the row's hours shared by the operators of that op in one file: the "
                      "op of the file when the file is named after one (`cutlass_grouped_gemm.cuh` is a grouped GEMM), "
                      "else the operator's (`cutlass_gemm`: dense GEMM, `cutlass_sparse_gemm`: 2:4 sparse GEMM, "
                      "`cutlass_implicit_gemm_convolution`: convolution). An operator of no row is High, 16-40 h, a "
                      "rewrite. The file's use of the library itself is TPU529's.",
            .heuristic = "A qualified name of exactly `cutlass::{gemm,conv,reduction}::device::NAME`, template "
                         "arguments left out, in the file's tokens (any preprocessor branch): a name inside the "
                         "operator (`Gemm::Arguments`) or its configuration traits (`DefaultGemmConfiguration`) is no "
                         "operator. Each such name is one operator; the finding names the alias it is bound to "
                         "(`using Gemm = ...`) when there is one. Kernel-level CUTLASS code (`cutlass::gemm::kernel::`) "
                         "is found where it is launched (TPU102) or defined (TPU101).",
            .references = {"https://github.com/NVIDIA/cutlass/tree/main/include/cutlass/gemm/device",
                           "https://docs.jax.dev/en/latest/_autosummary/jax.lax.dot_general.html",
                           "https://docs.pytorch.org/docs/stable/generated/torch.matmul.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
