// Suppression comments: scopes, prefixes, unused and invalid ones, and the run's selection.
#include <catch2/catch.hpp>

#include "core/check_info.h"
#include "core/suppressions.h"

using namespace tpulint;

namespace {

const CheckInfo kA{.id = "TPU201", .name = "a", .summary = "a", .languages = uint8_t(Language::Python),
                   .severity = Severity::Warning, .effort = EffortClass::Medium, .hours = {}, .doc = {}};
const CheckInfo kB{.id = "TPU401", .name = "b", .summary = "b", .languages = uint8_t(Language::Python),
                   .severity = Severity::Error, .effort = EffortClass::Low, .hours = {}, .doc = {}};

SuppressionPolicy everything() {
  auto known = [](std::string_view p) { return std::string_view("TPU201").starts_with(p) || std::string_view("TPU401").starts_with(p) || std::string_view("TPU904").starts_with(p) || std::string_view("TPU905").starts_with(p); };
  return {.enabled = [](std::string_view, std::string_view) { return true; },
          .known = known,
          .runs = [known](std::string_view p, std::string_view) { return known(p); }};
}

// Findings of kA or kB at the given 1-based lines, then the suppressions applied.
std::vector<std::pair<std::string, uint32_t>> run(const std::string& code, std::vector<std::pair<const CheckInfo*, uint32_t>> at,
                                                  const SuppressionPolicy& policy, Language lang = Language::Python) {
  SourceFile file("m.py", "/tmp/m.py", lang, code);
  std::vector<Finding> findings;
  FindingSink sink(file, findings);
  auto starts = line_starts(code);
  for (auto [check, line] : at) sink.add(*check, {starts[line - 1], starts[line - 1] + 1}, "msg");
  apply_suppressions(file, findings, policy);
  std::vector<std::pair<std::string, uint32_t>> out;
  for (const Finding& f : findings) out.emplace_back(f.check_id, f.start.line);
  std::sort(out.begin(), out.end());
  return out;
}

using Result = std::vector<std::pair<std::string, uint32_t>>;

}  // namespace

TEST_CASE("a bare enable closes every open disable", "[core][suppressions]") {
  std::string code = "# tpulint: disable[TPU2]\n# tpulint: disable[TPU401]\nx\ny\n# tpulint: enable\nz\n";
  CHECK(run(code, {{&kA, 3}, {&kB, 4}, {&kA, 6}}, everything()) == Result{{"TPU201", 6}});
}

TEST_CASE("ignore-file covers the whole file, before and after the comment", "[core][suppressions]") {
  std::string code = "x\n# tpulint: ignore-file[TPU401]\ny\n";
  CHECK(run(code, {{&kB, 1}, {&kB, 3}, {&kA, 3}}, everything()) == Result{{"TPU201", 3}});
}

TEST_CASE("C/C++ directives use // and /* */, and a Python # is not one there", "[core][suppressions]") {
  std::string code = "a; // tpulint: ignore[TPU201]\nb; /* tpulint: ignore[TPU401] */\nc; # tpulint: ignore\n";
  CHECK(run(code, {{&kA, 1}, {&kB, 2}, {&kA, 3}}, everything(), Language::Cuda) == Result{{"TPU201", 3}});
}

TEST_CASE("a suppression of a check that did not run is never called unused", "[core][suppressions]") {
  SuppressionPolicy only_a = everything();
  only_a.enabled = [](std::string_view id, std::string_view) { return id != "TPU401"; };
  only_a.runs = [](std::string_view p, std::string_view) { return std::string_view("TPU201").starts_with(p) || p.empty(); };
  CHECK(run("x  # tpulint: ignore[TPU401]\n", {}, only_a).empty());
  // ...while with the check running, the same comment is unused.
  CHECK(run("x  # tpulint: ignore[TPU401]\n", {}, everything()) == Result{{"TPU904", 1}});
}

TEST_CASE("findings of disabled checks are dropped before suppressions apply", "[core][suppressions]") {
  SuppressionPolicy only_a = everything();
  only_a.enabled = [](std::string_view id, std::string_view) { return id != "TPU401"; };
  CHECK(run("x\n", {{&kA, 1}, {&kB, 1}}, only_a) == Result{{"TPU201", 1}});
}

TEST_CASE("notes about suppressions are themselves subject to the selection", "[core][suppressions]") {
  SuppressionPolicy quiet = everything();
  quiet.enabled = [](std::string_view id, std::string_view) { return id != "TPU904" && id != "TPU905"; };
  CHECK(run("x  # tpulint: ignore[TPU401]\ny  # tpulint: nonsense\n", {}, quiet).empty());
}

TEST_CASE("several directives on one line all apply", "[core][suppressions]") {
  std::string code = "x  # noqa: E501  # tpulint: ignore[TPU201]  # tpulint: ignore[TPU401]\n";
  CHECK(run(code, {{&kA, 1}, {&kB, 1}}, everything()).empty());
}
