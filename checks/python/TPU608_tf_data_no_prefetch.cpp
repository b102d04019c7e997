// TPU608: a tf.data pipeline batched without `.prefetch(...)` in the same function.
// User docs: docs/checks/TPU608.md (generated from the CheckInfo below).
#include "checks/check_def.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// True when the batched chain is only peeked at: `next(iter(ds.batch(2)))`, `ds.batch(8).take(1)`
// (tests and data inspection, which feed no device).
bool peeked(Node call, const python::PythonContext& ctx) {
  for (Node p = call.parent(); p; p = p.parent()) {
    if (p.kind() == Kind::Attribute && p.field(Field::Attribute).text() == "take") return true;
    if (p.kind() == Kind::Call && p.field(Field::Function).kind() == Kind::Identifier &&
        p.field(Field::Function).text() == "next")
      return true;
    if (p.kind() != Kind::Attribute && p.kind() != Kind::Call && p.kind() != Kind::ArgumentList) return false;
  }
  return false;
}

class TfDataNoPrefetch final : public python::PythonCheck {
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
    // A unit test batches a few examples for one fit or predict: prefetching buys nothing there.
    if (!step::is_tf_data_batch(call, ctx) || peeked(call, ctx) || step::in_unit_test(ctx)) return;
    const python::Frame* fn = ctx.enclosing_function();
    if (step::scope_calls_method(fn ? fn->node.field(Field::Body) : ctx.tree().root(), "prefetch", ctx)) return;
    ctx.report(pyapi::from_method_name(call),
               "tf.data pipeline batched without '.prefetch()': the TPU waits while the host prepares each batch",
               "end the pipeline with '.prefetch(tf.data.AUTOTUNE)'", "tf.data.Dataset.prefetch");
  }
};

const TfDataNoPrefetch kCheck;

}  // namespace

extern const CheckDef TPU608_tf_data_no_prefetch{
    .info = {
        .id = "TPU608",
        .name = "tf-data-no-prefetch",
        .summary = "tf.data pipeline batched without '.prefetch()': input preparation does not overlap the step",
        .languages = uint8_t(Language::Python),
        .framework = Framework::TensorFlow,
        .severity = Severity::Warning,
        .effort = EffortClass::Low,
        .hours = {0.1, 0.5},
        .doc = {
            .what = "Calls of `.batch(...)` or `.padded_batch(...)` on a `tf.data` dataset (a chain rooted at "
                    "`tf.data.*` or `tfds.*`, directly or through names assigned in the same function) when "
                    "that function (or the module, at top level) calls `.prefetch(...)` nowhere.",
            .why = "tf.data runs on the host CPU. Without `prefetch`, the next batch is prepared only when the "
                   "training step asks for it, so the TPU idles for the whole input pipeline between steps. "
                   "`prefetch` runs the pipeline in the background while the device computes.",
            .example = "ds = tf.data.TFRecordDataset(files).map(parse).shuffle(10_000).batch(1024)",
            .use_instead = "`ds = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=tf.data.AUTOTUNE)"
                           ".shuffle(10_000).batch(1024, drop_remainder=True).prefetch(tf.data.AUTOTUNE)`",
            .effort = "Low: one call at the end of the pipeline.",
            .heuristic = "A `.prefetch(...)` anywhere in the same function counts, whatever it is called on. A "
                         "chain only peeked at (`next(iter(ds.batch(2)))`, `.take(n)`) or built in a unit "
                         "test (a file named `test_*.py`, `*_test.py`, `*tests.py` or `conftest.py`, or under "
                         "`test/`, `tests/` or `testing/`, or a function named `test_*` or a class named `Test*`) "
                         "is not reported. A "
                         "dataset returned unprefetched and prefetched by its caller, or handed to "
                         "`strategy.experimental_distribute_dataset` (which prefetches to the devices), is a "
                         "false positive; a dataset built from a function parameter (`def batched(ds): return "
                         "ds.batch(32)`) is not recognized.",
            .references = {"https://www.tensorflow.org/guide/data_performance#prefetching",
                           "https://cloud.google.com/tpu/docs/performance-guide"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
