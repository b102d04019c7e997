// TPU307: tf.py_function / tf.numpy_function inside TensorFlow model code compiled for the TPU.
// User docs: docs/checks/TPU307.md (generated from the CheckInfo below).
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

constexpr std::array<std::string_view, 6> kHostFunctions = {
    "tensorflow.py_function",         "tensorflow.numpy_function",         "tensorflow.py_func",
    "tensorflow.compat.v1.py_func",   "tensorflow.compat.v1.py_function",  "tensorflow.compat.v1.numpy_function"};

bool is_host_function(std::string_view q) {
  return std::find(kHostFunctions.begin(), kHostFunctions.end(), q) != kHostFunctions.end();
}

class TfHostPythonFunction final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override { return kHostFunctions; }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (!is_host_function(q) || !pa::call_of(n, ctx) || !tf::in_model_code(n, ctx)) return std::nullopt;
    return Match{fmt::format("'{}' runs Python on the host, which the TPU compiler cannot place in a TPU program", q),
                 "rewrite it with TensorFlow ops, move it into the tf.data input pipeline (which runs on the host), "
                 "or wrap it in 'tf.tpu.outside_compilation'"};
  }
};

const TfHostPythonFunction kCheck;

}  // namespace

extern const CheckDef TPU307_tf_host_python_function{
    .info = {
        .id = "TPU307",
        .name = "tf-host-python-function",
        .summary = "tf.py_function / tf.numpy_function inside TensorFlow model code compiled for the TPU",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `tf.py_function`, `tf.numpy_function` and `tf.compat.v1.py_func` inside model code: "
                    "a `tf.function`, the `call` (or `train_step`) of a Keras layer or model, a TF1 Estimator "
                    "`model_fn`, or a helper they call.",
            .why = "These ops call back into the Python interpreter. XLA has no kernel for them (`EagerPyFunc`, "
                   "`PyFunc`), so a model step that contains one cannot be compiled for the TPU; the Cloud TPU "
                   "list of TensorFlow ops lists `tf.py_func` as unavailable.",
            .example = "@tf.function\ndef train_step(x):\n    y = tf.numpy_function(np.sort, [x], tf.float32)",
            .use_instead = "Rewrite the function with TensorFlow ops; or do the work in the `tf.data` input "
                           "pipeline, which runs on the host CPU (there `py_function` is fine); or wrap the call in "
                           "`tf.tpu.outside_compilation(fn, ...)` to run it on the host from inside the TPU step.",
            .effort = "Medium: 1-4 h to rewrite the Python function as TF ops or move it to the input pipeline.",
            .heuristic = "Model code as in TPU220 (including same-file helpers called from it by name). A "
                         "`py_function` in a `tf.function` used only by `Dataset.map` is reported although it "
                         "runs on the host (false positive).",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops",
                           "https://www.tensorflow.org/api_docs/python/tf/compat/v1/tpu/outside_compilation"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
