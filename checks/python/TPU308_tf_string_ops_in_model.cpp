// TPU308: TensorFlow string ops (tf.strings.*, tf.as_string, tf.string tensors) inside model code.
// User docs: docs/checks/TPU308.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/frameworks/tf.h"

namespace tpulint::checks {

namespace {

using python::Node;
namespace pa = pyapi;

// The string modules (the first two: everything in them) and the string ops outside them.
constexpr std::array<std::string_view, 14> kStringApis = {
    "tensorflow.strings",
    "tensorflow.compat.v1.strings",
    "tensorflow.string",
    "tensorflow.as_string",
    "tensorflow.substr",
    "tensorflow.regex_replace",
    "tensorflow.string_split",
    "tensorflow.string_join",
    "tensorflow.string_to_number",
    "tensorflow.string_to_hash_bucket",
    "tensorflow.string_to_hash_bucket_fast",
    "tensorflow.string_to_hash_bucket_strong",
    "tensorflow.compat.v1.string_split",
    "tensorflow.compat.v1.substr",
};

bool is_string_api(std::string_view q) {
  for (size_t i = 0; i < 2; ++i)
    if (python::has_module_prefix(q, kStringApis[i]) && q != kStringApis[i]) return true;
  return std::find(kStringApis.begin() + 2, kStringApis.end(), q) != kStringApis.end();
}

class TfStringOpsInModel final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override { return kStringApis; }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (!is_string_api(q) || pa::in_test(n, ctx) || !tf::in_model_code(n, ctx)) return std::nullopt;
    return Match{fmt::format("'{}' works on strings, which a TPU cannot hold: model code that uses it cannot be "
                             "compiled for the TPU",
                             q),
                 "turn strings into numbers in the tf.data input pipeline (on the host) and feed ids to the model, "
                 "or wrap the string step in 'tf.tpu.outside_compilation'"};
  }
};

const TfStringOpsInModel kCheck;

}  // namespace

extern const CheckDef TPU308_tf_string_ops_in_model{
    .info = {
        .id = "TPU308",
        .name = "tf-string-ops-in-model",
        .summary = "TensorFlow string ops (tf.strings.*, tf.as_string, tf.string tensors) inside model code",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "`tf.strings.*`, `tf.as_string`, `tf.substr`, `tf.regex_replace`, the TF1 `tf.string_*` "
                    "functions and the `tf.string` dtype, inside model code: a `tf.function`, the `call` (or "
                    "`train_step`) of a Keras layer or model, a TF1 Estimator `model_fn`, or a helper they call.",
            .why = "TPUs have no string type: the Cloud TPU list of TensorFlow ops marks the string ops unavailable, "
                   "and a TPU program that holds a string tensor fails to compile. In the `tf.data` input pipeline, "
                   "which runs on the host, string ops are fine and are not reported.",
            .example = "class Tokenize(tf.keras.layers.Layer):\n    def call(self, text):\n"
                       "        return tf.strings.to_hash_bucket_fast(tf.strings.split(text), 30000)",
            .use_instead = "Tokenize and hash in the input pipeline (`dataset.map(...)`) and feed integer ids to the "
                           "model; or run the string step on the host with `tf.tpu.outside_compilation`.",
            .effort = "Medium: 1-4 h to move the string processing into the input pipeline.",
            .heuristic = "Model code as in TPU220 (including same-file helpers called from it by name). A "
                         "`tf.function` used only for preprocessing is reported although it runs on the host.",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops",
                           "https://www.tensorflow.org/guide/tpu"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
