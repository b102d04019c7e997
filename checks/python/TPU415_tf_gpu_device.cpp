// TPU415: TensorFlow code that selects or looks for GPUs (tf.device("/GPU:0"), list_physical_devices("GPU")).
// User docs: docs/checks/TPU415.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
namespace pa = pyapi;

// "/GPU:0", "/device:GPU:1", "gpu:0", "/job:worker/replica:0/task:0/device:GPU:0".
bool names_gpu_device(Node n) {
  auto s = pa::string_literal(n);
  if (!s) return false;
  std::string v = pa::ascii_lower(*s);
  return v == "gpu" || v.starts_with("gpu:") || v.find("/gpu:") != std::string::npos ||
         v.find("device:gpu") != std::string::npos;
}

constexpr std::string_view kTpuSetup =
    "connect to the TPU ('tf.distribute.cluster_resolver.TPUClusterResolver', "
    "'tf.tpu.experimental.initialize_tpu_system') and place work with 'tf.distribute.TPUStrategy'";

// The calls it looks at, in the order of match's cases.
constexpr std::array<std::string_view, 9> kDeviceApis = {
    "tensorflow.device",
    "tensorflow.test.is_gpu_available",
    "tensorflow.test.gpu_device_name",
    "tensorflow.config.list_physical_devices",
    "tensorflow.config.list_logical_devices",
    "tensorflow.config.experimental.list_physical_devices",
    "tensorflow.config.experimental.list_logical_devices",
    "tensorflow.config.set_visible_devices",
    "tensorflow.config.experimental.set_visible_devices",
};

class TfGpuDevice final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override { return kDeviceApis; }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (!q.starts_with("tensorflow.")) return std::nullopt;
    Node call = pa::call_of(n, ctx);
    if (!call) return std::nullopt;
    python::CallArguments args = python::call_arguments(call);
    if (q == "tensorflow.device") {
      if (!names_gpu_device(pa::argument(args, 0, "device_name"))) return std::nullopt;
      return Match{"'tf.device' pins this code to a GPU, which a TPU host does not have: TensorFlow places it on "
                   "the CPU",
                   std::string(kTpuSetup)};
    }
    if (q == "tensorflow.test.is_gpu_available" || q == "tensorflow.test.gpu_device_name")
      return Match{fmt::format("'{}' finds no GPU on a TPU host", q), std::string(kTpuSetup), true, Severity::Warning};
    bool list = q == "tensorflow.config.list_physical_devices" || q == "tensorflow.config.list_logical_devices" ||
                q == "tensorflow.config.experimental.list_physical_devices" ||
                q == "tensorflow.config.experimental.list_logical_devices";
    if (list && names_gpu_device(pa::argument(args, 0, "device_type")))
      return Match{fmt::format("'{}(\"GPU\")' finds no device on a TPU host: code that relies on it runs on the CPU",
                               q),
                   "look for the TPU instead: 'tf.config.list_logical_devices(\"TPU\")' after connecting with "
                   "'TPUClusterResolver'",
                   true, Severity::Warning};
    // Selecting GPUs, not hiding them: set_visible_devices([], "GPU") keeps TensorFlow off the GPUs.
    bool visible = q == "tensorflow.config.set_visible_devices" ||
                   q == "tensorflow.config.experimental.set_visible_devices";
    if (visible && names_gpu_device(pa::argument(args, 1, "device_type"))) {
      Node devices = pa::argument(args, 0, "devices");
      if (!devices || (devices.kind() == Kind::List && devices.named_child_count() == 0)) return std::nullopt;
      return Match{fmt::format("'{}' selects GPUs, which a TPU host does not have", q), std::string(kTpuSetup)};
    }
    return std::nullopt;
  }
};

const TfGpuDevice kCheck;

}  // namespace

extern const CheckDef TPU415_tf_gpu_device{
    .info = {
        .id = "TPU415",
        .name = "tf-gpu-device",
        .summary =
            "TensorFlow code that pins or looks for GPUs (tf.device(\"/GPU:0\"), list_physical_devices(\"GPU\"))",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .doc = {
            .what = "`tf.device(\"/GPU:0\")` (any GPU device string), `tf.config.set_visible_devices(gpus, \"GPU\")` "
                    "with GPUs to select, and, as warnings, `tf.config.list_physical_devices(\"GPU\")` (and the "
                    "logical and `experimental` variants), `tf.test.is_gpu_available()` and "
                    "`tf.test.gpu_device_name()`.",
            .why = "A TPU host has no GPU. With soft placement (TensorFlow 2's default) a `tf.device(\"/GPU:0\")` "
                   "block runs on the CPU; without it, it fails. GPU queries return nothing, and the code they "
                   "gate then runs on the CPU: TPUs are used only through a `TPUClusterResolver` and a "
                   "`TPUStrategy`, which GPU code does not set up.",
            .example = "with tf.device(\"/GPU:0\"):\n    logits = model(x)\n"
                       "gpus = tf.config.list_physical_devices(\"GPU\")",
            .use_instead = "`resolver = tf.distribute.cluster_resolver.TPUClusterResolver()`, "
                           "`tf.config.experimental_connect_to_cluster(resolver)`, "
                           "`tf.tpu.experimental.initialize_tpu_system(resolver)`, then build and run the model under "
                           "`tf.distribute.TPUStrategy(resolver).scope()` with no device pins.",
            .effort = "Low: 0.25-1 h per site; the TPUStrategy setup itself is reported by TPU416 where a GPU "
                      "strategy stands.",
            .heuristic = "`tf.config.set_visible_devices([], \"GPU\")`, which hides the GPUs from TensorFlow (common "
                         "in JAX projects that use tf.data), is not reported; `tf.config.experimental."
                         "set_memory_growth` is not reported either (harmless without GPUs).",
            .references = {"https://www.tensorflow.org/guide/tpu", "https://www.tensorflow.org/guide/gpu"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
