// TPU408: torch.backends.cuda / cudnn precision flags (allow_tf32), which do nothing on a TPU.
// User docs: docs/checks/TPU408.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU408"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("The `torch.backends.cuda` and `torch.backends.cudnn` settings that change numerics", "TPU408");

}  // namespace

extern const CheckDef TPU408_cuda_backend_flags{
    .info = {
        .id = "TPU408",
        .name = "cuda-backend-flags",
        .summary = "torch.backends.cuda / cudnn precision flags (allow_tf32): no effect on a TPU, whose matmul "
                   "precision is set elsewhere",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = kWhat,
            .why = "`allow_tf32` picks the precision of float32 matmuls and convolutions on NVIDIA GPUs. On a TPU it "
                   "does nothing: float32 matmuls run as bfloat16 passes chosen by the XLA precision setting, whose "
                   "default (one pass) is less precise than TF32. A script that relied on `allow_tf32 = False` for "
                   "full float32, or on TF32, silently gets bfloat16 products.",
            .example = "torch.backends.cuda.matmul.allow_tf32 = True\ntorch.backends.cudnn.allow_tf32 = True",
            .use_instead = "`torch_xla.backends.set_mat_mul_precision(\"high\")` (three bfloat16 passes, about TF32) "
                           "or `\"highest\"` (six passes, about float32); `\"default\"` is one pass.",
            .effort = "Low: one line.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or another CUDA test) is "
                         "skipped on a TPU host and is reported as a warning that says so.",
            .references = {"https://github.com/pytorch/xla/blob/master/docs/source/tutorials/precision_tutorial.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
