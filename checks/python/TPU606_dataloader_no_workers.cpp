// TPU606: a torch DataLoader that loads batches in the training process (num_workers 0 or unset).
// User docs: docs/checks/TPU606.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

class DataLoaderNoWorkers final : public step::DataLoaderCheck {
  void check_loader(Node call, const python::CallArguments& args, python::PythonContext& ctx) const override {
    Node workers = pyapi::argument(args, step::kLoaderNumWorkers, "num_workers");
    if (!workers && args.has_splat) return;  // it may come in **kwargs
    if (workers && pyapi::int_literal(workers) != 0) return;
    ctx.report(call,
               workers ? "'DataLoader' with 'num_workers=0' loads every batch in the training process"
                       : "'DataLoader' without 'num_workers' loads every batch in the training process",
               "set 'num_workers' > 0 and, with torch_xla, wrap the loader in "
               "'torch_xla.distributed.parallel_loader.MpDeviceLoader(loader, device)'",
               "torch.utils.data.DataLoader");
  }
};

const DataLoaderNoWorkers kCheck;

}  // namespace

extern const CheckDef TPU606_dataloader_no_workers{
    .info = {
        .id = "TPU606",
        .name = "dataloader-no-workers",
        .summary = "torch DataLoader with 'num_workers=0' or unset: batches are loaded in the training process",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.5},
        .doc = {
            .what = "Calls of `torch.utils.data.DataLoader` (under any alias) without `num_workers`, or with "
                    "the literal `num_workers=0` (by keyword or in the sixth position).",
            .why = "With no workers, the process that drives the TPU also reads, decodes and collates every "
                   "batch, between steps. A TPU step is usually much faster than that host work, so the device "
                   "waits for input: the classic input-bound TPU job. PyTorch/XLA runs one such process per "
                   "TPU host or device.",
            .example = "loader = DataLoader(train_set, batch_size=128, shuffle=True, drop_last=True)",
            .use_instead = "`DataLoader(train_set, batch_size=128, shuffle=True, drop_last=True, num_workers=8, "
                           "persistent_workers=True)`, wrapped in `pl.MpDeviceLoader(loader, device)` "
                           "(`import torch_xla.distributed.parallel_loader as pl`), which also overlaps the "
                           "host-to-device copy with the step.",
            .effort = "Low: one argument; the dataset must be picklable for worker processes.",
            .heuristic = "A value other than the literal 0 (a variable, `args.workers`) is trusted. A call that "
                         "passes `**kwargs` without `num_workers` is not reported. Loaders in tests and small "
                         "tools are reported too; path weighting counts them less.",
            .references = {"https://docs.pytorch.org/docs/stable/data.html#multi-process-data-loading",
                           "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
