// TPU411: DistributedDataParallel bound to CUDA device ids, and nn.DataParallel (CUDA-only).
// User docs: docs/checks/TPU411.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

bool is_ddp(std::string_view q) {
  return q == "torch.nn.parallel.DistributedDataParallel" ||
         q == "torch.nn.parallel.distributed.DistributedDataParallel";
}
bool is_dp(std::string_view q) {
  return q == "torch.nn.DataParallel" || q == "torch.nn.parallel.DataParallel" ||
         q == "torch.nn.parallel.data_parallel.DataParallel";
}

class DataParallelCudaDevices final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"DistributedDataParallel", "DataParallel"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    if (!q || (!is_ddp(*q) && !is_dp(*q))) return;
    python::CallArguments args = python::call_arguments(call);
    if (is_ddp(*q)) {
      // DistributedDataParallel(module, device_ids=None, output_device=None, ...)
      for (auto [pos, name] : {std::pair<size_t, std::string_view>{1, "device_ids"}, {2, "output_device"}}) {
        Node value = pa::argument(args, pos, name);
        if (!value || python::is_none(value)) continue;
        // A parameter passed through (`device_ids=device_ids`) is the caller's choice, and
        // `[rank] if device == "cuda" else None` already leaves it out off CUDA.
        if (value.kind() == Kind::Identifier) continue;
        if (value.kind() == Kind::ConditionalExpression &&
            (python::is_none(value.named_child(0)) || python::is_none(value.named_child(2))))
          continue;
        Node at = value.parent().kind() == Kind::KeywordArgument ? value.parent() : value;
        Finding& f = ctx.report(at,
                   fmt::format("'{}' binds DistributedDataParallel to CUDA devices: it raises for a model on an "
                               "XLA device",
                               name),
                   "drop 'device_ids' and 'output_device': 'DDP(model, gradient_as_bucket_view=True)' with the model "
                   "on 'torch_xla.device()' and the \"xla\" process group",
                   "DistributedDataParallel(device_ids=...)");
        pa::soften_if_cuda_guarded(f, call, ctx);
        return;
      }
      return;
    }
    if (is_dp(*q)) {
      Finding& f = ctx.report(call,
                              fmt::format("'{}' splits batches over CUDA devices: without CUDA it wraps the model "
                                          "and runs it on one device",
                                          *q),
                              "use one process per TPU device ('torch_xla.launch' with DDP and the \"xla\" backend), "
                              "or SPMD sharding ('torch_xla.distributed.spmd')",
                              *q);
      f.severity = Severity::Warning;
      f.effort = EffortClass::Medium;
      f.hours = {1, 4};
    }
  }
};

const DataParallelCudaDevices kCheck;

}  // namespace

extern const CheckDef TPU411_data_parallel_cuda_devices{
    .info = {
        .id = "TPU411",
        .name = "data-parallel-cuda-devices",
        .summary = "DistributedDataParallel(device_ids=...) bound to CUDA devices, and the CUDA-only nn.DataParallel",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = "`DistributedDataParallel(model, device_ids=[...])` or with `output_device=` (any import "
                    "spelling, positional or keyword, unless `None`), and `nn.DataParallel(model)`.",
            .why = "`device_ids` names CUDA devices: DDP accepts it only for GPU (or CPU) modules and raises a "
                   "`ValueError` for parameters on an XLA device. `nn.DataParallel` scatters each batch over the "
                   "visible CUDA devices; with none it quietly runs the wrapped model on one device.",
            .example = "model = DDP(model, device_ids=[local_rank], output_device=local_rank)\n"
                       "model = nn.DataParallel(model)",
            .use_instead = "Move the model to `torch_xla.device()` and wrap it without device ids: "
                           "`DDP(model, gradient_as_bucket_view=True)`, in processes started by `torch_xla.launch` "
                           "with the `\"xla\"` process group; or shard with SPMD (`torch_xla.distributed.spmd`) "
                           "instead of replicating.",
            .effort = "Low for `device_ids` (delete the argument); medium (1-4 h) to replace `nn.DataParallel`, which "
                      "needs a multi-process launcher or SPMD.",
            .heuristic = "Guarded by a CUDA test (`if torch.cuda.is_available():`), a `device_ids` finding is a "
                         "warning. A bare name passed through (`device_ids=device_ids`, a wrapper's parameter) is not "
                         "reported: the caller chooses it. Neither is a conditional with a `None` branch "
                         "(`[rank] if device == \"cuda\" else None`).",
            .references = {"https://docs.pytorch.org/xla/master/learn/pjrt.html",
                           "https://docs.pytorch.org/xla/master/perf/ddp.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
