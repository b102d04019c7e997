// TPU418: a PyTorch training loop (or step function) that drives the backward pass itself, in a
// file that never touches PyTorch/XLA: on a TPU host it trains on the CPU.
// User docs: docs/checks/TPU418.md (generated from the CheckInfo below).
#include <unordered_set>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

constexpr std::string_view kSubject = "PyTorch training loop";

// The steps of the file already reported: one finding per loop or step function.
struct ReportedSteps {
  std::unordered_set<uint32_t> starts;
};

class TorchTrainingLoopWithoutXla final : public step::StepCallCheck {
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"backward"};
    return k;
  }

  void check_call(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute || callee.field(Field::Attribute).text() != "backward") return;
    if (!ctx.imports().imports("torch") || ctx.imports().imports("torch_xla")) return;
    // `accelerator.backward(loss)`, `fabric.backward(loss)`, `engine.backward(loss)`: a trainer that
    // owns the device takes the loss, and places the step where it was told to (Accelerate and
    // Lightning run on PyTorch/XLA); `torch.autograd.backward(loss)` is the same call as `loss.backward()`
    // but rare enough to leave.
    if (!python::call_arguments(call).positional.empty()) return;
    if (ctx.qualified_name(callee)) return;  // a module's function, not a tensor's method
    step::Step in = step::enclosing_step(call, ctx);
    if (in.kind != step::StepKind::TrainingLoop && in.kind != step::StepKind::StepFunction) return;
    if (in.periodic || !ctx.file_state<ReportedSteps>().starts.insert(in.node.span().begin).second) return;
    ctx.report(pyapi::from_method_name(call),
               "this PyTorch training step runs its backward pass on whatever device its tensors are on, and "
               "nothing in its file uses PyTorch/XLA: on a TPU host it trains on the CPU",
               "port the loop to PyTorch/XLA: the model and batches on 'torch_xla.device()', batches through "
               "'pl.MpDeviceLoader', 'xm.optimizer_step(optimizer)' (or 'torch_xla.sync()') each step, the "
               "'xla' process group for data parallelism; or let Accelerate or Lightning drive it",
               kSubject)
        .priced_once = true;
  }
};

const TorchTrainingLoopWithoutXla kCheck;

}  // namespace

extern const CheckDef TPU418_torch_training_loop_without_xla{
    .info = {
        .id = "TPU418",
        .name = "torch-training-loop-without-xla",
        .summary = "a PyTorch training loop that runs the backward pass itself in a file with no PyTorch/XLA: on "
                   "a TPU host it trains on the CPU",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {4, 12},
        .doc = {
            .what = "In files that import torch and not torch_xla: the first `.backward()` call (a tensor's method, "
                    "with no positional argument) of each training loop or step function (the loops and step "
                    "functions of TPU601). One finding per loop; the project's loops are one change, priced "
                    "once.",
            .why = "A PyTorch training loop runs where its tensors are, and a TPU is an XLA device that only "
                   "PyTorch/XLA provides: without it the model, the batches and the backward pass stay on the CPU "
                   "of the TPU host (or fail on a `.cuda()`). Under PyTorch/XLA the step is traced lazily and "
                   "must be cut and run once per iteration (`xm.optimizer_step`, `torch_xla.sync()`, or "
                   "`MpDeviceLoader`, which does it), data parallelism goes through the `xla` process group, and "
                   "checkpoints are saved from the device (`xm.save`). However clean the model code, a training "
                   "script written for CUDA needs this port before it trains on a TPU.",
            .example = "for x, y in loader:\n    x, y = x.to(device), y.to(device)\n"
                       "    loss = criterion(model(x), y)\n    optimizer.zero_grad()\n    loss.backward()\n"
                       "    optimizer.step()",
            .use_instead = "`import torch_xla`, `import torch_xla.core.xla_model as xm`, "
                           "`import torch_xla.distributed.parallel_loader as pl`\n"
                           "`device = torch_xla.device()`; `model.to(device)`\n"
                           "`for x, y in pl.MpDeviceLoader(loader, device):`\n"
                           "`    loss = criterion(model(x), y)`\n`    loss.backward()`\n"
                           "`    xm.optimizer_step(optimizer)`\n"
                           "Or drive the loop with Hugging Face Accelerate or Lightning, which run on PyTorch/XLA.",
            .effort = "Low, once per project: the device, the loader and the step boundary where the loops are, "
                      "the process group where distributed training starts, then a run that checks the step "
                      "compiles once and the loss matches the GPU's. Further loops follow the first.",
            .heuristic = "A loop or step function is the one TPU601 finds (a loop whose body calls `.backward()`, "
                         "an optimizer step or a step function of its file; a function named like a training "
                         "step). A file that imports torch_xla anywhere is taken as ported, and so is a backward "
                         "pass handed to a trainer (`accelerator.backward(loss)`, `fabric.backward(loss)`, a "
                         "DeepSpeed engine's). A loop whose file only calls helpers of another module that use "
                         "PyTorch/XLA is reported; suppress it there.",
            .references = {"https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html",
                           "https://docs.pytorch.org/xla/master/learn/xla-overview.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
