// TPU301: a PyTorch op with no PyTorch/XLA lowering, which runs through the CPU fallback.
// User docs: docs/checks/TPU301.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <vector>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/frameworks/torch.h"
#include "data/torch_ops_cpu_fallback.h"

namespace tpulint::checks {

namespace {

using data::TorchOpsCpuFallbackRow;
using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

// The ATen op that falls back for this call, or nullopt when the row's condition on the call's
// literal arguments does not hold (or cannot be decided: then nothing is reported).
std::optional<std::string> falling_back_op(const TorchOpsCpuFallbackRow& row, const python::CallArguments& args,
                                           bool method) {
  std::string_view cond = row.condition;
  if (cond.empty()) return std::string(row.aten_op);
  if (cond == "interpolate_mode") {
    // F.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
    // antialias); nn.Upsample(size, scale_factor, mode, align_corners).
    bool module = row.api == "torch.nn.Upsample";
    auto mode = pa::string_literal(pa::argument(args, module ? 2 : 3, "mode"));
    auto antialias = pa::bool_literal(pa::argument(args, module ? 99 : 6, "antialias"));
    if (antialias.value_or(false) && mode && (*mode == "bilinear" || *mode == "bicubic"))
      return fmt::format("_upsample_{}2d_aa", *mode);
    if (!mode) return std::nullopt;
    if (*mode == "bicubic") return "upsample_bicubic2d";
    if (*mode == "trilinear") return "upsample_trilinear3d";
    if (*mode == "linear") return "upsample_linear1d";
    if (*mode == "nearest-exact") return "_upsample_nearest_exact2d";
    return std::nullopt;
  }
  if (cond == "multinomial_without_replacement") {
    // Lowered with replacement, or for one sample; anything else falls back.
    auto samples = pa::int_literal(pa::argument(args, method ? 0 : 1, "num_samples"));
    Node replacement = pa::argument(args, method ? 1 : 2, "replacement");
    if (samples == 1) return std::nullopt;
    if (replacement && pa::bool_literal(replacement) != false) return std::nullopt;
    return std::string(row.aten_op);
  }
  if (cond == "scatter_reduce_kwarg") {
    auto reduce = pa::string_literal(args.keyword("reduce"));
    if (reduce && *reduce != "add") return std::string(row.aten_op);
    return std::nullopt;
  }
  if (cond == "scatter_reduce_mean") {
    auto reduce = pa::string_literal(pa::argument(args, method ? 2 : 3, "reduce"));
    auto include_self = pa::bool_literal(args.keyword("include_self"));
    if ((reduce && *reduce == "mean") || include_self == false) return std::string(row.aten_op);
    return std::nullopt;
  }
  if (cond == "round_decimals") {
    Node decimals = args.keyword("decimals");
    if (decimals && pa::int_literal(decimals) != 0) return std::string(row.aten_op);
    return std::nullopt;
  }
  if (cond == "weight_norm_fused_dim") {
    // weight_norm(module, name='weight', dim=0): dim 0 or -1 takes _weight_norm_interface.
    Node dim = pa::argument(args, 2, "dim");
    if (!dim) return std::string(row.aten_op);
    auto d = pa::int_literal(dim);
    if (d == 0 || d == -1) return std::string(row.aten_op);
    return std::nullopt;
  }
  if (cond == "device_keyword") {
    Node device = args.keyword("device");
    if (!device || python::is_none(device) || pa::string_literal(device) == "cpu") return std::nullopt;
    return std::string(row.aten_op);
  }
  return std::nullopt;
}

// Whether a call of `api`, a module class or a module wrapper of torch.nn (`nn.Upsample(mode="bicubic")`,
// `weight_norm(conv)`) or a torchaudio transform (`MelSpectrogram(...)`), builds a layer of a model:
// it stands in a method of a torch module (its constructor, a `_make_layer`), and the op it reports
// runs in the model's forward, every step, whatever runs the method.
bool builds_model_layer(std::string_view api, const python::PythonContext& ctx) {
  const bool layer = (api.starts_with("torch.nn.") && !api.starts_with("torch.nn.functional.")) ||
                     api.starts_with("torchaudio.transforms.");
  if (!layer) return false;
  std::span<const python::Frame> frames = ctx.frames();
  for (size_t i = frames.size(); i-- > 0;) {
    if (frames[i].type != python::Frame::Type::Function) continue;
    return i > 0 && frames[i - 1].type == python::Frame::Type::Class &&
           torch::derives_from_module(frames[i - 1].node, ctx);
  }
  return false;
}

// Whether the table has a row `torch.Tensor.<name>`: a test without building the name, for every
// method call.
bool is_table_method(std::string_view name) {
  static const std::vector<std::string_view> kMethods = [] {
    constexpr std::string_view kTensor = "torch.Tensor.";
    std::vector<std::string_view> out;
    for (const auto& row : data::kTorchOpsCpuFallback)
      if (row.api.starts_with(kTensor)) out.push_back(row.api.substr(kTensor.size()));
    std::sort(out.begin(), out.end());
    return out;
  }();
  return std::binary_search(kMethods.begin(), kMethods.end(), name);
}

class TorchOpCpuFallback final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = python::last_name_parts(std::to_array(data::kTorchOpsCpuFallback),
                                                      &data::TorchOpsCpuFallbackRow::api);
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    const TorchOpsCpuFallbackRow* row = nullptr;
    bool method = false;
    if (const auto& q = ctx.qualified_name(callee)) {
      if (!q->starts_with("torch.") && !q->starts_with("torchaudio.")) return;
      row = pa::find_row(data::kTorchOpsCpuFallback, &TorchOpsCpuFallbackRow::api, *q);
    } else if (callee.kind() == Kind::Attribute && is_table_method(callee.field(Field::Attribute).text()) &&
               pa::method_receiver_may_be(callee, ctx, "torch")) {
      std::string api = "torch.Tensor." + std::string(callee.field(Field::Attribute).text());
      row = pa::find_row(data::kTorchOpsCpuFallback, &TorchOpsCpuFallbackRow::api, api);
      method = true;
    }
    if (!row) return;
    python::CallArguments args = python::call_arguments(call);
    auto op = falling_back_op(*row, args, method);
    if (!op) return;

