// TPU407: torch.cuda random-number seeding and state, which do not reach the TPU's generator.
// User docs: docs/checks/TPU407.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU407"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("Calls of the `torch.cuda` random-number functions", "TPU407");

}  // namespace

extern const CheckDef TPU407_torch_cuda_rng{
    .info = {
        .id = "TPU407",
        .name = "torch-cuda-rng",
        .summary = "torch.cuda random-number seeding and state (manual_seed_all, get_rng_state, ...): no effect on "
                   "the TPU's RNG",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.25},
        .doc = {
            .what = kWhat,
            .why = "The CUDA seeding calls are queued until CUDA initializes, which never happens on a TPU host: "
                   "they do nothing, and the state getters raise. The XLA device has its own random-number "
                   "generator, which `torch.cuda.manual_seed*` does not touch, so runs are not reproducible on the "
                   "TPU as they were on the GPU.",
            .example = "torch.manual_seed(seed)\ntorch.cuda.manual_seed_all(seed)",
            .use_instead = "`torch_xla.manual_seed(seed)` seeds the XLA device's generator; `xm.get_rng_state()` and "
                           "`xm.set_rng_state(seed)` (`torch_xla.core.xla_model`) read and set it.",
            .effort = "Low: one line.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or another CUDA test) is "
                         "skipped on a TPU host and is reported as a warning that says so.",
            .references = {"https://github.com/pytorch/xla/blob/master/torch_xla/torch_xla.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
