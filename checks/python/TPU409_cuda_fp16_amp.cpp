// TPU409: CUDA automatic mixed precision (torch.cuda.amp, autocast("cuda"), fp16 GradScaler).
// User docs: docs/checks/TPU409.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

constexpr std::string_view kAutocastHint = "use 'torch.autocast(\"xla\", dtype=torch.bfloat16)'";
constexpr std::string_view kScalerHint =
    "drop the scaler: train in bfloat16 ('torch.autocast(\"xla\", dtype=torch.bfloat16)'), which needs no loss "
    "scaling";

// The table's torch.cuda.amp names, plus the device-generic spellings with a "cuda" device:
// torch.autocast("cuda"), torch.amp.autocast(device_type="cuda"), torch.amp.GradScaler("cuda")
// and torch.amp.GradScaler() (whose device defaults to "cuda").
class CudaFp16Amp final : public pa::TorchCudaApiCheck {
 public:
  CudaFp16Amp() : TorchCudaApiCheck("TPU409") {}

  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"autocast", "GradScaler"};
    return k;
  }
  void check(Node n, python::PythonContext& ctx) const override { check_call(n, ctx); }

 private:
  static void check_call(Node n, python::PythonContext& ctx) {
    const auto& q = ctx.qualified_name(n.field(Field::Function));
    if (!q) return;
    bool autocast = *q == "torch.autocast" || *q == "torch.amp.autocast" || *q == "torch.amp.autocast_mode.autocast";
    bool scaler = *q == "torch.amp.GradScaler" || *q == "torch.GradScaler" || *q == "torch.amp.grad_scaler.GradScaler";
    if (!autocast && !scaler) return;
    python::CallArguments args = python::call_arguments(n);
    if (autocast) {
      auto device = pa::string_literal(pa::argument(args, 0, "device_type"));
      if (!device || *device != "cuda") return;
      if (pa::bool_literal(args.keyword("enabled")) == false) {
        // A region kept out of autocast (a precision-sensitive op): the XLA autocast still applies.
        ctx.report(n,
                   fmt::format("'{}(\"cuda\", enabled=False)' turns off CUDA autocast only: under XLA autocast this "
                               "region still runs in bfloat16",
                               *q),
                   "use 'torch.autocast(\"xla\", enabled=False)'", "torch.autocast(\"cuda\", enabled=False)");
        return;
      }
      ctx.report(n, fmt::format("'{}(\"cuda\")' disables itself on a TPU host: the model runs in float32", *q),
                 std::string(kAutocastHint), "torch.autocast(\"cuda\")");
      return;
    }
    if (scaler) {
      Node device = pa::argument(args, 0, "device");
      if (device && pa::string_literal(device) != "cuda") return;
      if (args.has_splat && !device) return;
      ctx.report(n, fmt::format("'{}' scales float16 losses on CUDA and disables itself on a TPU host", *q),
                 std::string(kScalerHint), "torch.amp.GradScaler(\"cuda\")");
    }
  }
};

const CudaFp16Amp kCheck;

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    std::string("CUDA automatic mixed precision: `torch.autocast(\"cuda\")` and `torch.amp.autocast(device_type="
                "\"cuda\")`, `torch.amp.GradScaler(\"cuda\")` (or with no device, which means CUDA), and, from "
                "`checks/data/torch_cuda_apis.tsv`: ") +
    pa::torch_cuda_api_list("TPU409") + ".";

}  // namespace

extern const CheckDef TPU409_cuda_fp16_amp{
    .info = {
        .id = "TPU409",
        .name = "cuda-fp16-amp",
        .summary = "CUDA mixed precision (torch.cuda.amp, autocast(\"cuda\"), fp16 GradScaler): use bf16 autocast on "
                   "the XLA device",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = kWhat,
            .why = "Autocast and the gradient scaler are bound to a device type. On a TPU host, where CUDA is "
                   "absent, `autocast(\"cuda\")` warns and disables itself, so the model silently trains in "
                   "float32 at a fraction of the TPU's bfloat16 throughput; the scaler disables itself too. TPUs "
                   "use bfloat16, whose float32-sized exponent makes loss scaling unnecessary.",
            .example = "scaler = torch.cuda.amp.GradScaler()\nwith torch.autocast(\"cuda\", dtype=torch.float16):\n"
                       "    loss = model(x)\nscaler.scale(loss).backward()",
            .use_instead = "`with torch.autocast(\"xla\", dtype=torch.bfloat16):` around the forward pass and loss, "
                           "then a plain `loss.backward()` and `optimizer.step()` (or `xm.optimizer_step`), with no "
                           "scaler; `torch_xla.amp.syncfree` optimizers avoid a host sync per step.",
            .effort = "Low: 0.25-1 h per site to switch the device type and dtype and delete the scaler calls.",
            .heuristic = "A device type held in a variable (`torch.autocast(device_type=device_type)`) is not "
                         "reported here: it follows the device the program chose, which TPU401 reports where it "
                         "is a CUDA literal, and TPU417 where it is a choice between \"cuda\" and \"cpu\" "
                         "(`device_type = \"cuda\" if \"cuda\" in device else \"cpu\"`), which an XLA device "
                         "turns into \"cpu\".",
            .references = {"https://docs.pytorch.org/xla/master/perf/amp.html",
                           "https://docs.pytorch.org/docs/stable/amp.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
