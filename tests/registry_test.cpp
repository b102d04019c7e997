// The catalogue's own rules: IDs well formed, unique, sorted in check_list.inc; names
// kebab-case and unique; every check documented; every check bound to a frontend.
#include <catch2/catch.hpp>
#include <regex>
#include <set>

#include "checks/registry.h"

using namespace tpulint;

TEST_CASE("check_list.inc is sorted by ID and IDs are unique", "[registry]") {
  auto all = checks::all_checks();
  REQUIRE(all.size() >= 6);
  for (size_t i = 1; i < all.size(); ++i) {
    INFO(all[i - 1]->info.id << " before " << all[i]->info.id);
    CHECK(all[i - 1]->info.id < all[i]->info.id);
  }
}

TEST_CASE("every registered check is documented and well formed", "[registry]") {
  const std::regex id("^TPU[1-9][0-9]{2}$");
  const std::regex kebab("^[a-z0-9]+(-[a-z0-9]+)*$");
  std::set<std::string_view> names;
  for (const CheckInfo* c : checks::registry().all()) {
    INFO(c->id);
    CHECK(std::regex_match(std::string(c->id), id));
    CHECK(std::regex_match(std::string(c->name), kebab));
    CHECK(names.insert(c->name).second);
    CHECK(int(c->category()) == c->id[3] - '0');
    CHECK(c->languages != 0);
    CHECK_FALSE(c->summary.empty());
    CHECK_FALSE(c->doc.what.empty());
    CHECK_FALSE(c->doc.why.empty());
    CHECK_FALSE(c->doc.use_instead.empty());
    CHECK_FALSE(c->doc.effort.empty());
    CHECK(c->hours.low <= c->hours.high);
    // Effort none only for the analyzer's notes, which never count in the score.
    CHECK((c->effort == EffortClass::None) == (c->category() == Category::AnalyzerNote));
  }
}

TEST_CASE("a check named after a framework is about that framework (--target relies on it)", "[registry]") {
  for (const CheckInfo* c : checks::registry().all()) {
    INFO(c->id << " " << c->name);
    if (c->name.starts_with("torch-")) CHECK(c->framework == Framework::Torch);
    if (c->name.starts_with("jax-")) CHECK(c->framework == Framework::Jax);
    if (c->name.starts_with("tf-")) CHECK(c->framework == Framework::TensorFlow);
  }
}

TEST_CASE("every check runs in exactly one frontend that matches its languages", "[registry]") {
  for (const checks::CheckDef* def : checks::all_checks()) {
    INFO(def->info.id);
    CHECK(int(def->python != nullptr) + int(def->native != nullptr) + int(def->cmake != nullptr) == 1);
    if (def->python) CHECK(contains(def->info.languages, Language::Python));
    if (def->native) CHECK((contains(def->info.languages, Language::Cxx) || contains(def->info.languages, Language::Cuda)));
    if (def->cmake) CHECK(def->info.languages == uint8_t(Language::Cmake));
  }
}

TEST_CASE("selection gives each frontend only its selected checks", "[registry]") {
  auto ids = checks::registry().select(std::vector<std::string>{"TPU10", "TPU201"}, std::vector<std::string>{"TPU103"});
  auto py = checks::python_checks(ids);
  auto native = checks::native_checks(ids);
  REQUIRE(py.size() == 1);
  CHECK(py[0].info->id == "TPU201");
  // Every selected TPU10x native check but the ignored TPU103, in ID order.
  REQUIRE(native.size() >= 2);
  CHECK(native[0].info->id == "TPU101");
  CHECK(native[1].info->id == "TPU102");
  for (const auto& e : native) {
    CHECK(e.info->id.starts_with("TPU10"));
    CHECK(e.info->id != "TPU103");
  }
}
