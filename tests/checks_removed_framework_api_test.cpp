// TPU701 (removed framework APIs): its two data tables are well formed, one finding per family and
// file with the other uses as lines to touch, hours from the family's row, and TF 1 names told
// apart from their tf.compat.v1 spelling.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "data/removed_framework_apis.h"
#include "data/tf1_renamed_apis.h"
#include "python_check_run.h"

using namespace tpulint;

namespace {

FileResult run(const std::string& code) { return testing::run_python_check("TPU701", code); }

}  // namespace

TEST_CASE("the removed-API tables are well formed", "[checks][data][removed-api]") {
  std::map<std::string_view, const data::RemovedFrameworkApisRow*> family_row;
  size_t renamed_roots = 0;
  for (const auto& row : data::kRemovedFrameworkApis) {
    INFO(row.api);
    CHECK((row.match == "module" || row.match == "renamed"));
    renamed_roots += row.match == "renamed";
    std::optional<HoursRange> h = parse_hours_range(row.hours);
    REQUIRE(h);
    CHECK(h->low > 0);
    CHECK(h->high <= 16);
    CHECK_FALSE(row.removed.empty());
    CHECK_FALSE(row.keep.empty());
    CHECK_FALSE(row.use.empty());
    // A family is one work item: its rows agree on what it costs and what replaces it.
    auto [it, added] = family_row.try_emplace(row.family, &row);
    if (!added) {
      CHECK(it->second->hours == row.hours);
      CHECK(it->second->use == row.use);
      CHECK(it->second->removed == row.removed);
    }
  }
  CHECK(renamed_roots == 1);
  REQUIRE(std::size(data::kTf1RenamedApis) > 600);
  for (const auto& row : data::kTf1RenamedApis) {
    INFO(row.api);
    CHECK(row.api.starts_with("tensorflow."));
    CHECK(row.tf2.starts_with("tf."));
    // The Estimator API is priced whole by its module row, not name by name.
    CHECK_FALSE(row.api.starts_with("tensorflow.estimator."));
  }
}

TEST_CASE("TPU701: one finding per family and file, its other uses lines to touch", "[checks][removed-api]") {
  FileResult r = run(
      "import tensorflow as tf\n"                                   // 1
      "def model_fn(features, labels, mode):\n"                     // 2
      "    if mode == tf.estimator.ModeKeys.TRAIN:\n"               // 3
      "        s = tf.Session()\n"                                  // 4
      "    x = tf.placeholder(tf.float32)\n"                        // 5
      "    return tf.estimator.EstimatorSpec(mode, loss=x)\n"       // 6
      "est = tf.estimator.Estimator(model_fn=model_fn)\n");         // 7
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].start.line == 3);
  CHECK(std::string(r.findings[0].subject.view()) == "tf.estimator");
  CHECK(r.findings[0].hours.low == 2);
  CHECK(r.findings[0].hours.high == 8);
  CHECK(r.findings[0].priced_once);
  CHECK(r.findings[1].start.line == 4);
  CHECK(std::string(r.findings[1].subject.view()) == "TF 1 API");
  CHECK_THAT(std::string(r.findings[1].message.view()), Catch::Contains("'tf.compat.v1.Session'"));
  std::vector<std::pair<std::string, uint32_t>> touched;
  for (const TouchLine& t : r.touches) touched.emplace_back(t.subject, t.line);
  std::sort(touched.begin(), touched.end());
  const std::vector<std::pair<std::string, uint32_t>> expected{
      {"TF 1 API", 5}, {"tf.estimator", 6}, {"tf.estimator", 7}};
  CHECK(touched == expected);
}

TEST_CASE("TPU701: TF 2 spellings, tf.compat.v1 and current APIs are not removed ones", "[checks][removed-api]") {
  FileResult r = run(
      "import jax\n"
      "import tensorflow as tf\n"
      "import tensorflow.compat.v1 as tf1\n"
      "s = tf1.Session()\n"
      "p = tf.compat.v1.placeholder(tf.float32)\n"
      "y = tf.math.log(tf.constant(1.0))\n"
      "t = jax.tree_util.tree_map(lambda a: a, {})\n"
      "u = jax.numpy.zeros(3).at[0].set(1.0)\n");
  CHECK(r.findings.empty());
  CHECK(r.touches.empty());
}

TEST_CASE("TPU701: an import of a removed module is its first use", "[checks][removed-api]") {
  FileResult r = run(
      "from flax import nn\n"
      "from jax.experimental import optimizers\n"
      "class Model(nn.Module):\n"
      "    pass\n"
      "opt_init, opt_update, get_params = optimizers.adam(1e-3)\n");
  REQUIRE(r.findings.size() == 2);
  CHECK(r.findings[0].start.line == 1);
  CHECK(std::string(r.findings[0].subject.view()) == "flax.nn");
  CHECK(r.findings[1].start.line == 2);
  CHECK(std::string(r.findings[1].subject.view()) == "jax.experimental.optimizers");
  CHECK(r.touches.size() == 2);
}

TEST_CASE("TPU701: an import with a fallback for current releases is no use", "[checks][removed-api]") {
  FileResult r = run(
      "try:\n"
      "    from torch._six import inf\n"
      "except ModuleNotFoundError:\n"
      "    from torch import inf\n"
      "try:\n"
      "    from torch._six import string_classes\n"
      "except:\n"
      "    string_classes = str\n"
      "def clip(x):\n"
      "    return isinstance(x, string_classes) or x == inf\n");
  CHECK(r.findings.empty());
  CHECK(r.touches.empty());
  // Without the fallback, the import is the finding and the uses are its lines.
  FileResult bare = run(
      "from torch._six import inf\n"
      "def clip(x):\n"
      "    return x == inf\n");
  REQUIRE(bare.findings.size() == 1);
  CHECK(bare.findings[0].start.line == 1);
  REQUIRE(bare.touches.size() == 1);
  CHECK(bare.touches[0].line == 3);
}
