// TPU308: TensorFlow string ops (tf.strings.*, tf.as_string, tf.string tensors) inside model code.
// User docs: docs/checks/TPU308.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Node;
namespace pa = pyapi;

bool is_string_api(std::string_view q) {
  for (std::string_view prefix : {"tensorflow.strings.", "tensorflow.compat.v1.strings."})
    if (q.starts_with(prefix)) return true;
  return q == "tensorflow.string" || q == "tensorflow.as_string" || q == "tensorflow.substr" ||
         q == "tensorflow.regex_replace" || q == "tensorflow.string_split" || q == "tensorflow.string_join" ||
         q == "tensorflow.string_to_number" || q == "tensorflow.string_to_hash_bucket" ||
         q == "tensorflow.string_to_hash_bucket_fast" || q == "tensorflow.string_to_hash_bucket_strong" ||
         q == "tensorflow.compat.v1.string_split" || q == "tensorflow.compat.v1.substr";
}

class TfStringOpsInModel final : public pa::ReferenceCheck {
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (!is_string_api(q) || pa::in_test(n, ctx) || !pa::in_tf_model_code(ctx)) return std::nullopt;
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
        .doc = {
            .what = "`tf.strings.*`, `tf.as_string`, `tf.substr`, `tf.regex_replace`, the TF1 `tf.string_*` "
                    "functions and the `tf.string` dtype, inside model code: a `tf.function`, the `call` method of "
                    "a Keras layer or model, or a TF1 Estimator `model_fn`.",
            .why = "TPUs have no string type: the Cloud TPU list of TensorFlow ops marks the string ops unavailable, "
                   "and a TPU program that holds a string tensor fails to compile. In the `tf.data` input pipeline, "
                   "which runs on the host, string ops are fine and are not reported.",
            .example = "class Tokenize(tf.keras.layers.Layer):\n    def call(self, text):\n"
                       "        return tf.strings.to_hash_bucket_fast(tf.strings.split(text), 30000)",
            .use_instead = "Tokenize and hash in the input pipeline (`dataset.map(...)`) and feed integer ids to the "
                           "model; or run the string step on the host with `tf.tpu.outside_compilation`.",
            .effort = "Medium: 1-4 h to move the string processing into the input pipeline.",
            .heuristic = "Model code is recognized lexically, as for TPU307: a `tf.function`, a Keras `call`/"
                         "`__call__`, a `model_fn`, and functions nested in those. String ops in a helper called "
                         "from model code are not reported; a `tf.function` used only for preprocessing is "
                         "reported although it runs on the host.",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops",
                           "https://www.tensorflow.org/guide/tpu"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
