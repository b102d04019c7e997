// TPU222: `tf.boolean_mask` in TensorFlow model code, whose output length is the mask's count.
// User docs: docs/checks/TPU222.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/frameworks/tf.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

class TfBooleanMask final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"boolean_mask"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    if (dyn::tf_op_name(call, ctx) != "boolean_mask" || !tf::in_model_code(call, ctx)) return;
    ctx.report(call, "'tf.boolean_mask' in TPU model code has a data-dependent output length",
               "keep the shape: 'tf.where(mask, x, tf.zeros_like(x))', or multiply by the mask and reduce",
               "tf.boolean_mask");
  }
};

const TfBooleanMask kCheck;

}  // namespace

extern const CheckDef TPU222_tf_boolean_mask{
    .info = {
        .id = "TPU222",
        .name = "tf-boolean-mask",
        .summary = "tf.boolean_mask in TensorFlow model code",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {0.5, 3},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `tf.boolean_mask` (and `tf.compat.v1.boolean_mask`) in TensorFlow model code: "
                    "a `tf.function`, the `call` (or `train_step`) of a Keras layer or model subclass, an "
                    "Estimator `model_fn`, or a helper they call. In eager code or a `tf.data` pipeline it runs on the host and is not "
                    "reported.",
            .why = "`tf.boolean_mask(x, m)` keeps `reduce_sum(m)` elements: its output shape is known only "
                   "from the values. It is built on the one-argument `tf.where` and a gather, which have no "
                   "static shape, so the TPU program cannot be compiled for a fixed shape.",
            .example = "def call(self, x, mask):\n    tokens = tf.boolean_mask(x, mask)\n"
                       "    return tf.reduce_mean(tokens, axis=0)",
            .use_instead = "Keep every element and carry the mask: "
                           "`m = tf.cast(mask, x.dtype)[..., None]; tf.reduce_sum(x * m, 0) / tf.reduce_sum(m)`, "
                           "or `tf.where(mask[..., None], x, 0.0)`.",
            .effort = "Medium: 0.5-3 h, since the code after the mask must work on the full tensor.",
            .heuristic = "Model code as in TPU220 (including same-file helpers called from it by name). "
                         "`tf.ragged.boolean_mask` is not reported (ragged tensors are their own problem on "
                         "TPUs).",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops",
                           "https://www.tensorflow.org/api_docs/python/tf/boolean_mask",
                           "https://www.tensorflow.org/guide/tpu"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
