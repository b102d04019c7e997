// TPU701: an API current framework releases no longer have (tf.contrib, tf.estimator, TF 1 names, flax.nn,
// flax.optim, jax.experimental.optimizers, jax.lax.tie_in, torch._six, ...): the code runs only with an old release.
// User docs: docs/checks/TPU701.md (generated from the CheckInfo below).
#include <algorithm>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "data/removed_framework_apis.h"
#include "data/tf1_renamed_apis.h"

namespace tpulint::checks {

namespace {

using python::Kind;
using python::Node;
using Row = data::RemovedFrameworkApisRow;

// A removed API `name` refers to: its family's row, and for a TF 1 name, its TF 2 name.
struct Removed {
  const Row* row = nullptr;
  std::string_view tf2_name;
};

std::optional<Removed> removed_api(std::string_view name) {
  const Row* row = pyhelp::longest_module_row(data::kRemovedFrameworkApis, &Row::api, name);
  if (!row) return std::nullopt;
  if (row->match == "module") return Removed{row, {}};
  // A TF 1 name, or an attribute of one (`tf.GraphKeys.TRAINABLE_VARIABLES`): the longest such name.
  for (std::string_view prefix = name; prefix.size() > row->api.size();) {
    if (const auto* renamed = pyapi::find_row(data::kTf1RenamedApis, &data::Tf1RenamedApisRow::api, prefix))
      return Removed{row, renamed->tf2};
    prefix = prefix.substr(0, prefix.rfind('.'));
  }
  return std::nullopt;
}

// The names whose references reach the check: the families' modules and every TF 1 name.
const std::vector<std::string_view>& reference_roots() {
  static const std::vector<std::string_view> kRoots = [] {
    std::vector<std::string_view> out;
    for (const Row& row : data::kRemovedFrameworkApis)
      if (row.match == "module") out.push_back(row.api);
    for (const auto& renamed : data::kTf1RenamedApis) out.push_back(renamed.api);
    return out;
  }();
  return kRoots;
}

const std::vector<std::string_view>& packages() {
  static const std::vector<std::string_view> kPackages =
      pyhelp::top_level_packages(data::kRemovedFrameworkApis, &Row::api);
  return kPackages;
}

// The families the file has a finding of: their further uses are lines the port touches.
struct FamiliesReported {
  std::vector<std::string_view> families;
};

class RemovedFrameworkApi final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::ImportStatement, Kind::ImportFromStatement};
    return k;
  }
  bool checks_references() const override { return true; }
  std::span<const std::string_view> reference_names() const override { return reference_roots(); }

  // An import of a removed module fails where it stands, before any use; one with a fallback for
  // current releases (`try: from torch._six import inf` / `except ImportError: from torch import inf`)
  // does not.
  void check(Node stmt, python::PythonContext& ctx) const override {
    if (pyhelp::is_optional_import(stmt, ctx)) return;
    std::vector<std::string> modules = python::imported_modules(stmt, python::package_of(ctx.file().path()));
    if (stmt.kind() == Kind::ImportFromStatement && modules.size() == 1) {
      const std::string base = modules[0];
      for (std::string_view name : pyhelp::from_import_names(stmt)) modules.push_back(base + "." + std::string(name));
    }
    for (const std::string& m : modules)
      if (pyhelp::in_packages(packages(), m))
        if (std::optional<Removed> r = removed_api(m)) use(stmt, m, *r, ctx);
  }

  void check_reference(Node n, const std::string& qualified, python::PythonContext& ctx) const override {
    std::optional<Removed> r = removed_api(qualified);
    if (!r) return;
    // A name an import of the removed API binds (`slim` of `from tensorflow.contrib import slim`): the
    // import is its first use, or has a fallback and is none.
    Node root = n;
    while (root.kind() == Kind::Attribute) root = root.field(python::Field::Object);
    if (root != n && root.kind() == Kind::Identifier) {
      const std::optional<std::string>& bound = ctx.qualified_name(root);
      if (bound && removed_api(*bound)) return touch_if_reported(n, *r, ctx);
    } else if (root == n && n.kind() == Kind::Identifier) {
      return touch_if_reported(n, *r, ctx);
    }
    use(n, qualified, *r, ctx);
  }

 private:
  static bool reported(const Removed& r, python::PythonContext& ctx) {
    const std::vector<std::string_view>& families = ctx.file_state<FamiliesReported>().families;
    return std::find(families.begin(), families.end(), r.row->family) != families.end();
  }

  static void touch_if_reported(Node at, const Removed& r, python::PythonContext& ctx) {
    if (reported(r, ctx)) ctx.touch(at.span(), r.row->family);
  }

  // One finding per family and file, at its first use; the other uses are the work item's lines.
  static void use(Node at, std::string_view name, const Removed& r, python::PythonContext& ctx) {
    // The project's own package (scanning Flax itself): what it defines is not a dependency.
    if (pyhelp::is_first_party(pyhelp::top_level(name), ctx)) return;
    if (reported(r, ctx)) return ctx.touch(at.span(), r.row->family);
    ctx.file_state<FamiliesReported>().families.push_back(r.row->family);
    Finding& f =
        r.tf2_name.empty()
            ? ctx.report(at, fmt::format("'{}' was removed in {}: the code runs only on {}", name, r.row->removed,
                                         r.row->keep),
                         std::string(r.row->use), r.row->family)
            : ctx.report(at, fmt::format("'{}' is a TF 1 name, removed in {}: TF 2 has it as '{}'", name,
                                         r.row->removed, r.tf2_name),
                         fmt::format("use '{}' (tf_upgrade_v2 rewrites TF 1 names), or keep {}", r.tf2_name,
                                     r.row->keep),
                         r.row->family);
    f.hours = *parse_hours_range(r.row->hours);
    f.priced_once = true;
  }
};

