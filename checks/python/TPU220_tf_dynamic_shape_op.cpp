// TPU220: a TensorFlow op with a data-dependent output size and no TPU kernel (tf.unique,
// tf.dynamic_partition, tf.image.non_max_suppression, ...) in model code. Docs: docs/checks/TPU220.md.
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/frameworks/tf.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;

struct TfOp {
  std::string_view name;  // under `tf`, without compat.v1
  std::string_view hint;
};

constexpr std::array<TfOp, 8> kOps = {{
    {"bincount", "pass 'minlength=' and 'maxlength=' equal to the number of bins, or use "
                 "'tf.math.unsorted_segment_sum(tf.ones_like(x), x, num_segments=K)'"},
    {"dynamic_partition", "use 'tf.math.unsorted_segment_*' with a static 'num_segments', or masks"},
    {"image.non_max_suppression", "use 'tf.image.non_max_suppression_padded(..., pad_to_max_output_size=True)'"},
    {"image.non_max_suppression_with_scores",
     "use 'tf.image.non_max_suppression_padded(..., pad_to_max_output_size=True)'"},
    {"math.bincount", "pass 'minlength=' and 'maxlength=' equal to the number of bins, or use "
                      "'tf.math.unsorted_segment_sum(tf.ones_like(x), x, num_segments=K)'"},
    {"setdiff1d", "compare against the other set with a fixed-size mask ('tf.reduce_any(x[:, None] == y, 1)')"},
    {"unique", "compute the vocabulary in the input pipeline, or count into a fixed number of bins "
               "('tf.math.unsorted_segment_sum' with a static 'num_segments')"},
    {"unique_with_counts", "compute the vocabulary in the input pipeline, or count into a fixed number of bins "
                           "('tf.math.unsorted_segment_sum' with a static 'num_segments')"},
}};

class TfDynamicShapeOp final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = python::last_name_parts(kOps, &TfOp::name);
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    std::string name = dyn::tf_op_name(call, ctx);
    if (name.empty()) return;
    const TfOp* op = nullptr;
    for (const TfOp& o : kOps)
      if (o.name == name) op = &o;
    if (!op) return;
    if (name.ends_with("bincount")) {
      auto args = python::call_arguments(call);
      if (args.keyword("minlength") && args.keyword("maxlength")) return;
    }
    if (!tf::in_model_code(call, ctx)) return;
    std::string subject = "tf." + name;
    ctx.report(call,
               fmt::format("'{}' in TPU model code has a data-dependent output size, which a TPU program cannot have", subject),
               std::string(op->hint), subject);
  }
};

const TfDynamicShapeOp kCheck;

}  // namespace

extern const CheckDef TPU220_tf_dynamic_shape_op{
    .info = {
        .id = "TPU220",
        .name = "tf-dynamic-shape-op",
        .summary = "TensorFlow op with a data-dependent output size (tf.unique, dynamic_partition, "
                   "non_max_suppression, bincount) in model code",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Error,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .device_code_only = true,
        .doc = {
            .what = "Calls of `tf.unique`, `tf.unique_with_counts`, `tf.dynamic_partition`, "
                    "`tf.compat.v1.setdiff1d`, `tf.image.non_max_suppression(_with_scores)` and "
                    "`tf.math.bincount` (unless both `minlength` and `maxlength` are given) in TensorFlow "
                    "model code: a `tf.function`, the `call` (or `train_step`) of a Keras layer or model "
                    "subclass, an Estimator `model_fn`, or a helper they call. The same calls in eager code or a `tf.data` pipeline run on the "
                    "host CPU and are not reported.",
            .why = "A TPU runs the model as one XLA program with static shapes. These ops return as many "
                   "elements as the data holds, and the Cloud TPU list of TensorFlow ops marks `unique`, "
                   "`dynamic_partition` and `setdiff1d` unavailable: the step fails to compile for the TPU.",
            .example = "@tf.function\ndef step(ids):\n    vocab, idx = tf.unique(ids)\n    ...",
            .use_instead = "Count into a static number of buckets with `tf.math.unsorted_segment_sum(..., "
                           "num_segments=K)`, use `tf.image.non_max_suppression_padded(..., "
                           "pad_to_max_output_size=True)`, or move the op into the `tf.data` pipeline, which "
                           "runs on the host.",
            .effort = "Medium: 1-4 h, since the code after the op has to work with a padded, fixed size.",
            .heuristic = "Model code is recognised by the `tf.function` decorator, the name `model_fn`/"
                         "`*_model_fn`, a loss or step function by name (the `hot_function` rows of "
                         "checks/data/python_code_roles.tsv: `*_loss`, `compute_loss`, `train_step`; Keras "
                         "compiles the loss given to `model.compile` into its train step), or the names `call`, `__call__`, `train_step`, `test_step` and "
                         "`predict_step` in a class deriving from a Keras layer or model; functions nested in "
                         "those, and functions of the same file they call by name, are model code too. A "
                         "helper two calls away, or in another file, is missed; a helper also called from "
                         "eager code is reported.",
            .references = {"https://docs.cloud.google.com/tpu/docs/tensorflow-ops",
                           "https://www.tensorflow.org/guide/tpu"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
