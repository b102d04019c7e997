// TPU609: a torch_xla program that loops over a plain DataLoader, with no device-side loader.
// User docs: docs/checks/TPU609.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// The loader a loop iterates: `loader`, `enumerate(loader)`, `tqdm(loader, ...)` -> `loader`.
Node iterated(Node iterable) {
  while (iterable.kind() == Kind::Call) {
    std::string_view f = python::chain_last_name(iterable.field(Field::Function));
    if (f != "enumerate" && f != "tqdm" && f != "track") break;
    auto args = python::call_arguments(iterable);
    if (args.positional.empty()) break;
    iterable = args.positional[0];
  }
  return iterable;
}

class TorchXlaNoDeviceLoader final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::ForStatement};
    return k;
  }

  void check(Node loop, python::PythonContext& ctx) const override {
    if (!ctx.imports().imports("torch_xla") || ctx.imports().imports("torch_xla.distributed.parallel_loader")) return;
    Node loader = iterated(loop.field(Field::Right));
    bool plain = loader.kind() == Kind::Call
                     ? step::is_torch_dataloader(loader, ctx)
                     : (loader.kind() == Kind::Identifier || loader.kind() == Kind::Attribute) &&
                           step::names_dataloader(python::chain_last_name(loader), ctx);
    if (!plain || step::uses_device_loader(ctx)) return;
    ctx.report(loader,
               "loop over a plain 'DataLoader' in a torch_xla program: each batch is copied to the TPU "
               "between steps, not while the previous step runs",
               "wrap it: 'pl.MpDeviceLoader(loader, torch_xla.device())' "
               "('import torch_xla.distributed.parallel_loader as pl')",
               "torch_xla.distributed.parallel_loader.MpDeviceLoader");
  }
};

const TorchXlaNoDeviceLoader kCheck;

}  // namespace

extern const CheckDef TPU609_torch_xla_no_device_loader{
    .info = {
        .id = "TPU609",
        .name = "torch-xla-no-device-loader",
        .summary = "torch_xla program iterating a plain DataLoader without MpDeviceLoader/ParallelLoader",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "In files that import torch_xla and neither import "
                    "`torch_xla.distributed.parallel_loader` nor construct an `MpDeviceLoader` or "
                    "`ParallelLoader`: `for` loops over a torch `DataLoader(...)` call, or over a name the file "
                    "assigns a `DataLoader` (also through `enumerate(...)` and `tqdm(...)`).",
            .why = "With a plain DataLoader, each batch reaches the TPU by a `.to(device)` in the step: the "
                   "host-to-device copy happens between steps, after the previous step's graph was cut, so the "
                   "device waits for it. `MpDeviceLoader` preloads the next batches onto the device in a "
                   "background thread and calls `torch_xla.sync()` after each batch, so input transfer "
                   "overlaps compute and every step ends at a graph boundary.",
            .example = "device = torch_xla.device()\nfor x, y in train_loader:\n"
                       "    x, y = x.to(device), y.to(device)\n    ...",
            .use_instead = "`import torch_xla.distributed.parallel_loader as pl`\n"
                           "`for x, y in pl.MpDeviceLoader(train_loader, device):` (batches arrive on the device; "
                           "drop the `.to(device)` calls).",
            .effort = "Low: wrap the loader where the loop starts.",
            .heuristic = "Only files that import torch_xla are checked: without it there is no TPU device to "
                         "feed. Loaders are recognized by name within the file, so a loop over a parameter "
                         "(`def train(loader): for b in loader:`) is not reported, and a name that one function "
                         "assigns a DataLoader and another a device loader counts as plain only when the file "
                         "constructs no device loader at all.",
            .references = {"https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
                           "https://docs.pytorch.org/xla/master/learn/xla-overview.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
