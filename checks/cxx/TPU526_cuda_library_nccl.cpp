// TPU526: the CUDA library NCCL, by its headers and its API.
// User docs: docs/checks/TPU526.md (generated from the CheckInfo below).
#include "checks/cxx/cuda_library_check.h"

namespace tpulint::checks {

namespace {

const CudaLibraryCheck kCheck{"nccl"};

}  // namespace

extern const CheckDef TPU526_cuda_library_nccl{
    .info = {
        .id = "TPU526",
        .name = "cuda-library-nccl",
        .summary = "NCCL, a CUDA-only library (by #include and by API use)",
        .languages = Language::Cuda | Language::Cxx,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {4, 16},
        .doc = {
            .what = "NCCL: `#include <nccl.h>`, calls such as `ncclCommInitRank`, `ncclAllReduce`, `ncclBroadcast`, `ncclGroupStart`.",
            .why = "NCCL is NVIDIA's collective-communication library over NVLink/InfiniBand between GPUs. TPU chips communicate through XLA collectives over their ICI links; communicators, unique IDs and streams do not exist there.",
            .example = "ncclCommInitRank(&comm, world_size, id, rank);\nncclAllReduce(sendbuf, recvbuf, count, ncclFloat, ncclSum, comm, stream);",
            .use_instead = "XLA collectives: `xm.all_reduce`/`all_gather`/`reduce_scatter` (torch_xla), `torch.distributed` with the `xla` backend, `jax.lax.psum`/`all_gather` under `shard_map`, or SPMD sharding that lets XLA insert the collectives.",
            .effort = "Medium: 4-16 h where the library comes in (the communicator setup and the overlap with compute are redesigned); 15 min-1 h per further call.",
            .heuristic = kCudaLibraryHeuristic,
            .references = {"https://docs.pytorch.org/xla/master/learn/pjrt.html", "https://docs.jax.dev/en/latest/notebooks/shard_map.html"},
        },
    },
    .native = &kCheck,
};

}  // namespace tpulint::checks
