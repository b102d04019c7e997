// TPU413: torch.nn.SyncBatchNorm, whose distributed path accepts only GPU inputs.
// User docs: docs/checks/TPU413.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;
namespace pa = pyapi;

constexpr std::array<std::string_view, 3> kSyncBatchNorm = {
    "torch.nn.SyncBatchNorm", "torch.nn.SyncBatchNorm.convert_sync_batchnorm",
    "torch.nn.modules.batchnorm.SyncBatchNorm"};

// Uses of SyncBatchNorm: calls (building it or convert_sync_batchnorm), base classes and values
// picked at runtime (`bn = nn.BatchNorm2d if ... else nn.SyncBatchNorm`). A tuple or list of
// types is an isinstance target, and a dict entry a menu of choices: neither is reported.
class TorchSyncBatchNorm final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override { return kSyncBatchNorm; }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (std::find(kSyncBatchNorm.begin(), kSyncBatchNorm.end(), q) == kSyncBatchNorm.end()) return std::nullopt;
    if (pa::in_test(n, ctx) || pa::in_dict_entry(n, ctx)) return std::nullopt;
    Node p = n.parent();
    std::string_view parent = p ? p.type() : std::string_view();
    if (parent == "tuple" || parent == "list" || parent == "set") return std::nullopt;
    bool guarded = pa::cuda_guarded(n, ctx);
    return Match{fmt::format("'{}' synchronizes batch statistics only for GPU inputs: distributed training on an XLA "
                             "device raises{}",
                             q, guarded ? " (it runs only where CUDA is present: a TPU host skips it)" : ""),
                 "use 'torch_xla.core.functions.SyncBatchNorm' (all-reduced statistics on XLA), or plain BatchNorm "
                 "under SPMD, where the batch is global",
                 true, guarded ? std::optional(Severity::Warning) : std::nullopt};
  }
};

const TorchSyncBatchNorm kCheck;

}  // namespace

extern const CheckDef TPU413_torch_sync_batchnorm{
    .info = {
        .id = "TPU413",
        .name = "torch-sync-batchnorm",
        .summary = "torch.nn.SyncBatchNorm (and convert_sync_batchnorm): its distributed path accepts GPU inputs only",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "Building `nn.SyncBatchNorm`, `nn.SyncBatchNorm.convert_sync_batchnorm(model)`, subclasses of it, "
                    "and `nn.SyncBatchNorm` chosen as a value (`norm = nn.SyncBatchNorm if sync else nn.BatchNorm2d`).",
            .why = "In distributed training `SyncBatchNorm.forward` checks the input's device and raises "
                   "`ValueError: SyncBatchNorm expected input tensor to be on GPU` for anything else, an XLA tensor "
                   "included; its statistics kernels (`batch_norm_gather_stats`, ...) are CUDA ones.",
            .example = "model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)",
            .use_instead = "`torch_xla.core.functions.SyncBatchNorm(num_features)` computes the batch statistics with "
                           "an XLA all-reduce; under SPMD a plain `nn.BatchNorm2d` already sees the global batch.",
            .effort = "Low: 0.25-1 h to swap the layer (and its conversion helper).",
            .heuristic = "Guarded by a CUDA test (`if args.sync_bn and cuda:`), it is a warning. Type tests "
                         "(`isinstance(m, nn.SyncBatchNorm)`), tuples or lists of types, and dict entries "
                         "(a menu of norm layers) are not reported.",
            .references = {"https://github.com/pytorch/xla/blob/master/torch_xla/core/functions.py",
                           "https://docs.pytorch.org/docs/stable/generated/torch.nn.SyncBatchNorm.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
