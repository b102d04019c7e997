// Registry: sorting by ID, lookup, validation of IDs, and --select / --ignore selection.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"

using namespace tpulint;

namespace {

CheckInfo info(std::string_view id, std::string_view name) {
  CheckInfo c;
  c.id = id;
  c.name = name;
  c.summary = "a test check";
  c.languages = Language::Python | Language::Cuda;
  return c;
}

const CheckInfo kT101 = info("TPU101", "kernel");
const CheckInfo kT201 = info("TPU201", "dyn-a");
const CheckInfo kT202 = info("TPU202", "dyn-b");
const CheckInfo kT215 = info("TPU215", "dyn-c");
const CheckInfo kT401 = info("TPU401", "cuda-a");
const CheckInfo kT405 = info("TPU405", "cuda-b");
const CheckInfo kT410 = info("TPU410", "cuda-c");
const CheckInfo kT902 = info("TPU902", "note");

// Deliberately out of order.
Registry make_registry() {
  return Registry({&kT410, &kT201, &kT902, &kT101, &kT405, &kT215, &kT401, &kT202});
}

using Ids = std::vector<std::string_view>;
using Strings = std::vector<std::string>;

Ids sel(const Registry& r, Strings select, Strings ignore = {}) { return r.select(select, ignore); }

std::string select_error(const Registry& r, Strings select, Strings ignore = {}) {
  try {
    r.select(select, ignore);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<no exception>";
}

}  // namespace

TEST_CASE("the registry sorts checks by ID whatever the input order", "[core][registry]") {
  Registry r = make_registry();
  std::vector<std::string_view> ids;
  for (const CheckInfo* c : r.all()) ids.push_back(c->id);
  CHECK(ids == Ids{"TPU101", "TPU201", "TPU202", "TPU215", "TPU401", "TPU405", "TPU410", "TPU902"});

  Registry empty(std::vector<const CheckInfo*>{});
  CHECK(empty.all().empty());
  CHECK(empty.find("TPU101") == nullptr);
}

TEST_CASE("find() returns the check with that exact ID or nullptr", "[core][registry]") {
  Registry r = make_registry();
  CHECK(r.find("TPU101") == &kT101);
  CHECK(r.find("TPU215") == &kT215);
  CHECK(r.find("TPU902") == &kT902);
  CHECK(r.find("TPU410")->name == "cuda-c");
  CHECK(r.find("TPU2") == nullptr);        // a prefix is not an ID
  CHECK(r.find("TPU2010") == nullptr);
  CHECK(r.find("TPU999") == nullptr);
  CHECK(r.find("TPU100") == nullptr);      // sorts before the first
  CHECK(r.find("ZZZ") == nullptr);         // sorts after the last
  CHECK(r.find("") == nullptr);
  CHECK(r.find("tpu101") == nullptr);      // IDs are case-sensitive
}

TEST_CASE("a duplicate check ID throws std::invalid_argument", "[core][registry]") {
  CheckInfo twin = info("TPU201", "dyn-a-twin");
  CHECK_THROWS_AS(Registry({&kT201, &kT101, &twin}), std::invalid_argument);
  CHECK_THROWS_WITH(Registry({&twin, &kT101, &kT201}), Catch::Contains("TPU201"));
  // The same object twice is a duplicate too.
  CHECK_THROWS_AS(Registry({&kT101, &kT101}), std::invalid_argument);
}

TEST_CASE("a malformed check ID throws std::invalid_argument", "[core][registry]") {
  for (std::string_view bad : {"TPX101", "TPU1", "TPU", "", "TPU1011", "tpu101", "TPU10a", "TPU801",
                               "TPU001", " TPU101"}) {
    INFO("id '" << bad << "'");
    CheckInfo c = info(bad, "bad");
    CHECK_THROWS_AS(Registry({&kT101, &c}), std::invalid_argument);
  }
  CheckInfo c = info("TPX101", "bad");
  CHECK_THROWS_WITH(Registry({&c}), Catch::Contains("TPX101"));
  // Every category digit is accepted.
  for (std::string_view good : {"TPU100", "TPU250", "TPU399", "TPU400", "TPU555", "TPU601", "TPU901"}) {
    INFO("id '" << good << "'");
    CheckInfo g = info(good, "good");
    CHECK_NOTHROW(Registry({&g}));
  }
}

TEST_CASE("select() with an empty selection or ALL selects every check", "[core][registry]") {
  Registry r = make_registry();
  Ids all{"TPU101", "TPU201", "TPU202", "TPU215", "TPU401", "TPU405", "TPU410", "TPU902"};
  CHECK(sel(r, {}) == all);
  CHECK(sel(r, {"ALL"}) == all);
  CHECK(sel(r, {"ALL", "TPU2"}) == all);
}

TEST_CASE("select() takes ID prefixes and full IDs", "[core][registry]") {
  Registry r = make_registry();
  CHECK(sel(r, {"TPU2"}) == Ids{"TPU201", "TPU202", "TPU215"});
  CHECK(sel(r, {"TPU40"}) == Ids{"TPU401", "TPU405"});
  CHECK(sel(r, {"TPU41"}) == Ids{"TPU410"});
  CHECK(sel(r, {"TPU202"}) == Ids{"TPU202"});
  CHECK(sel(r, {"TPU4", "TPU101"}) == Ids{"TPU101", "TPU401", "TPU405", "TPU410"});
  // Overlapping entries select each check once, in ID order.
  CHECK(sel(r, {"TPU2", "TPU201", "TPU20"}) == Ids{"TPU201", "TPU202", "TPU215"});
  CHECK(sel(r, {"TPU"}).size() == 8);
}

TEST_CASE("ignore removes checks from the selection", "[core][registry]") {
  Registry r = make_registry();
  CHECK(sel(r, {}, {"TPU2"}) == Ids{"TPU101", "TPU401", "TPU405", "TPU410", "TPU902"});
  CHECK(sel(r, {"TPU2"}, {"TPU202"}) == Ids{"TPU201", "TPU215"});
  CHECK(sel(r, {"TPU4"}, {"TPU40"}) == Ids{"TPU410"});
  CHECK(sel(r, {"TPU2"}, {"TPU2"}).empty());
  CHECK(sel(r, {}, {"ALL"}).empty());
  // An ignore entry outside the selection is still a known check: no error, no effect.
  CHECK(sel(r, {"TPU1"}, {"TPU9"}) == Ids{"TPU101"});
}

TEST_CASE("a select or ignore entry that matches no check throws, naming the entry", "[core][registry]") {
  Registry r = make_registry();
  CHECK_THROWS_AS(sel(r, {"TPU7"}), std::invalid_argument);
  CHECK_THROWS_AS(sel(r, {"TPU2", "TPU203"}), std::invalid_argument);  // one bad entry is enough
  CHECK_THROWS_AS(sel(r, {}, {"TPU3"}), std::invalid_argument);
  CHECK_THROWS_AS(sel(r, {"tpu2"}), std::invalid_argument);            // case-sensitive
  CHECK_THROWS_AS(sel(r, {"all"}), std::invalid_argument);
  CHECK_THROWS_AS(sel(r, {"TPU2010"}), std::invalid_argument);         // longer than any ID

  std::string what = select_error(r, {"TPU2", "TPU7"});
  CHECK_THAT(what, Catch::Contains("'TPU7'"));
  CHECK_THAT(what, Catch::Contains("--select"));
  what = select_error(r, {}, {"TPU203"});
  CHECK_THAT(what, Catch::Contains("'TPU203'"));
  CHECK_THAT(what, Catch::Contains("--ignore"));
}

TEST_CASE("an empty select or ignore entry is rejected, not read as a prefix of every ID",
          "[core][registry]") {
  // "" is a prefix of every ID, so today `--ignore ""` (say, from an unset shell variable)
  // silently disables every check and the scan reports tpu-ready.
  Registry r = make_registry();
  CHECK_THROWS_AS(sel(r, {}, {""}), std::invalid_argument);
  CHECK_THROWS_AS(sel(r, {""}), std::invalid_argument);
}

TEST_CASE("a target framework leaves out the checks about the other frameworks", "[core][registry]") {
  CheckInfo torch = info("TPU201", "torch-op"), jax = info("TPU202", "jax-op"), tf = info("TPU203", "tf-op"),
            any = info("TPU101", "kernel");
  torch.framework = Framework::Torch;
  jax.framework = Framework::Jax;
  tf.framework = Framework::TensorFlow;
  Registry r({&torch, &jax, &tf, &any});
  Strings none;
  CHECK(r.select(none, none) == Ids{"TPU101", "TPU201", "TPU202", "TPU203"});
  CHECK(r.select(none, none, Framework::Torch) == Ids{"TPU101", "TPU201"});
  CHECK(r.select(none, none, Framework::Jax) == Ids{"TPU101", "TPU202"});
  CHECK(r.select(none, none, Framework::TensorFlow) == Ids{"TPU101", "TPU203"});
  CHECK(r.select(Strings{"TPU2"}, none, Framework::Jax) == Ids{"TPU202"});
  CHECK(framework_for_target("torch-xla") == Framework::Torch);
  CHECK(framework_for_target("jax") == Framework::Jax);
  CHECK(framework_for_target("tf") == Framework::TensorFlow);
  CHECK_FALSE(framework_for_target("pytorch"));
  CHECK_FALSE(framework_for_target(""));
}
