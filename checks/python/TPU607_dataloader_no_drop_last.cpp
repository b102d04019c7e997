// TPU607: a training DataLoader without drop_last=True: its last, smaller batch is a new shape.
// User docs: docs/checks/TPU607.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// The name the call's result is assigned to (`train_loader = DataLoader(...)`), or empty.
std::string_view assigned_name(Node call, const python::PythonContext& ctx) {
  Node parent = call.parent();
  if (!parent || parent.kind() != Kind::Assignment || parent.field(Field::Right) != call) return {};
  return python::chain_last_name(parent.field(Field::Left));
}

bool says_eval(std::string_view name) {
  std::string n = pyapi::ascii_lower(name);
  return n.find("test") != std::string::npos || n.find("val") != std::string::npos ||
         n.find("eval") != std::string::npos;
}

// The dataset argument is a training set: a name that says so (`train_set`, `self.train_ds`), or a
// call that asks for one (`datasets.MNIST(root, train=True)`).
bool builds_train_set(Node dataset) {
  if (!dataset) return false;
  if (dataset.kind() == Kind::Call) return pyapi::bool_literal(python::call_arguments(dataset).keyword("train")) == true;
  return step::says_train(python::chain_last_name(dataset));
}

class DataLoaderNoDropLast final : public step::DataLoaderCheck {
  void check_loader(Node call, const python::CallArguments& args, python::PythonContext& ctx) const override {
    Node drop_last = pyapi::argument(args, step::kLoaderDropLast, "drop_last");
    if (drop_last && pyapi::bool_literal(drop_last) != false) return;  // True, or a value we trust
    if (!drop_last && args.has_splat) return;
    // A batch sampler decides batches itself; batch_size=None yields single samples.
    if (pyapi::argument(args, step::kLoaderBatchSampler, "batch_sampler")) return;
    if (python::is_none(pyapi::argument(args, 1, "batch_size"))) return;
    Node shuffle = pyapi::argument(args, step::kLoaderShuffle, "shuffle");
    Node dataset = pyapi::argument(args, 0, "dataset");
    Node sampler = pyapi::argument(args, step::kLoaderSampler, "sampler");
    std::string_view target = assigned_name(call, ctx);
    if (says_eval(target)) return;  // `test_loader = DataLoader(test_set, shuffle=True)` evaluates
    bool training = pyapi::bool_literal(shuffle) == true || step::says_train(target) || builds_train_set(dataset) ||
                    (sampler && step::says_train(python::chain_last_name(sampler)));
    if (!training) return;
    ctx.report(call,
               drop_last ? "training 'DataLoader' with 'drop_last=False': the last, smaller batch is a new shape "
                           "and recompiles the step"
                         : "training 'DataLoader' without 'drop_last=True': the last, smaller batch is a new shape "
                           "and recompiles the step",
               "pass 'drop_last=True' (or pad the last batch to the full batch size)", "torch.utils.data.DataLoader");
  }
};

const DataLoaderNoDropLast kCheck;

}  // namespace

extern const CheckDef TPU607_dataloader_no_drop_last{
    .info = {
        .id = "TPU607",
        .name = "dataloader-no-drop-last",
        .summary = "training torch DataLoader without 'drop_last=True': the last batch has another shape and "
                   "recompiles",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.5},
        .doc = {
            .what = "Calls of `torch.utils.data.DataLoader` for training without `drop_last=True`: with "
                    "`shuffle=True`, or whose target, dataset or sampler is named like `train` "
                    "(`train_loader = DataLoader(ds, ...)`, `DataLoader(train_set, ...)`), or whose dataset is "
                    "built with `train=True` (torchvision). A target named like `test`, `val` or `eval` is an "
                    "evaluation loader, even when shuffled.",
            .why = "XLA compiles the step for the shapes it sees. When the dataset size is not a multiple of "
                   "the batch size, the last batch of every epoch is smaller: a new input shape, so "
                   "PyTorch/XLA traces and compiles the whole step again (minutes for a large model), and the "
                   "data-parallel devices disagree on the batch. The torch_xla example trainers all pass "
                   "`drop_last=True`.",
            .example = "train_loader = DataLoader(train_set, batch_size=256, shuffle=True, num_workers=8)",
            .use_instead = "`DataLoader(train_set, batch_size=256, shuffle=True, num_workers=8, drop_last=True)`; "
                           "where every sample counts (evaluation), pad the last batch to the full size and mask "
                           "the padding.",
            .effort = "Low: one argument.",
            .heuristic = "Evaluation loaders (no shuffle, no `train` in the names) are not reported: dropping "
                         "samples changes metrics there, and a one-off recompile at the end of evaluation is "
                         "cheap next to it. A `drop_last` value other than the literal `False` is trusted; loaders "
                         "with a `batch_sampler`, `batch_size=None` or `**kwargs` without `drop_last` are skipped.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/perf/recompilation.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
