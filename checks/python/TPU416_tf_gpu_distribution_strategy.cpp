// TPU416: TensorFlow GPU distribution strategies (MirroredStrategy, NCCL all-reduce): use TPUStrategy.
// User docs: docs/checks/TPU416.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Node;
namespace pa = pyapi;

constexpr std::array<std::string_view, 10> kGpuStrategies = {
    "tensorflow.compat.v1.distribute.MirroredStrategy",
    "tensorflow.contrib.distribute.MirroredStrategy",
    "tensorflow.distribute.HierarchicalCopyAllReduce",
    "tensorflow.distribute.MirroredStrategy",
    "tensorflow.distribute.MultiWorkerMirroredStrategy",
    "tensorflow.distribute.NcclAllReduce",
    "tensorflow.distribute.experimental.CentralStorageStrategy",
    "tensorflow.distribute.experimental.CollectiveCommunication.NCCL",
    "tensorflow.distribute.experimental.CommunicationImplementation.NCCL",
    "tensorflow.distribute.experimental.MultiWorkerMirroredStrategy",
};

class TfGpuDistributionStrategy final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override { return kGpuStrategies; }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (std::find(kGpuStrategies.begin(), kGpuStrategies.end(), q) == kGpuStrategies.end() || pa::in_test(n, ctx))
      return std::nullopt;
    return Match{fmt::format("'{}' distributes over GPUs: on a TPU host it runs on the CPU", q),
                 "use 'tf.distribute.TPUStrategy(resolver)' with a 'TPUClusterResolver'"};
  }
};

const TfGpuDistributionStrategy kCheck;

}  // namespace

extern const CheckDef TPU416_tf_gpu_distribution_strategy{
    .info = {
        .id = "TPU416",
        .name = "tf-gpu-distribution-strategy",
        .summary = "TensorFlow GPU distribution strategies (MirroredStrategy, NcclAllReduce): use TPUStrategy",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "`tf.distribute.MirroredStrategy`, `MultiWorkerMirroredStrategy`, "
                    "`experimental.CentralStorageStrategy`, the NCCL cross-device ops (`NcclAllReduce`, "
                    "`HierarchicalCopyAllReduce`, `CommunicationImplementation.NCCL`), and the TF1 "
                    "`tf.contrib.distribute.MirroredStrategy`.",
            .why = "These strategies replicate the model over the visible GPUs and all-reduce with NCCL. A TPU host "
                   "has no GPU: the strategy falls back to one CPU replica, and the TPU is never used. TPUs are "
                   "driven by `TPUStrategy`, which compiles the step for the TPU cores.",
            .example = "strategy = tf.distribute.MirroredStrategy()\nwith strategy.scope():\n    model = build()",
            .use_instead = "`resolver = tf.distribute.cluster_resolver.TPUClusterResolver()`, "
                           "`tf.config.experimental_connect_to_cluster(resolver)`, "
                           "`tf.tpu.experimental.initialize_tpu_system(resolver)`, "
                           "`strategy = tf.distribute.TPUStrategy(resolver)`; keep batches static "
                           "(`drop_remainder=True`) and run the step as a `tf.function` through `strategy.run`.",
            .effort = "Medium: 1-4 h, for the strategy, its setup and a static-shape input pipeline.",
            .heuristic = "",
            .references = {"https://www.tensorflow.org/guide/tpu",
                           "https://www.tensorflow.org/api_docs/python/tf/distribute/TPUStrategy"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
