// TPU610: a training tf.data `.batch()` without drop_remainder=True: the batch dimension is dynamic.
// User docs: docs/checks/TPU610.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// True when `call` sits in the evaluation branch of a test of a training flag: the `else` of
// `if train:` / `if is_training:`, or the body of `if not training:`.
bool in_eval_branch(Node call, const python::PythonContext& ctx) {
  Node child = call;
  for (Node p = call.parent(); p && p.kind() != Kind::FunctionDefinition; child = p, p = p.parent()) {
    if (p.kind() != Kind::IfStatement) continue;
    Node cond = p.field(Field::Condition);
    if (!cond || !step::says_train(cond.text())) continue;
    bool negated = cond.kind() == Kind::NotOperator;
    if (child.kind() == Kind::ElseClause && !negated) return true;
    if (child == p.field(Field::Consequence) && negated) return true;
  }
  return false;
}

class TfDataBatchNoDropRemainder final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"batch", "padded_batch"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    if (!step::is_tf_data_batch(call, ctx) || step::in_unit_test(ctx) || in_eval_branch(call, ctx)) return;
    auto args = python::call_arguments(call);
    bool padded = call.field(Field::Function).field(Field::Attribute).text() == "padded_batch";
    // batch(batch_size, drop_remainder), padded_batch(batch_size, padded_shapes, padding_values, drop_remainder)
    Node drop = pyapi::argument(args, padded ? 3 : 1, "drop_remainder");
    if (drop && pyapi::bool_literal(drop) != false) return;
    if (!drop && args.has_splat) return;
    // Training input: shuffled, or built by a function or into a name that says so.
    Node receiver = call.field(Field::Function).field(Field::Object);
    const python::Frame* fn = ctx.enclosing_function();
    // The statement the chain ends in: `train_ds = base.batch(n).prefetch(2)`.
    Node parent = call.parent();
    while (parent && (parent.kind() == Kind::Attribute || parent.kind() == Kind::Call)) parent = parent.parent();
    bool training = step::chain_calls_method(receiver, "shuffle", ctx) ||
                    (fn && step::says_train(fn->node.field(Field::Name).text())) ||
                    (parent && parent.kind() == Kind::Assignment && step::says_train(parent.field(Field::Left).text()));
    if (!training) return;
    ctx.report(pyapi::from_method_name(call),
               "training tf.data batches without 'drop_remainder=True' have a dynamic batch dimension, and the "
               "last batch a smaller one",
               "pass 'drop_remainder=True'", "tf.data.Dataset.batch");
  }
};

const TfDataBatchNoDropRemainder kCheck;

}  // namespace

extern const CheckDef TPU610_tf_data_batch_no_drop_remainder{
    .info = {
        .id = "TPU610",
        .name = "tf-data-batch-no-drop-remainder",
        .summary = "training tf.data '.batch()' without 'drop_remainder=True': a dynamic batch dimension on TPU",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.5},
        .doc = {
            .what = "Calls of `.batch(...)` or `.padded_batch(...)` on a `tf.data` dataset (recognized as for "
                    "TPU608) without `drop_remainder=True`, when the pipeline is for training: the chain "
                    "shuffles (`.shuffle(...)`, directly or through the names it was built from), or the "
                    "function or the assigned name contains `train`.",
            .why = "XLA compiles TPU programs for static shapes. Without `drop_remainder=True` the dataset's "
                   "batch dimension is unknown (`None`), and the last batch of an epoch is smaller: TPUStrategy "
                   "and Keras `fit` on a TPU then pad, recompile for the odd batch, or reject the dataset, and "
                   "the replicas of a data-parallel step disagree on the batch size.",
            .example = "ds = tf.data.TFRecordDataset(files).shuffle(10_000).batch(1024).prefetch(2)",
            .use_instead = "`.batch(1024, drop_remainder=True)` for training. For evaluation, where every sample "
                           "counts, pad the last batch and mask it, or evaluate it on the host.",
            .effort = "Low: one argument.",
            .heuristic = "Evaluation pipelines (no shuffle, no `train` in the names, the `else` of "
                         "`if train:`) and unit tests (as in TPU608: files named `test_*.py` or `*_test.py` or under "
                         "`tests/`, functions named `test_*`, classes named `Test*`) are not reported, since dropping "
                         "samples would change their metrics. The shuffle is looked for in every assignment of "
                         "the names the chain starts from, whatever branch it is in. A `drop_remainder` value "
                         "other than the "
                         "literal `False` is trusted.",
            .references = {"https://www.tensorflow.org/api_docs/python/tf/data/Dataset#batch",
                           "https://www.tensorflow.org/guide/tpu"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