const RemovedFrameworkApi kCheck;

}  // namespace

extern const CheckDef TPU701_removed_framework_api{
    .info = {
        .id = "TPU701",
        .name = "removed-framework-api",
        .summary = "an API current framework releases no longer have (tf.contrib, tf.estimator, TF 1 names, flax.nn, "
                   "flax.optim, jax.experimental.optimizers, jax.lax.tie_in, torch._six): the code runs only with an "
                   "old release pinned",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Any,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {0.25, 16},
        .doc = {
            .what = "An import or use of a name of checks/data/removed_framework_apis.tsv: TensorFlow's `tf.contrib` "
                    "(gone in TF 2.0), `tf.estimator` and `tf.compat.v1.estimator` with the TPUEstimator (gone in "
                    "TF 2.16), the TF 1 names TF 2 moved (`tf.Session`, `tf.placeholder`, `tf.get_variable`, "
                    "`tf.logging.info`, ...: the names of TensorFlow's own tf_upgrade_v2 renames, "
                    "checks/data/tf1_renamed_apis.tsv, less any name a TF 2 API file lists), Flax's pre-Linen "
                    "`flax.nn` and `flax.optim`, JAX's `jax.experimental.optimizers`, `stax`, `loops`, `maps.xmap` "
                    "and `host_callback`, "
                    "`jax.lax.tie_in`, `jax.ops.index_update`, `jax.tree_util.tree_multimap`, and PyTorch's "
                    "`torch._six`. One finding per family and file, at its first use; its other uses are the lines "
                    "of its work item in the plan.",
            .why = "A TPU host is set up with current releases: TensorFlow 2.16 or later, a JAX recent enough for "
                   "the TPU runtime (libtpu), PyTorch 2 for PyTorch/XLA. Code that uses a removed API fails there "
                   "at import or first call, whatever the accelerator. It runs only with the old release the "
                   "message names pinned, where that release still supports the TPU, or after a port of those "
                   "uses. This is environment and migration work, not a TPU blocker of the code's design: it "
                   "counts in the effort, never in the score or the verdict (TPU-native code on an old release "
                   "runs on a TPU as it is).",
            .example = "import tensorflow as tf\n\n"
                       "estimator = tf.estimator.Estimator(model_fn=model_fn, config=run_config)",
            .use_instead = "The replacement the hint names: a Keras model or a custom training loop under "
                           "`tf.distribute.TPUStrategy` for an Estimator; the TF 2 name (tf_upgrade_v2 rewrites TF 1 "
                           "names; `import tensorflow.compat.v1 as tf` keeps graph-mode code running); Flax Linen "
                           "and Optax for `flax.nn` and `flax.optim`; `x.at[idx].set(y)`; `jax.shard_map`; the "
                           "standard library for `torch._six`.",
            .effort = "Per family, from the table's hours, priced once per project (the port is learned once and "
                      "applied to every use): tf.contrib 4-12 h, tf.estimator 2-8 h (TF 2.15 still has it), flax.nn "
                      "4-16 h, TF 1 names 1-4 h, jax.lax.tie_in 0.25-0.5 h, ... Effort only: never the score or the "
                      "verdict.",
            .heuristic = "Names are resolved through the file's imports (`from tensorflow.contrib import slim` makes "
                         "`slim.conv2d` a use); an import in a `try` whose `except ImportError` takes a "
                         "fallback for current releases is no use (`from torch import inf` after `torch._six`), and "
                         "what follows a guard is guarded code, discounted. A family the scanned project defines "
                         "itself (scanning Flax) is not reported. A use through a variable or `getattr` is not seen.",
            .references = {"https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1",
                           "https://www.tensorflow.org/guide/migrate/upgrade",
                           "https://docs.jax.dev/en/latest/changelog.html",
                           "https://github.com/google/flax/blob/main/CHANGELOG.md"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
