// TPU404: CUDA streams and events (torch.cuda.Stream, torch.cuda.stream, torch.cuda.Event, .record_stream()).
// User docs: docs/checks/TPU404.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

// The table's stream and event APIs, plus the tensor method `.record_stream(s)`.
class TorchCudaStreamsEvents final : public pa::TorchCudaApiCheck {
 public:
  TorchCudaStreamsEvents() : TorchCudaApiCheck("TPU404") {}

  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"record_stream"};
    return k;
  }
  void check(Node n, python::PythonContext& ctx) const override { check_call(n, ctx); }

 private:
  static void check_call(Node n, python::PythonContext& ctx) {
    Node callee = n.field(Field::Function);
    if (callee.kind() != Kind::Attribute || callee.field(Field::Attribute).text() != "record_stream") return;
    if (ctx.qualified_name(callee) || !pa::method_receiver_may_be(callee, ctx, "torch")) return;
    ctx.report(pa::from_method_name(n),
               "'.record_stream()' ties a tensor to a CUDA stream, which a TPU host does not have",
               "remove it: XLA owns device memory and needs no stream bookkeeping", "torch.Tensor.record_stream");
  }
};

const TorchCudaStreamsEvents kCheck;

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    std::string("CUDA streams and events, from `checks/data/torch_cuda_apis.tsv` with what each does on a TPU host: ") +
    pa::torch_cuda_api_list("TPU404") + "; and the tensor method `.record_stream(stream)`.";

}  // namespace

extern const CheckDef TPU404_torch_cuda_streams_events{
    .info = {
        .id = "TPU404",
        .name = "torch-cuda-streams-events",
        .summary = "CUDA streams and events (torch.cuda.Stream, torch.cuda.stream, torch.cuda.Event, .record_stream)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {0.5, 2},
        .doc = {
            .what = kWhat,
            .why = "Streams and events order work on a CUDA device; without CUDA the classes cannot be built. On "
                   "a TPU the XLA runtime schedules transfers and compute itself: there is no stream to choose, "
                   "and an event cannot time device work that a lazy tensor has not yet dispatched.",
            .example = "side = torch.cuda.Stream()\nwith torch.cuda.stream(side):\n    x = x.to(device, "
                       "non_blocking=True)\nstart = torch.cuda.Event(enable_timing=True)",
            .use_instead = "Remove the streams: to overlap input transfer with compute, wrap the loader in "
                           "`torch_xla.distributed.parallel_loader.MpDeviceLoader`; to time, call "
                           "`torch_xla.sync()` and `xm.wait_device_ops()` around the region, or use "
                           "`torch_xla.debug.profiler`.",
            .effort = "Medium: 0.5-2 h per site, since stream code comes with the prefetch or overlap logic "
                      "around it.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or another CUDA test) is "
                         "skipped on a TPU host and is reported as a warning that says so. `.record_stream()` is "
                         "matched as a method in files that import torch.",
            .references = {"https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-streams",
                           "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
