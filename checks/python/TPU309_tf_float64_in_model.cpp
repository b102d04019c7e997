// TPU309: 64-bit floats (tf.float64, tf.double, tf.complex128, tf.to_double) inside TensorFlow model code.
// User docs: docs/checks/TPU309.md (generated from the CheckInfo below).
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

constexpr std::array<std::string_view, 7> kFloat64Names = {
    "tensorflow.float64",        "tensorflow.double",          "tensorflow.complex128",
    "tensorflow.to_double",      "tensorflow.compat.v1.to_double", "tensorflow.dtypes.float64",
    "tensorflow.dtypes.complex128"};

bool is_tf_float64(std::string_view q) {
  return std::find(kFloat64Names.begin(), kFloat64Names.end(), q) != kFloat64Names.end();
}

class TfFloat64InModel final : public pa::ReferenceCheck {
  std::span<const std::string_view> reference_names() const override { return kFloat64Names; }
  std::optional<Match> match(const std::string& q, Node n, python::PythonContext& ctx) const override {
    if (!is_tf_float64(q) || pa::in_test(n, ctx) || pa::in_dict_entry(n, ctx) || !tf::in_model_code(n, ctx))
      return std::nullopt;
    return Match{fmt::format("'{}' in model code: TPU kernels have no 64-bit floats, so the op cannot be placed on "
                             "the TPU",
                             q),
                 "use 'tf.float32' (or bfloat16) in the model and keep float64 in the input pipeline or on the host",
                 /*at_call=*/q.ends_with("to_double")};
  }
};

const TfFloat64InModel kCheck;

}  // namespace

extern const CheckDef TPU309_tf_float64_in_model{
    .info = {
        .id = "TPU309",
        .name = "tf-float64-in-model",
        .summary = "64-bit floats (tf.float64, tf.double, tf.complex128, tf.to_double) inside TensorFlow model code",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Error,
        .effort = EffortClass::Low,
        .hours = {0.25, 1},
        .device_code_only = true,
        .doc = {
            .what = "`tf.float64`, `tf.double`, `tf.complex128` and `tf.to_double` inside model code: a "
                    "`tf.function`, the `call` (or `train_step`) of a Keras layer or model, a TF1 Estimator "
                    "`model_fn`, or a helper they call.",
            .why = "No TensorFlow TPU kernel accepts float64 or complex128 (none of the type constraints in the "
                   "Cloud TPU op list include them, and `tf.to_double` is listed unavailable): an op on 64-bit "
                   "floats in a TPU step cannot be placed on the TPU.",
            .example = "def model_fn(features, labels, mode, params):\n"
                       "    weights = tf.cast(features[\"weights\"], tf.float64)",
            .use_instead = "Use `tf.float32` (or `tf.bfloat16` with the `mixed_bfloat16` Keras policy) in the model. "
                           "Cast input features to float32 in the input pipeline.",
            .effort = "Low: 0.25-1 h to change a dtype and check the numerics.",
            .heuristic = "Model code as in TPU220. Comparisons (`x.dtype == tf.float64`) "
                         "and dict entries are not reported; float64 in the input pipeline is not reported.",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
