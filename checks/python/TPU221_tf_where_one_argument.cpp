// TPU221: the one-argument `tf.where(cond)`, which returns the coordinates of the true elements,
// in TensorFlow model code. User docs: docs/checks/TPU221.md (generated from the CheckInfo below).
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/frameworks/tf.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

class TfWhereOneArgument final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"where", "where_v2"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    std::string name = dyn::tf_op_name(call, ctx);
    if (name != "where" && name != "where_v2") return;
    auto args = python::call_arguments(call);
    if (args.has_splat || args.positional.size() > 1 || args.keyword("x") || args.keyword("y")) return;
    if (!tf::in_model_code(call, ctx)) return;
    std::string subject = "tf." + name;
    ctx.report(call,
               fmt::format("one-argument '{}' in TPU model code returns the coordinates of the true elements, a "
                           "data-dependent shape",
                           subject),
               "use the three-argument 'tf.where(cond, x, y)' and keep the result as a mask", subject);
  }
};

const TfWhereOneArgument kCheck;

}  // namespace

extern const CheckDef TPU221_tf_where_one_argument{
    .info = {
        .id = "TPU221",
        .name = "tf-where-one-argument",
        .summary = "one-argument tf.where(cond) in TensorFlow model code",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `tf.where` (and `tf.compat.v1.where`, `where_v2`) with only a condition, in "
                    "TensorFlow model code: a `tf.function`, the `call` (or `train_step`) of a Keras layer or "
                    "model subclass, an Estimator `model_fn`, or a helper they call. The three-argument `tf.where(cond, x, y)`, and any form in "
                    "eager code or a `tf.data` pipeline, are not reported.",
            .why = "With one argument `tf.where` returns a `[num_true, rank]` tensor of coordinates: its "
                   "size is known only from the values. The Cloud TPU op list has `tf.where` only with both "
                   "`x` and `y`; the one-argument form has no static shape, so the step fails to compile "
                   "for the TPU or is padded and recompiled.",
            .example = "@tf.function\ndef step(scores):\n    idx = tf.where(scores > 0.5)\n"
                       "    return tf.gather_nd(scores, idx)",
            .use_instead = "Select with the three-argument form and keep the mask: "
                           "`tf.where(scores > 0.5, scores, 0.0)`, and reduce with it "
                           "(`tf.reduce_sum(kept) / tf.reduce_sum(tf.cast(scores > 0.5, tf.float32))`).",
            .effort = "Medium: 1-4 h, since the code reading the coordinates usually has to carry a mask.",
            .heuristic = "Model code as in TPU220 (including same-file helpers called from it by name).",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops",
                           "https://www.tensorflow.org/api_docs/python/tf/where"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
