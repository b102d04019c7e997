// TPU304: sparse tensors in PyTorch code (torch.sparse.*, sparse constructors, .to_sparse(), sparse=True).
// User docs: docs/checks/TPU304.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

constexpr std::array<std::string_view, 17> kSparseNames = {
    "torch.hspmm",           "torch.optim.SparseAdam", "torch.smm",
    "torch.sparse_bsc",      "torch.sparse_bsc_tensor", "torch.sparse_bsr",
    "torch.sparse_bsr_tensor", "torch.sparse_compressed_tensor", "torch.sparse_coo",
    "torch.sparse_coo_tensor", "torch.sparse_csc",       "torch.sparse_csc_tensor",
    "torch.sparse_csr",      "torch.sparse_csr_tensor", "torch.sspaddmm",
    "torch.to_sparse_semi_structured", "torch.sparse.SparseSemiStructuredTensor",
};

constexpr std::array<std::string_view, 6> kSparseMethods = {"to_sparse",     "to_sparse_bsc", "to_sparse_bsr",
                                                            "to_sparse_coo", "to_sparse_csc", "to_sparse_csr"};

// Embedding layers whose `sparse=True` makes their weight gradient a sparse tensor.
constexpr std::array<std::string_view, 4> kSparseGradLayers = {
    "torch.nn.Embedding", "torch.nn.EmbeddingBag", "torch.nn.functional.embedding",
    "torch.nn.functional.embedding_bag"};

constexpr std::string_view kSparseModule = "torch.sparse";

bool is_sparse_name(std::string_view q) {
  if (python::has_module_prefix(q, kSparseModule) && q != kSparseModule) return true;
  for (std::string_view s : kSparseNames)
    if (s == q) return true;
  return false;
}

constexpr std::string_view kHint =
    "keep the tensor dense: a dense tensor with a mask, or index tensors with 'index_select'/'scatter_add_'";

class TorchSparseTensor final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = [] {
      std::array<std::string_view, kSparseMethods.size() + kSparseGradLayers.size()> names{};
      auto out = std::copy(kSparseMethods.begin(), kSparseMethods.end(), names.begin());
      for (std::string_view layer : kSparseGradLayers) *out++ = python::last_name_part(layer);
      return names;
    }();
    return k;
  }
  void check(Node n, python::PythonContext& ctx) const override { check_call(n, ctx); }

  bool checks_references() const override { return true; }
  std::span<const std::string_view> reference_names() const override {
    static constexpr auto k = [] {
      std::array<std::string_view, kSparseNames.size() + 1> names{kSparseModule};
      std::copy(kSparseNames.begin(), kSparseNames.end(), names.begin() + 1);
      return names;
    }();
    return k;
  }
  void check_reference(Node n, const std::string& q, python::PythonContext& ctx) const override {
    if (!is_sparse_name(q) || pa::in_test(n, ctx)) return;
    ctx.report(n, fmt::format("'{}' makes or uses a sparse tensor, which PyTorch/XLA does not support", q),
               std::string(kHint), q);
  }

  static void check_call(Node call, python::PythonContext& ctx) {
    Node callee = call.field(Field::Function);
    if (const auto& q = ctx.qualified_name(callee)) {
      for (std::string_view layer : kSparseGradLayers) {
        if (*q != layer) continue;
        Node sparse = python::call_arguments(call).keyword("sparse");
        if (sparse && pa::bool_literal(sparse) == true)
          ctx.report(sparse.parent(), fmt::format("'{}(sparse=True)' makes a sparse gradient, which PyTorch/XLA does "
                                                  "not support",
                                                  *q),
                     "drop 'sparse=True': XLA computes the dense gradient", fmt::format("{}(sparse=True)", *q));
      }
      return;
    }
    if (callee.kind() != Kind::Attribute) return;
    std::string_view method = callee.field(Field::Attribute).text();
    if (std::find(kSparseMethods.begin(), kSparseMethods.end(), method) == kSparseMethods.end() ||
        !pa::method_receiver_may_be(callee, ctx, "torch"))
      return;
    for (std::string_view m : kSparseMethods) {
      if (m != method) continue;
      ctx.report(pa::from_method_name(call),
                 fmt::format("'.{}()' makes a sparse tensor, which PyTorch/XLA does not support", method),
                 std::string(kHint), fmt::format("torch.Tensor.{}", method));
    }
  }
};

const TorchSparseTensor kCheck;

}  // namespace

extern const CheckDef TPU304_torch_sparse_tensor{
    .info = {
        .id = "TPU304",
        .name = "torch-sparse-tensor",
        .summary = "sparse tensors in PyTorch code (torch.sparse.*, sparse_coo_tensor, .to_sparse(), sparse=True)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {2, 8},
        .device_code_only = true,
        .doc = {
            .what = "`torch.sparse.*` functions (`torch.sparse.mm`, `torch.sparse.sum`, ...), the sparse "
                    "constructors and layouts (`torch.sparse_coo_tensor`, `torch.sparse_csr_tensor`, "
                    "`layout=torch.sparse_coo`, ...), `torch.smm`, `torch.hspmm`, `torch.sspaddmm`, "
                    "`torch.optim.SparseAdam`, the `.to_sparse*()` methods, and `nn.Embedding`/`nn.EmbeddingBag`/"
                    "`F.embedding` with `sparse=True` (sparse weight gradients).",
            .why = "XLA compiles dense arrays only: PyTorch/XLA registers no kernels for the sparse layouts, so "
                   "sparse tensors cannot be placed on an XLA device and sparse gradients cannot be produced "
                   "there.",
            .example = "adj = torch.sparse_coo_tensor(idx, val, (n, n))\nh = torch.sparse.mm(adj, x)\n"
                       "emb = nn.Embedding(vocab, dim, sparse=True)",
            .use_instead = "Keep tensors dense. A sparse matmul over a graph becomes a gather and a segment sum "
                           "(`x[src]`, then `torch.zeros(n, d).index_add_(0, dst, msg)`), or a dense matmul with a "
                           "masked adjacency when it fits in memory; embeddings use the default dense gradient.",
            .effort = "Medium: 2-8 h per site, since the code around a sparse op usually assumes its layout.",
            .heuristic = "The `.to_sparse*()` methods are matched in files that import torch, on receivers not "
                         "rooted at another import (SciPy's `.tocsr()` is spelled differently and never matches).",
            .references = {"https://docs.pytorch.org/docs/stable/sparse.html",
                           "https://github.com/pytorch/xla/blob/master/codegen/xla_native_functions.yaml"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
