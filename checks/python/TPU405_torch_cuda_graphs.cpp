// TPU405: CUDA graph capture (torch.cuda.CUDAGraph, torch.cuda.graph, make_graphed_callables).
// User docs: docs/checks/TPU405.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU40x_torch_cuda_api_table.h"

namespace tpulint::checks {

namespace {

namespace pa = pyapi;

const pa::TorchCudaApiCheck kCheck{"TPU405"};

// The documented API list comes from the same table the check reads.
const std::string kWhat =
    pa::torch_cuda_what("CUDA graph capture and replay", "TPU405");

}  // namespace

extern const CheckDef TPU405_torch_cuda_graphs{
    .info = {
        .id = "TPU405",
        .name = "torch-cuda-graphs",
        .summary = "CUDA graph capture (torch.cuda.CUDAGraph, torch.cuda.graph, make_graphed_callables)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = kWhat,
            .why = "CUDA graphs record a sequence of CUDA kernel launches to replay it with one launch; without CUDA "
                   "the classes cannot be built. XLA already does what they are for: it compiles the whole step into "
                   "one program, caches it, and runs it with one dispatch.",
            .example = "g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    static_out = model(static_in)",
            .use_instead = "Remove the capture and the static input/output buffers: run the step directly on the XLA "
                           "device (or under `torch.compile(backend=\"openxla\")`), and keep input shapes fixed so "
                           "the compiled graph is reused.",
            .effort = "Medium: 1-4 h, since capture code usually comes with static buffers and a replay path to "
                      "unwind.",
            .heuristic = "A call guarded by an enclosing `if torch.cuda.is_available():` (or another CUDA test) is "
                         "skipped on a TPU host and is reported as a warning that says so.",
            .references = {"https://docs.pytorch.org/docs/stable/notes/cuda.html#cuda-graphs",
                           "https://docs.pytorch.org/xla/master/perf/dynamo.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