    std::string shown = method ? fmt::format(".{}()", row->api.substr(row->api.rfind('.') + 1)) : std::string(row->api);
    Finding& f = ctx.report(method ? pa::from_method_name(call) : call.span(),
                            fmt::format("'{}' has no XLA lowering: 'aten::{}' falls back to the CPU", shown, *op),
                            std::string(row->replacement), std::string(row->api));
    f.hours = parse_hours_range(row->hours).value_or(HoursRange{});
    f.effort = f.hours.high <= 1 ? EffortClass::Low : EffortClass::Medium;
    if (builds_model_layer(row->api, ctx)) f.context = Context::HotPath;
  }
};

const TorchOpCpuFallback kCheck;

// The documented API list comes from the same table the check reads.
std::string api_list() {
  std::string out;
  for (const auto& row : data::kTorchOpsCpuFallback) {
    if (!out.empty()) out += ", ";
    out += fmt::format("`{}`", row.api);
    if (!row.condition.empty()) out += fmt::format(" ({})", row.condition);
  }
  return out;
}

const std::string kWhat =
    "Calls of PyTorch APIs whose ATen op PyTorch/XLA 2.9 does not lower, so that on an XLA device the op is "
    "copied to the CPU, run there and copied back: special functions (`torch.lgamma`, `torch.special.*`), "
    "`torch.fft.*`, `torch.stft` and torchaudio's spectrogram transforms built on it (through "
    "`_fft_r2c`/`_fft_c2c`/`_fft_c2r`), most of `torch.linalg` except "
    "`inv`, `pinv`, `svd`, `eigh` and `slogdet`, `F.grid_sample`, `F.unfold`/`nn.Unfold`, `F.ctc_loss`, "
    "`F.embedding_bag`, `weight_norm`, `F.interpolate` with a bicubic, trilinear, linear or nearest-exact mode or "
    "`antialias=True`, `torch.multinomial` without replacement, `scatter_reduce(reduce=\"mean\")` and more. "
    "The table is `checks/data/torch_ops_cpu_fallback.tsv` (with its sources); in full: " +
    api_list() + ".";

}  // namespace

extern const CheckDef TPU301_torch_op_cpu_fallback{
    .info = {
        .id = "TPU301",
        .name = "torch-op-cpu-fallback",
        .summary = "PyTorch op with no XLA lowering: runs on the CPU (torch.fft, most torch.linalg, special functions, "
                   "grid_sample, ...)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = kWhat,
            .why = "PyTorch/XLA sends every op it has no lowering for to one boxed fallback: the graph built so far "
                   "is cut, the inputs are copied to the host, the op runs on the CPU and its output is copied "
                   "back. Each such op in a training step costs a device-host round trip and splits the XLA graph "
                   "in two (the metrics report counts it as `aten::<op>`).",
            .example = "spec = torch.stft(audio, 400, 160, window=window, return_complex=True)\n"
                       "pos = F.interpolate(pos, size=(h, w), mode=\"bicubic\")\n"
                       "x = torch.linalg.solve(A, b)",
            .use_instead = "Each finding names a rewrite with ops that XLA lowers: `torch.linalg.slogdet` for a "
                           "determinant, `torch.linalg.inv(A) @ B` for a solve, `mode=\"bilinear\"` for resizing, a "
                           "matmul with a DFT matrix (or JAX `jnp.fft`) for a transform, `torch.logsumexp` over a "
                           "stack for `logaddexp`. Ops that run once outside the step (a position-embedding resize "
                           "at load time) can stay: they cost one round trip.",
            .effort = "Per call site: low (0.25-1 h) for a drop-in rewrite such as `hypot` or `logaddexp`, medium "
                      "(1-4 h) for a rewrite that needs its numerics checked, and 4-16 h (still medium: there is a "
                      "known path) for moving a subsystem such as an FFT front end, a CTC loss or `linalg.eig`.",
            .heuristic =
                "The function form is matched through the imports (`import torch as T`, `from torch.fft import "
                "rfft`). The method form (`x.lgamma()`) is matched only for method names that are not also common "
                "NumPy, pandas or Python methods: `.median()`, `.mode()`, `.sort()`, `.round()`, `.isin()`, "
                "`.searchsorted()` and `.cummin()` are not matched as methods (a pandas Series and a detectron2 "
                "HistoryBuffer have `.median()`), so `x.median()` on a tensor is a known false negative; the "
                "function form `torch.median(x)` is reported. Method calls on `self` or `cls` (a module's own "
                "`self.unfold(x)`) and on receivers rooted at another import are skipped, and methods are matched "
                "only in files that import torch. Conditional rows need literal arguments: a mode or reduction "
                "held in a variable is not reported. The check cannot know where a tensor lives: an op on a CPU "
                "tensor (a host-side sampler's `torch.multinomial`) is reported although it never reaches XLA.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://github.com/pytorch/xla/blob/master/codegen/xla_native_functions.yaml",
                           "https://docs.pytorch.org/xla/master/contribute/op_lowering.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
