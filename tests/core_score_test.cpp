// compute_score(): property tests over generated finding sets (bounded, fixing a finding or
// adding clean code never lowers the score, deterministic, bands follow the verdict), the
// verdict's rules, path weighting and auxiliary paths (docs/scoring.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/plan.h"
#include "core/scan.h"
#include "core/score.h"

using namespace tpulint;

namespace {

Finding make_finding(std::string id, EffortClass effort, std::string path, HoursRange hours = {},
                     Severity severity = Severity::Warning, uint32_t line = 1, uint32_t code_lines = 0) {
  Finding f;
  f.check_id = std::move(id);
  f.check_name = "test-check";
  f.category = category_from_id(f.check_id).value_or(Category::AnalyzerNote);
  f.severity = severity;
  f.effort = effort;
  f.hours = hours;
  f.path = std::move(path);
  f.start = {line, 1};
  f.end = {line, 5};
  f.message = "a finding";
  f.subject = f.check_id + ":" + std::to_string(line);
  f.code_lines = code_lines;
  return f;
}

// The effort of a summary's findings: its totals without the fixed bring-up run.
constexpr HoursRange kBringUp = ScoringConstants::bring_up(Verdict::TpuReady);
HoursRange findings_hours(const ScoreSummary& s) { return {s.hours.low - s.bring_up.low, s.hours.high - s.bring_up.high}; }
HoursRange findings_core_hours(const ScoreSummary& s) {
  return {s.core_hours.low - s.bring_up.low, s.core_hours.high - s.bring_up.high};
}

// A custom kernel: a standard op (Medium), a novel one (High) or a trivial one (Low).
Finding kernel(EffortClass effort, std::string path, uint32_t lines, HoursRange hours, uint32_t line = 1) {
  return make_finding("TPU101", effort, std::move(path), hours, Severity::Error, line, lines);
}

Finding named(Finding f, std::string name) {
  f.subject = std::move(name);
  return f;
}

constexpr std::array<std::string_view, 12> kIds = {"TPU101", "TPU102", "TPU201", "TPU203", "TPU301", "TPU302",
                                                   "TPU401", "TPU402", "TPU501", "TPU601", "TPU901", "TPU902"};
// Findings under pkg/zoo/ are in a model zoo's variants (Finding::model_variant).
constexpr std::array<std::string_view, 10> kPaths = {"pkg/model.py",      "pkg/ops/kernel.cu",   "pkg/train.py",
                                                     "tests/test_model.py", "tests/util.py",   "examples/run.py",
                                                     "setup.py",          "benchmarks/bench.py", "pkg/zoo/a.py",
                                                     "pkg/zoo/b.py"};

// Hours are whole or half hours so every sum is exact and independent of the order of addition.
std::vector<Finding> random_findings(std::mt19937& rng, size_t max_count = 30) {
  std::uniform_int_distribution<size_t> count(0, max_count);
  std::uniform_int_distribution<size_t> id(0, kIds.size() - 1);
  std::uniform_int_distribution<size_t> path(0, kPaths.size() - 1);
  std::uniform_int_distribution<int> effort(0, 3);
  std::uniform_int_distribution<int> severity(0, 2);
  std::uniform_int_distribution<int> half_hours(0, 400);
  std::uniform_int_distribution<uint32_t> line(1, 500);
  std::uniform_int_distribution<uint32_t> kernel_lines(1, 400);
  std::vector<Finding> out;
  size_t n = count(rng);
  for (size_t i = 0; i < n; ++i) {
    double low = half_hours(rng) / 2.0;
    double high = low + half_hours(rng) / 2.0;
    std::string check(kIds[id(rng)]);
    uint32_t lines = check == "TPU101" ? kernel_lines(rng) : 0;
    out.push_back(make_finding(check, EffortClass(effort(rng)), std::string(kPaths[path(rng)]), {low, high},
                               Severity(severity(rng)), line(rng), lines));
    // Subjects shared by some findings, with a size in them: an op adopted once (TPU3xx), a kernel's
    // specializations (TPU101 `k1_16`, `k1_32`).
    out.back().subject = fmt::format("k{}_{}", i % 3, 16 << (i % 4));
    out.back().model_variant = out.back().path.view().starts_with("pkg/zoo/");
    if (line(rng) <= 50) out.back().context = Context::Test;  // a test function or a self-test in any file
  }
  return out;
}

// The parts of a summary that do not depend on the order of the findings.
void require_same_numbers(const ScoreSummary& a, const ScoreSummary& b) {
  REQUIRE(a.score == b.score);
  REQUIRE(a.hours.low == b.hours.low);
  REQUIRE(a.hours.high == b.hours.high);
  REQUIRE(a.core_hours.low == b.core_hours.low);
  REQUIRE(a.core_hours.high == b.core_hours.high);
  REQUIRE(a.verdict == b.verdict);
  REQUIRE(a.categories.size() == b.categories.size());
  for (size_t i = 0; i < a.categories.size(); ++i) {
    REQUIRE(a.categories[i].category == b.categories[i].category);
    REQUIRE(a.categories[i].score == b.categories[i].score);
    REQUIRE(a.categories[i].findings == b.categories[i].findings);
    REQUIRE(a.categories[i].hours.low == b.categories[i].hours.low);
    REQUIRE(a.categories[i].hours.high == b.categories[i].hours.high);
  }
}

void require_identical(const ScoreSummary& a, const ScoreSummary& b) {
  require_same_numbers(a, b);
  REQUIRE(a.verdict_reason == b.verdict_reason);
}

// The band each verdict's scores lie in: [low, high].
std::pair<double, double> band(Verdict v) {
  double top = 100 - 25 * int(v);
  return {top - 25, top};
}

constexpr int kRandomSets = 200;

}  // namespace

TEST_CASE("the score and every category score stay within [0, 100], in the band of the verdict", "[core][score]") {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> lines(0, 20000);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 60);
    ScoreSummary s = compute_score(findings, {}, lines(rng));
    INFO("round " << round << ", " << findings.size() << " findings");
    REQUIRE(s.score >= 0);
    REQUIRE(s.score <= 100);
    auto [low, high] = band(s.verdict);
    REQUIRE(s.score >= low);
    REQUIRE(s.score <= high);
    for (const CategoryScore& c : s.categories) {
      REQUIRE(c.score >= 0);
      REQUIRE(c.score <= 100);
      REQUIRE(c.category != Category::AnalyzerNote);
      REQUIRE(c.findings > 0);
    }
    // Categories are listed once each, in category order.
    for (size_t i = 1; i < s.categories.size(); ++i)
      REQUIRE(int(s.categories[i - 1].category) < int(s.categories[i].category));
    // The score is rounded to one decimal.
    REQUIRE(std::abs(s.score * 10 - std::round(s.score * 10)) < 1e-6);
  }
  // Even an absurd number of novel kernels keeps the score at or above 0.
  std::vector<Finding> many;
  for (uint32_t i = 0; i < 2000; ++i) many.push_back(kernel(EffortClass::High, "pkg/k.cu", 100, {8, 16}, i + 1));
  ScoreSummary s = compute_score(many, {}, 200000);
  CHECK(s.score >= 0);
  CHECK(s.score < 1);
  CHECK(s.verdict == Verdict::StayOnGpu);
}

TEST_CASE("removing any single finding never lowers the score or worsens the verdict", "[core][score]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> lines(0, 5000);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 25);
    const double core_lines = lines(rng);
    ScoreSummary full = compute_score(findings, {}, core_lines);
    for (size_t i = 0; i < findings.size(); ++i) {
      std::vector<Finding> fewer = findings;
      fewer.erase(fewer.begin() + long(i));
      ScoreSummary s = compute_score(fewer, {}, core_lines);
      INFO("round " << round << ", without finding " << i << " (" << findings[i].check_id << ")");
      REQUIRE(s.score >= full.score);
      REQUIRE(int(s.verdict) <= int(full.verdict));
    }
  }
}

TEST_CASE("adding clean code never lowers the score", "[core][score]") {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> lines(0, 5000), more(1, 5000);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 25);
    const double core_lines = lines(rng);
    ScoreSummary base = compute_score(findings, {}, core_lines);
    ScoreSummary bigger = compute_score(findings, {}, core_lines + more(rng));
    INFO("round " << round);
    REQUIRE(bigger.score >= base.score);
    REQUIRE(int(bigger.verdict) <= int(base.verdict));
  }
  // Through the scan's report: clean files add core lines, never findings.
  auto keep_all = [](std::string_view) { return true; };
  std::vector<Finding> k{kernel(EffortClass::High, "pkg/k.cu", 300, {40, 80})};
  std::vector<FileResult> results(1);
  results[0].path = "pkg/k.cu";
  results[0].language = Language::Cuda;
  results[0].analyzed = true;
  results[0].code_lines = 350;
  results[0].findings = k;
  ScanReport small = build_report(Discovery{}, results, keep_all, PathWeights{});
  for (int i = 0; i < 20; ++i) {
    FileResult r;
    r.path = "pkg/clean_" + std::to_string(i) + ".py";
    r.language = Language::Python;
    r.analyzed = true;
    r.code_lines = 500;
    results.push_back(std::move(r));
  }
  ScanReport large = build_report(Discovery{}, results, keep_all, PathWeights{});
  CHECK(small.score.core_lines == 350);
  CHECK(large.score.core_lines == 10350);
  CHECK(large.score.score >= small.score.score);
  CHECK(small.score.verdict == Verdict::StayOnGpu);    // 300 of 350 lines have no TPU path
  CHECK(large.score.verdict == Verdict::Significant);  // 300 of 10,350
}

TEST_CASE("the score ignores the order of findings and is deterministic", "[core][score]") {
  std::mt19937 rng(12345);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 40);
    std::stable_sort(findings.begin(), findings.end(), finding_less);
    ScoreSummary a = compute_score(findings, {}, 3000);
    ScoreSummary again = compute_score(findings, {}, 3000);
    INFO("round " << round);
    require_identical(a, again);
    // Reordered, then put in report order again (which the scan always gives): the same numbers.
    std::vector<Finding> shuffled = findings;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    std::stable_sort(shuffled.begin(), shuffled.end(), finding_less);
    require_same_numbers(a, compute_score(shuffled, {}, 3000));
  }
}

TEST_CASE("analyzer notes (TPU9xx) never change the score", "[core][score]") {
  std::mt19937 rng(4242);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 20);
    std::vector<Finding> without_notes;
    for (const Finding& f : findings)
      if (f.category != Category::AnalyzerNote) without_notes.push_back(f);
    INFO("round " << round);
    require_identical(compute_score(findings, {}, 1000), compute_score(without_notes, {}, 1000));
  }
  // Notes with the heaviest effort and many hours, in core code, still count for nothing.
  std::vector<Finding> notes;
  for (std::string id : {"TPU901", "TPU902", "TPU903"})
    notes.push_back(make_finding(id, EffortClass::High, "pkg/model.py", {100, 200}, Severity::Error, 1, 500));
  ScoreSummary s = compute_score(notes, {}, 600);
  CHECK(s.score == 100);
  CHECK(findings_hours(s).low == 0);
  CHECK(findings_hours(s).high == 0);
  CHECK(s.categories.empty());
  CHECK(s.verdict == Verdict::TpuReady);
}

TEST_CASE("one custom kernel outweighs a hundred low-effort API calls", "[core][score]") {
  std::vector<Finding> standard{kernel(EffortClass::Medium, "pkg/ops/nms.cu", 40, {4, 12})};
  std::vector<Finding> calls;
  for (uint32_t i = 0; i < 100; ++i)
    calls.push_back(make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.25}, Severity::Error, i + 1));
  ScoreSummary k = compute_score(standard, {}, 5000);
  ScoreSummary c = compute_score(calls, {}, 5000);
  CHECK(k.verdict == Verdict::Significant);
  CHECK(c.verdict == Verdict::Portable);
  CHECK(k.score < c.score);
}

TEST_CASE("a large codebase with only mechanical changes scores above a small one with novel kernels",
          "[core][score]") {
  std::vector<Finding> mechanical;
  for (uint32_t i = 0; i < 2000; ++i)
    mechanical.push_back(make_finding("TPU401", EffortClass::Low, "pkg/m" + std::to_string(i % 50) + ".py",
                                      {0.1, 0.25}, Severity::Error, i + 1));
  std::vector<Finding> novel{kernel(EffortClass::High, "pkg/k.cu", 120, {40, 120})};
  ScoreSummary big = compute_score(mechanical, {}, 200000);
  ScoreSummary small = compute_score(novel, {}, 1000);
  CHECK(big.verdict == Verdict::Portable);
  CHECK(small.verdict == Verdict::Significant);
  CHECK(big.score > small.score);
}

TEST_CASE("stay-on-gpu scores still tell projects apart: the less code with no TPU path, the higher",
          "[core][score]") {
  std::vector<double> scores;
  for (uint32_t novel_lines : {1000u, 1500u, 2400u, 3600u, 4800u}) {
    std::vector<Finding> k{kernel(EffortClass::High, "pkg/k.cu", novel_lines, {100, 300})};
    ScoreSummary s = compute_score(k, {}, 5000);
    INFO(novel_lines << " lines with no TPU path of 5000");
    CHECK(s.verdict == Verdict::StayOnGpu);
    CHECK(s.score > 0);
    scores.push_back(s.score);
  }
  for (size_t i = 1; i < scores.size(); ++i) CHECK(scores[i] < scores[i - 1]);
}

TEST_CASE("the same issue twice on one line counts once", "[core][score]") {
  Finding a = make_finding("TPU401", EffortClass::Low, "pkg/m.py", {1, 2}, Severity::Error, 7);
  Finding b = a;
  b.start.column = b.end.column = 30;  // `x.cuda() + y.cuda()`
  ScoreSummary once = compute_score(std::vector<Finding>{a}, {}, 100);
  ScoreSummary twice = compute_score(std::vector<Finding>{a, b}, {}, 100);
  CHECK(twice.score == once.score);
  CHECK(twice.hours.low == once.hours.low);
  CHECK(twice.categories[0].findings == 1);
  // Another line or another subject is another issue.
  Finding other_line = a;
  other_line.start.line = other_line.end.line = 8;
  CHECK(findings_hours(compute_score(std::vector<Finding>{a, other_line}, {}, 100)).low == 2);
  Finding other_subject = b;
  other_subject.subject = "something else";
  CHECK(findings_hours(compute_score(std::vector<Finding>{a, other_subject}, {}, 100)).low == 2);
}

TEST_CASE("a finding in auxiliary code lowers the score less than in the package", "[core][score]") {
  for (EffortClass e : {EffortClass::Low, EffortClass::Medium, EffortClass::High}) {
    INFO("effort " << to_string(e));
    double core = compute_score(std::vector<Finding>{make_finding("TPU301", e, "pkg/model.py", {4, 8})}).score;
    for (std::string aux : {"tests/test_model.py", "examples/train.py", "docs/conf.py", "benchmarks/b.py",
                            "pkg/tests/helpers.py", "test_model.py"}) {
      INFO("path " << aux);
      double s = compute_score(std::vector<Finding>{make_finding("TPU301", e, aux, {4, 8})}).score;
      CHECK(s > core);
      CHECK(s < 100);
    }
  }
  // The auxiliary weight is the PathWeights knob.
  CHECK(path_weight("tests/a.py", PathWeights{}) == 0.25);
  CHECK(path_weight("pkg/a.py", PathWeights{}) == 1.0);
  CHECK(path_weight("tests/a.py", PathWeights{0.5, {}}) == 0.5);
  std::vector<Finding> aux{kernel(EffortClass::High, "tests/k.cu", 50, {20, 40})};
  std::vector<Finding> core{kernel(EffortClass::High, "pkg/k.cu", 50, {20, 40})};
  CHECK(compute_score(aux, PathWeights{1.0, {}}, 1000).score == compute_score(core, {}, 1000).score);
  CHECK(compute_score(aux, PathWeights{0.0, {}}, 1000).score == 100);
}

TEST_CASE("is_auxiliary_path recognises tests, examples, demos, benchmarks, docs, vendored and scratch code", "[core][score]") {
  for (std::string_view p : {"tests/x.py", "test/x.py", "testing/x.py", "pkg/tests/x.py", "a/b/tests/c/d.cu",
                             "test_x.py", "pkg/test_model.py", "pkg/test_kernel.cu", "x_test.py", "pkg/model_test.py",
                             "conftest.py", "pkg/conftest.py", "benchmarks/b.py", "benchmark/b.py", "bench/b.py",
                             "examples/e.py", "example/e.py", "docs/conf.py", "doc/x.py", "docs/source/api.py",
                             "demo/app.py", "demos/run.py", "third_party/cutlass/gemm.cu", "3rdparty/trt/k.cu",
                             "csrc/thirdparty/x.h", "pkg/vendor/lib.py", "vendored/x.py", "dev/cuda/matmul.cu",
                             "dependencies/json/json.hpp", "inference/compression/dependencies/AutoGPTQ/k.cu",
                             "analyze/plot.py", "tools/analysis/flops.py"}) {
    INFO(p);
    CHECK(is_auxiliary_path(p));
  }
  for (std::string_view p : {"pkg/model.py", "model.py", "setup.py", "pkg/testing_utils.py", "pkg/tests.py",
                             "tests.py", "pkg/contest.py", "pkg/attest/x.py", "mytests/x.py", "pkg/latest.py",
                             "pkg/testdata.py", "documentation/x.py", "examples.py", "pkg/test.py", "",
                             "pkg/model_test.cc", "Tests/x.py", "pkg/demo.py", "pkg/devices.py", "tools/train.py",
                             "scripts/convert.py", "pkg/analyzer.py", "developer/x.py", "pkg/dependency.py",
                             "pkg/dependencies.py"}) {
    INFO(p);
    CHECK_FALSE(is_auxiliary_path(p));
  }
}

TEST_CASE("verdict: no findings is tpu-ready", "[core][score]") {
  ScoreSummary s = compute_score(std::vector<Finding>{});
  CHECK(s.verdict == Verdict::TpuReady);
  CHECK(s.score == 100);
  CHECK(s.hours.low == 0);
  CHECK(s.categories.empty());
  CHECK(s.verdict_reason == "no TPU blocker found");
}

TEST_CASE("verdict: a few hours of warnings is still tpu-ready", "[core][score]") {
  std::vector<Finding> f{make_finding("TPU601", EffortClass::Low, "pkg/train.py", {0.5, 2}, Severity::Warning, 3),
                         make_finding("TPU602", EffortClass::Medium, "pkg/train.py", {1, 4}, Severity::Warning, 9)};
  ScoreSummary s = compute_score(f, {}, 1000);
  CHECK(s.verdict == Verdict::TpuReady);
  CHECK(s.score < 100);
  CHECK(s.score >= 75);
  CHECK_THAT(s.verdict_reason, Catch::Contains("core code"));
  CHECK(findings_hours(s).low == 1.5);
  CHECK(findings_core_hours(s).high == 6);
}

TEST_CASE("verdict: APIs current framework releases no longer have cost effort, never the score or the verdict",
          "[core][score]") {
  // Three families of 4-12 h each: 12 core hours, past the 8 that make other findings portable.
  std::vector<Finding> removed{make_finding("TPU701", EffortClass::Medium, "pkg/train.py", {4, 12}, Severity::Warning, 3),
                               make_finding("TPU701", EffortClass::Medium, "pkg/model.py", {4, 12}, Severity::Warning, 5),
                               make_finding("TPU701", EffortClass::Medium, "pkg/data.py", {4, 12}, Severity::Warning, 7)};
  ScoreSummary s = compute_score(removed, {}, 1000);
  CHECK(s.verdict == Verdict::TpuReady);
  CHECK(findings_core_hours(s).low == 12);
  CHECK(findings_core_hours(s).high == 36);
  CHECK(s.score == compute_score(std::vector<Finding>{}, {}, 1000).score);
  CHECK_THAT(s.verdict_reason, Catch::Contains("36 of them to move off APIs current framework releases no longer have"));
  // The other rules still hold beside them: a core error is portable.
  removed.push_back(make_finding("TPU401", EffortClass::Low, "pkg/train.py", {0.1, 0.5}, Severity::Error, 9));
  CHECK(compute_score(removed, {}, 1000).verdict == Verdict::Portable);
}

TEST_CASE("verdict: a core error, or more than a day of core changes, is portable", "[core][score]") {
  std::vector<Finding> errors{
      make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.5}, Severity::Error, 12),
      make_finding("TPU401", EffortClass::Low, "pkg/train.py", {0.1, 0.5}, Severity::Error, 3),
  };
  ScoreSummary s = compute_score(errors, {}, 1000);
  CHECK(s.verdict == Verdict::Portable);
  CHECK_THAT(s.verdict_reason, Catch::Contains("pkg/model.py:12"));  // the first error, in input order
  std::vector<Finding> hours{make_finding("TPU601", EffortClass::Medium, "pkg/a.py", {5, 6}),
                             make_finding("TPU602", EffortClass::Medium, "pkg/b.py", {4, 6})};
  CHECK(compute_score(hours, {}, 1000).verdict == Verdict::Portable);
  // The same in tests only does not count.
  std::vector<Finding> t{make_finding("TPU601", EffortClass::Medium, "tests/a.py", {5, 6}),
                         make_finding("TPU401", EffortClass::Low, "tests/b.py", {1, 6}, Severity::Error)};
  CHECK(compute_score(t, {}, 1000).verdict == Verdict::TpuReady);
  // A trivial kernel (effort Low) is a mechanical change.
  std::vector<Finding> trivial{kernel(EffortClass::Low, "pkg/ops/scale.cu", 3, {1, 2})};
  CHECK(compute_score(trivial, {}, 1000).verdict == Verdict::Portable);
}

TEST_CASE("verdict: a standard custom op, a novel kernel or 40 core hours is significant", "[core][score]") {
  std::vector<Finding> standard{make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.5}, Severity::Error, 5),
                                kernel(EffortClass::Medium, "pkg/ops/nms.cu", 60, {6, 16}, 27)};
  ScoreSummary s = compute_score(standard, {}, 5000);
  CHECK(s.verdict == Verdict::Significant);
  CHECK_THAT(s.verdict_reason, Catch::Contains("pkg/ops/nms.cu:27"));
  CHECK_THAT(s.verdict_reason, Catch::Contains("known TPU path"));
  std::vector<Finding> novel{kernel(EffortClass::High, "pkg/ops/scan.cu", 200, {40, 120}, 9)};
  ScoreSummary n = compute_score(novel, {}, 5000);  // 4% of the core
  CHECK(n.verdict == Verdict::Significant);
  CHECK_THAT(n.verdict_reason, Catch::Contains("pkg/ops/scan.cu:9"));
  std::vector<Finding> hours;
  for (uint32_t i = 0; i < 5; ++i)
    hours.push_back(make_finding("TPU201", EffortClass::Medium, "pkg/model.py", {8, 16}, Severity::Warning, i + 1));
  CHECK(compute_score(hours, {}, 5000).verdict == Verdict::Significant);
}

TEST_CASE("verdict: code with no TPU path making much of the core, or a long rewrite, stays on GPU", "[core][score]") {
  std::vector<Finding> f{
      make_finding("TPU201", EffortClass::Medium, "pkg/model.py", {2, 4}, Severity::Warning, 1),
      kernel(EffortClass::High, "tests/test_kernel.cu", 900, {30, 60}, 2),
      kernel(EffortClass::High, "pkg/ops/scan.cu", 400, {60, 180}, 14),
  };
  // 400 of 2000 core lines: 20%.
  ScoreSummary s = compute_score(f, {}, 2000);
  CHECK(s.verdict == Verdict::StayOnGpu);
  CHECK_THAT(s.verdict_reason, Catch::Contains("pkg/ops/scan.cu:14"));
  CHECK_THAT(s.verdict_reason, !Catch::Contains("tests/test_kernel.cu"));
  CHECK_THAT(s.verdict_reason, Catch::Contains("20% of the core code"));
  // The same kernel in a project ten times larger is 2%: significant.
  CHECK(compute_score(f, {}, 20000).verdict == Verdict::Significant);
  // A small share that is still a long rewrite: ten kernels of ten ops (of one op, in one file,
  // they would be one kernel family).
  std::vector<Finding> long_rewrite;
  for (uint32_t i = 0; i < 10; ++i)
    long_rewrite.push_back(kernel(EffortClass::High, "pkg/op" + std::to_string(i) + ".cu", 50, {40, 100}, i + 1));
  CHECK(compute_score(long_rewrite, {}, 100000).verdict == Verdict::StayOnGpu);
  // Standard ops with known TPU replacements are the project's value when they are most of it: a
  // kernel library. A few of them in a larger project are a port with a known path.
  std::vector<Finding> library;
  for (uint32_t i = 0; i < 9; ++i) library.push_back(kernel(EffortClass::Medium, "pkg/ops.cu", 100, {6, 16}, i + 1));
  ScoreSummary lib = compute_score(library, {}, 2000);  // 45% of the core
  CHECK(lib.verdict == Verdict::StayOnGpu);
  CHECK_THAT(lib.verdict_reason, Catch::Contains("GPU-only code (kernels and their extensions) is 45% of the core code"));
  CHECK(compute_score(library, {}, 10000).verdict == Verdict::Significant);  // 9%
}

TEST_CASE("verdict: the same kernels only under tests/ do not decide it", "[core][score]") {
  std::vector<Finding> f{
      kernel(EffortClass::High, "tests/ops/nms.cu", 500, {240, 480}, 14),
      make_finding("TPU501", EffortClass::High, "tests/test_attn.py", {16, 40}, Severity::Error, 3),
      kernel(EffortClass::Medium, "examples/k.cu", 50, {4, 8}, 3),
  };
  ScoreSummary s = compute_score(f, {}, 1000);
  CHECK(s.verdict == Verdict::TpuReady);
  // It still counts, lightly, in the score and fully in the hours.
  CHECK(s.score < 100);
  CHECK(findings_hours(s).low == 260);
  CHECK(findings_core_hours(s).low == 0);
}

TEST_CASE("the verdict does not depend on the order of findings", "[core][score]") {
  std::mt19937 rng(2718);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 15);
    std::stable_sort(findings.begin(), findings.end(), finding_less);
    Verdict v = compute_score(findings, {}, 2000).verdict;
    std::shuffle(findings.begin(), findings.end(), rng);
    INFO("round " << round);
    REQUIRE(compute_score(findings, {}, 2000).verdict == v);
    REQUIRE_FALSE(compute_score(findings, {}, 2000).verdict_reason.empty());
  }
}

TEST_CASE("verdict strings", "[core][score]") {
  CHECK(to_string(Verdict::TpuReady) == "tpu-ready");
  CHECK(to_string(Verdict::Portable) == "portable");
  CHECK(to_string(Verdict::Significant) == "significant");
  CHECK(to_string(Verdict::StayOnGpu) == "stay-on-gpu");
}

TEST_CASE("each category's score is the score of its findings alone", "[core][score]") {
  PathWeights weights;
  weights.rules = {{"pkg/ops/**", 0.5}, {"tests/util.py", 2}};
  std::mt19937 rng(7);
  for (int round = 0; round < kRandomSets; ++round) {
    std::vector<Finding> findings = random_findings(rng, 60);
    std::stable_sort(findings.begin(), findings.end(), finding_less);
    ScoreSummary all = compute_score(findings, weights, 4000);
    size_t counted = 0;
    for (const CategoryScore& c : all.categories) {
      INFO("round " << round << ", category " << int(c.category));
      std::vector<Finding> alone;
      for (const Finding& f : findings)
        if (f.category == c.category) alone.push_back(f);
      ScoreSummary own = compute_score(alone, weights, 4000);
      REQUIRE(own.categories.size() == 1);
      CHECK(c.score == own.score);
      CHECK(c.findings == own.categories[0].findings);
      CHECK(c.hours.low == findings_hours(own).low);
      CHECK(c.hours.high == findings_hours(own).high);
      counted += c.findings;
    }
    SameLineDuplicates repeats;
    CHECK(counted == size_t(std::count_if(findings.begin(), findings.end(), [&](const Finding& f) {
            return f.category != Category::AnalyzerNote && !repeats.repeated(f);
          })));
  }
}

TEST_CASE("PathWeigher tells apart paths that start at the same address", "[core][score]") {
  // It answers a path at the address of the last one from its memo: the length must match too.
  const std::string text = "tests/x.py";
  const std::string_view file(text), dir = file.substr(0, 5);  // "tests/x.py", "tests"
  PathWeights weights;
  PathWeigher weigh(weights);
  CHECK(weigh(file) == weights.auxiliary);
  CHECK(weigh(dir) == 1.0);  // a file named "tests" is not under tests/
  CHECK(weigh(file) == weights.auxiliary);
  const std::string copy = "tests/x.py";  // the same text elsewhere: the same weight
  CHECK(weigh(copy) == weights.auxiliary);
}

TEST_CASE("native code counts whole: all of it once one native core file is GPU code, a file whole when it holds a novel kernel",
          "[core][score]") {
  // 1,400 lines of Python, a 300-line CUDA file with one standard-op kernel of 40 lines, a 200-line
  // C++ binding and a 100-line header with no finding: the extension is 600 lines, 30% of 2,000.
  auto code = [] {
    CoreCode c(2000);
    c.add_file("pkg/model.py", false, 1400);
    c.add_file("pkg/csrc/ops.cu", true, 300);
    c.add_file("pkg/csrc/bind.cpp", true, 200);
    c.add_file("pkg/csrc/ops.h", true, 100);
    return c;
  };
  std::vector<Finding> standard = {kernel(EffortClass::Medium, "pkg/csrc/ops.cu", 40, {4, 12})};
  ScoreSummary s = compute_score(standard, {}, code());
  CHECK(s.shares.gpu_lines == 600);
  CHECK(s.shares.novel_lines == 0);
  CHECK(s.verdict == Verdict::Significant);  // 30%: under the kernel-library share
  // Without a GPU finding, native code is not GPU code.
  std::vector<Finding> python_only = {make_finding("TPU201", EffortClass::Medium, "pkg/model.py", {1, 3})};
  CHECK(compute_score(python_only, {}, code()).shares.gpu_lines == 0);
  // A CUDA API use in the binding makes the extension GPU code too.
  std::vector<Finding> api = {make_finding("TPU401", EffortClass::Low, "pkg/csrc/bind.cpp", {0.1, 0.25})};
  CHECK(compute_score(api, {}, code()).shares.gpu_lines == 600);
  // A novel kernel makes its file (300 lines, 19%) code with no TPU path; a second one in the same
  // file counts the file once.
  std::vector<Finding> novel = {kernel(EffortClass::High, "pkg/csrc/ops.cu", 40, {16, 40}, 3),
                                kernel(EffortClass::High, "pkg/csrc/ops.cu", 60, {24, 64}, 50)};
  ScoreSummary n = compute_score(novel, {}, code());
  CHECK(n.shares.gpu_lines == 600);
  CHECK(n.shares.novel_lines == 300);
  CHECK(n.verdict == Verdict::Significant);  // 15%: under the share of code with no TPU path
  // Python kernels count by their own lines beside the native files.
  novel.push_back(make_finding("TPU111", EffortClass::High, "pkg/model.py", {8, 24}, Severity::Warning, 10, 100));
  novel.back().category = Category::CustomKernel;
  ScoreSummary p = compute_score(novel, {}, code());
  CHECK(p.shares.gpu_lines == 700);
  CHECK(p.shares.novel_lines == 400);
  CHECK(p.verdict == Verdict::StayOnGpu);  // 20% with no TPU path, 400 lines
  // Findings in a native file of the core code add no lines of their own (the file counts).
  CHECK(p.tally.core_gpu_lines == 100);
}

TEST_CASE("effort: the bring-up run is part of every port with core code, and weighs nothing in the score",
          "[core][score]") {
  const std::vector<Finding> none;
  const ScoreSummary empty = compute_score(none, {}, 0);
  CHECK(empty.bring_up.high == 0);
  CHECK(empty.hours.high == 0);
  const ScoreSummary clean = compute_score(none, {}, 500);
  CHECK(clean.bring_up.low == kBringUp.low);
  CHECK(clean.bring_up.high == kBringUp.high);
  CHECK(clean.core_hours.low == kBringUp.low);
  CHECK(clean.hours.high == kBringUp.high);
  CHECK(clean.score == 100);
  CHECK(clean.verdict == Verdict::TpuReady);
  CHECK(clean.verdict_reason == "no TPU blocker found");
  // With findings: the same fixed part, on top of theirs; the score and verdict are the findings'.
  std::vector<Finding> f = {make_finding("TPU201", EffortClass::Medium, "pkg/model.py", {3, 9})};
  const ScoreSummary some = compute_score(f, {}, 500);
  const HoursRange run = ScoringConstants::bring_up(some.verdict);
  CHECK(some.core_hours.low == 3 + run.low);
  CHECK(some.core_hours.high == 9 + run.high);
  CHECK(some.score == compute_score(f, {}, 0).score);
  CHECK(some.verdict == compute_score(f, {}, 0).verdict);
}

TEST_CASE("effort: the validation runs grow with what the port changes", "[core][score]") {
  // Mechanical changes: a short parity run, longer than a TPU-ready project's smoke run.
  const ScoreSummary portable =
      compute_score(std::vector<Finding>{make_finding("TPU401", EffortClass::Low, "pkg/train.py", {1, 2},
                                                      Severity::Error)}, {}, 500);
  REQUIRE(portable.verdict == Verdict::Portable);
  CHECK(portable.bring_up.low > kBringUp.low);
  CHECK(portable.bring_up.high > kBringUp.high);
  CHECK(portable.core_hours.high == 2 + portable.bring_up.high);
  // A custom kernel with a known TPU path: a training run reproduces the reference metric.
  const ScoreSummary significant =
      compute_score(std::vector<Finding>{kernel(EffortClass::Medium, "pkg/ops/nms.cu", 40, {4, 12})}, {}, 5000);
  REQUIRE(significant.verdict == Verdict::Significant);
  CHECK(significant.bring_up.low >= 4 * portable.bring_up.low);
  CHECK(significant.bring_up.high >= 4 * portable.bring_up.high);
  CHECK(significant.core_hours.low == 4 + significant.bring_up.low);
}

TEST_CASE("a CUDA library is adopted once: its other files' uses cost a further call's hours", "[core][score][plan]") {
  const HoursRange further = Adoption::kFurtherUse;
  auto use = [](std::string path, std::string library, HoursRange hours) {
    Finding f = make_finding("TPU529", EffortClass::High, std::move(path), hours, Severity::Error);
    f.subject = std::move(library);
    return f;
  };
  std::vector<Finding> findings = {
      use("csrc/a.cu", "CUTLASS/CuTe", {16, 60}), use("csrc/b.cuh", "CUTLASS/CuTe", {16, 60}),
      use("csrc/c.cpp", "CUTLASS/CuTe", {16, 60}), use("csrc/d.cu", "cuBLAS/cuBLASLt", {2, 8}),
      // A Python file's use of a CUDA-only library is no C/C++ use: priced on its own.
      use("pkg/ops.py", "CUTLASS/CuTe", {2, 8}),
  };
  const ScoreSummary s = compute_score(findings);
  CHECK(s.core_hours.low == Approx(16 + 2 * further.low + 2 + 2));
  CHECK(s.core_hours.high == Approx(60 + 2 * further.high + 8 + 8));
  // The plan prices its items the same way.
  double plan_high = 0;
  for (const WorkItem& w : plan_work(findings, {})) plan_high += w.hours.high;
  CHECK(plan_high == Approx(s.core_hours.high));
  // Whatever the order; and fixing the use priced whole prices the next one whole: the total falls.
  std::reverse(findings.begin(), findings.end());
  CHECK(compute_score(findings).core_hours.high == Approx(s.core_hours.high));
  findings.pop_back();  // csrc/a.cu
  const ScoreSummary fixed = compute_score(findings);
  CHECK(fixed.core_hours.high == Approx(60 + further.high + 8 + 8));
  CHECK(fixed.score >= s.score);
}

TEST_CASE("an op with no TPU path is replaced once: its further calls cost a further use's hours", "[core][score][plan]") {
  const HoursRange further = Adoption::kFurtherUse;
  auto call = [](std::string id, std::string path, std::string op, HoursRange hours, uint32_t line) {
    Finding f = make_finding(std::move(id), EffortClass::Medium, std::move(path), hours, Severity::Warning, line);
    f.subject = std::move(op);
    return f;
  };
  std::vector<Finding> findings = {
      call("TPU301", "pkg/fftconv.py", "torch.fft.rfft", {4, 16}, 10),
      call("TPU301", "pkg/fftconv.py", "torch.fft.rfft", {4, 16}, 20),
      call("TPU301", "pkg/s4.py", "torch.fft.rfft", {4, 16}, 5),
      call("TPU301", "pkg/s4.py", "torch.fft.irfft", {4, 16}, 6),  // another op: its own replacement
      // Not an op with no TPU path: each place is its own change, whatever its subject.
      call("TPU201", "pkg/s4.py", "torch.fft.rfft", {1, 4}, 7),
      call("TPU201", "pkg/s4.py", "torch.fft.rfft", {1, 4}, 8),
  };
  const ScoreSummary s = compute_score(findings);
  CHECK(findings_core_hours(s).low == Approx(4 + 2 * further.low + 4 + 1 + 1));
  CHECK(findings_core_hours(s).high == Approx(16 + 2 * further.high + 16 + 4 + 4));
  double plan_high = 0;
  for (const WorkItem& w : plan_work(findings, {})) plan_high += w.hours.high;
  CHECK(plan_high == Approx(findings_core_hours(s).high));
  // Whatever the order; and fixing the call priced whole prices the next one whole: the total falls.
  std::reverse(findings.begin(), findings.end());
  CHECK(compute_score(findings).core_hours.high == Approx(s.core_hours.high));
  findings.pop_back();  // pkg/fftconv.py:10
  const ScoreSummary fixed = compute_score(findings);
  CHECK(findings_core_hours(fixed).high == Approx(16 + further.high + 16 + 4 + 4));
  CHECK(fixed.score >= s.score);
}

TEST_CASE("a change made once per project: its other findings cost nothing", "[core][score][plan]") {
  auto chosen = [](std::string path, std::string op, HoursRange hours, bool once = true) {
    Finding f = make_finding("TPU503", EffortClass::Medium, std::move(path), hours, Severity::Error);
    f.subject = std::move(op);
    f.priced_once = once;
    return f;
  };
  std::vector<Finding> findings = {
      chosen("configs/a.py", "deform_conv", {8, 24}), chosen("configs/b.py", "deform_conv", {8, 24}),
      chosen("configs/c.py", "deform_conv", {8, 24}), chosen("configs/a.py", "roi_align", {6, 16}),
      // Not marked: priced on its own, whatever its subject.
      chosen("configs/d.py", "deform_conv", {8, 24}, false),
  };
  const ScoreSummary s = compute_score(findings);
  CHECK(s.core_hours.low == Approx(8 + 6 + 8));
  CHECK(s.core_hours.high == Approx(24 + 16 + 24));
  double plan_high = 0;
  for (const WorkItem& w : plan_work(findings, {})) plan_high += w.hours.high;
  CHECK(plan_high == Approx(s.core_hours.high));
  // Whatever the order; and fixing the one priced prices the next: the total never rises.
  std::reverse(findings.begin(), findings.end());
  CHECK(compute_score(findings).core_hours.high == Approx(s.core_hours.high));
  findings.pop_back();  // configs/a.py's deform_conv
  const ScoreSummary fixed = compute_score(findings);
  CHECK(fixed.core_hours.high == Approx(s.core_hours.high));
  CHECK(fixed.score >= s.score);
  // The use of a library's standard op weighs in the verdict as a standard op's kernel does: a real
  // rewrite with a known path (significant), where the same hours of other changes are portable.
  std::vector<Finding> use = {chosen("pkg/head.py", "roi_align", {6, 16})};
  CHECK(compute_score(use).verdict == Verdict::Portable);
  use[0].standard_op_use = true;
  CHECK(compute_score(use).verdict == Verdict::Significant);
  use[0].discounted = true;
  use[0].severity = Severity::Info;
  CHECK(compute_score(use).verdict == Verdict::TpuReady);
  // A discounted finding is not the one priced: the next one is.
  findings = {chosen("configs/a.py", "deform_conv", {8, 24}), chosen("configs/b.py", "deform_conv", {8, 24})};
  findings[0].discounted = true;
  findings[0].severity = Severity::Info;
  CHECK(compute_score(findings).core_hours.high == Approx(24));
}

TEST_CASE("kernel families: one directory, one name but for the words of a pass", "[core][score]") {
  using F = KernelFamilies;
  CHECK(F::family_of("csrc/causal_conv1d_fwd.cu") == F::family_of("csrc/causal_conv1d_bwd.cu"));
  CHECK(F::family_of("csrc/roi_align_kernel.cu") == F::family_of("csrc/roi_align_cuda.cu"));
  CHECK(F::family_of("gsplat/cuda/csrc/RasterizeToPixelsFwd.cu") == F::family_of("gsplat/cuda/csrc/RasterizeToPixelsBwd.cu"));
  CHECK(F::family_of("ops/GSForward.cu") == F::family_of("ops/GSBackward.cu"));
  CHECK(F::family_of("conv/convolution_forward_implicit_gemm_cuda.cu") ==
        F::family_of("conv/convolution_backward_wgrad_implicit_gemm_cuda.cu"));
  CHECK(F::family_of("conv/sparse_conv_fprop.cu") == F::family_of("conv/sparse_conv_dgrad.cu"));
  CHECK(F::family_of("csrc/roi_align_fwd.cu") != F::family_of("csrc/nms_fwd.cu"));
  CHECK(F::family_of("a/causal_conv1d_fwd.cu") != F::family_of("b/causal_conv1d_fwd.cu"));
  CHECK(F::family_of("csrc/causal_conv1d_update.cu") != F::family_of("csrc/causal_conv1d_fwd.cu"));
  CHECK(F::family_of("kernel.cu") == "kernel.cu");  // nothing but pass words: the file alone
  // Data types, sizes and architectures name variants of one design.
  CHECK(F::family_of("fft/butterfly_padded_cuda.cu") == F::family_of("fft/butterfly_padded_cuda_bf16.cu"));
  CHECK(F::family_of("k/monarch_cuda_32_16_16_bwd_kernel_bf16.h") == F::family_of("k/monarch_cuda_16_16_16_kernel.h"));
  CHECK(F::family_of("q/qk_int_sv_f8_cuda_sm90.cu") == F::family_of("q/qk_int_sv_f8_cuda_sm89.cu"));
  CHECK(F::family_of("ops/conv1d_fwd.cu") != F::family_of("ops/conv2d_fwd.cu"));  // a digit inside a word stays
  CHECK(F::family_of("q/qk_int_sv_f8_cuda_sm90.cu") == F::family_of("q/qk_int_sv_f16_cuda_sm80.cu"));
  CHECK(F::family_of("q/qk_int_sv_f8_cuda_sm90.cu") != F::family_of("q/qk_int_pv_f8_cuda_sm90.cu"));
}

TEST_CASE("kernel families: copies of one extension in several directories are one family", "[core][score]") {
  const double share = KernelFamilies::kShare;
  std::vector<Finding> findings = {
      named(kernel(EffortClass::High, "classification/ops_dcn/src/cuda/dcn_im2col_cuda.cuh", 100, {40, 120}, 10), "im2col"),
      named(kernel(EffortClass::High, "classification/ops_dcn/src/cuda/dcn_im2col_cuda.cuh", 90, {30, 90}, 200), "col2im"),
      named(kernel(EffortClass::High, "detection/ops_dcn/src/cuda/dcn_im2col_cuda.cuh", 95, {40, 120}, 10), "im2col"),
      named(kernel(EffortClass::High, "detection/ops_dcn/src/cuda/dcn_im2col_cuda.cuh", 90, {30, 90}, 200), "col2im"),
      // Another op's kernel of the same name, and the same op's file name with another kernel: not copies.
      named(kernel(EffortClass::High, "segmentation/ops_other/src/other_cuda.cu", 80, {20, 60}, 5), "im2col"),
      named(kernel(EffortClass::High, "tracking/dcn_im2col.cu", 70, {16, 40}, 5), "warp"),
  };
  // classification's im2col whole, its col2im at a share; detection's copies of both are one more
  // configuration each (KernelFamilies::kSpecialization).
  const HoursRange spec = KernelFamilies::kSpecialization;
  const ScoreSummary s = compute_score(findings);
  CHECK(s.core_hours.low == Approx(40 + share * 30 + 2 * spec.low + 20 + 16));
  CHECK(s.core_hours.high == Approx(120 + share * 90 + 2 * spec.high + 60 + 40));
  // Whatever the order of the findings.
  std::reverse(findings.begin(), findings.end());
  CHECK(compute_score(findings).core_hours.high == Approx(s.core_hours.high));
  // Fixing one copy's kernel prices the next one whole: the total never rises.
  findings.erase(findings.end() - 1);  // classification's im2col, the first copy's most expensive
  CHECK(compute_score(findings).core_hours.high <= s.core_hours.high);
  CHECK(compute_score(findings).score >= s.score);
}

TEST_CASE("kernel families: the most expensive kernel whole, the others at a share, in score and plan",
          "[core][score][plan]") {
  const double share = KernelFamilies::kShare;
  std::vector<Finding> findings = {
      kernel(EffortClass::High, "csrc/scan_fwd.cu", 120, {40, 120}, 3),
      kernel(EffortClass::High, "csrc/scan_bwd.cu", 200, {60, 180}, 5),
      kernel(EffortClass::High, "csrc/scan_bwd.cu", 80, {20, 60}, 90),
      kernel(EffortClass::High, "csrc/sort.cu", 100, {30, 90}, 7),
  };
  // One work item: an extension's build lists the kernels' files.
  const std::array<std::string, 4> names = {"scan_fwd", "scan_bwd", "scan_bwd_reduce", "sort"};
  for (size_t i = 0; i < names.size(); ++i) findings[i].subject = names[i];
  Finding build = make_finding("TPU110", EffortClass::None, "setup.py", {}, Severity::Error);
  build.subject = "ext";
  build.related_paths = {"csrc/scan_bwd.cu", "csrc/scan_fwd.cu", "csrc/sort.cu"};
  findings.push_back(build);
  const ScoreSummary s = compute_score(findings);
  CHECK(s.core_hours.low == Approx(60 + share * (40 + 20) + 30));
  CHECK(s.core_hours.high == Approx(180 + share * (120 + 60) + 90));
  CHECK(s.tally.core_novel_hours == Approx(60 + share * (40 + 20) + 30));
  const std::vector<WorkItem> plan = plan_work(findings, {});
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].hours.high == Approx(s.core_hours.high));
  // Whatever the order of the findings.
  std::reverse(findings.begin(), findings.end());
  CHECK(compute_score(findings).core_hours.high == Approx(s.core_hours.high));
  // Fixing the most expensive kernel prices the next one whole, and the total still falls.
  findings.erase(std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.hours.high == 180; }));
  const ScoreSummary fixed = compute_score(findings);
  CHECK(fixed.core_hours.high == Approx(120 + share * 60 + 90));
  CHECK(fixed.score >= s.score);
}

TEST_CASE("kernel families: a kernel's size, type and architecture specializations are one more configuration",
          "[core][score][plan]") {
  using F = KernelFamilies;
  CHECK(F::specialized_name("butterfly_cuda_kernel_16") == "butterfly_cuda_kernel");
  CHECK(F::specialized_name("butterfly_cuda_kernel_16") == F::specialized_name("butterfly_cuda_kernel_128"));
  CHECK(F::specialized_name("monarch_conv_cuda_16_32_32_kernel") == F::specialized_name("monarch_conv_cuda_kernel"));
  CHECK(F::specialized_name("gemm_bf16_sm90") == F::specialized_name("gemm_fp16_sm80"));
  // Operand and accumulator types written one after the other, as CUTLASS names its GEMMs.
  CHECK(F::specialized_name("conv_fwd_mode0_f16f16f32") == F::specialized_name("conv_fwd_mode0_tf32tf32f32"));
  CHECK(F::specialized_name("gemm_s8s8s32") == F::specialized_name("gemm_bf16bf16f32"));
  CHECK(F::specialized_name("conv_fwd_mode0_f16f16f32") != F::specialized_name("conv_fwd_mode1_f16f16f32"));
  CHECK(F::specialized_name("gemm_f16x") != F::specialized_name("gemm_f32x"));
  CHECK(F::specialized_name("flash_fwd_kernel<Kernel_traits, Is_causal>") == "flash_fwd_kernel");
  CHECK(F::specialized_name("monarch_conv_bwd_cuda_kernel") != F::specialized_name("monarch_conv_cuda_kernel"));
  CHECK(F::specialized_name("conv1d_kernel") != F::specialized_name("conv2d_kernel"));  // a digit inside a word stays
  CHECK(F::specialized_name("matmul_kernel4") != F::specialized_name("matmul_kernel5"));  // versions are designs
  CHECK(F::specialized_name("16_32").empty());

  const double share = KernelFamilies::kShare;
  const HoursRange spec = KernelFamilies::kSpecialization;
  std::vector<Finding> findings = {
      named(kernel(EffortClass::High, "fft/butterfly_cuda.cu", 100, {40, 120}, 10), "butterfly_kernel_64"),
      named(kernel(EffortClass::High, "fft/butterfly_cuda.cu", 100, {40, 120}, 90), "butterfly_kernel_32"),
      named(kernel(EffortClass::High, "fft/butterfly_cuda_bf16.cu", 100, {40, 120}, 10), "butterfly_kernel_64"),
      named(kernel(EffortClass::High, "fft/butterfly_cuda.cu", 100, {30, 90}, 200), "butterfly_ifft_kernel_64"),
      // Small enough that a share of it is less than a configuration's hours: the share.
      named(kernel(EffortClass::High, "fft/butterfly_cuda.cu", 10, {2, 8}, 300), "butterfly_copy_16"),
      named(kernel(EffortClass::High, "fft/butterfly_cuda.cu", 10, {2, 8}, 310), "butterfly_copy_32"),
      // Another family: priced on its own.
      named(kernel(EffortClass::High, "fft/monarch.cu", 100, {40, 120}, 10), "butterfly_kernel_16"),
  };
  const ScoreSummary s = compute_score(findings);
  CHECK(findings_core_hours(s).low == Approx(40 + 2 * spec.low + share * 30 + share * 2 + share * 2 + 40));
  CHECK(findings_core_hours(s).high == Approx(120 + 2 * spec.high + share * 90 + share * 8 + share * 8 + 120));
  double plan_high = 0;
  for (const WorkItem& w : plan_work(findings, {})) plan_high += w.hours.high;
  CHECK(plan_high == Approx(findings_core_hours(s).high));
  // Whatever the order; and fixing the specialization priced whole prices the next one whole: the total falls.
  std::reverse(findings.begin(), findings.end());
  CHECK(compute_score(findings).core_hours.high == Approx(s.core_hours.high));
  findings.pop_back();  // butterfly_kernel_64 of fft/butterfly_cuda.cu
  const ScoreSummary fixed = compute_score(findings);
  CHECK(findings_core_hours(fixed).high == Approx(120 + spec.high + share * 90 + share * 8 + share * 8 + 120));
  CHECK(fixed.score >= s.score);
}

TEST_CASE("a data table's hours parse as a range or not at all", "[core][score]") {
  CHECK(parse_hours_range("4-12")->low == 4);
  CHECK(parse_hours_range("4-12")->high == 12);
  CHECK(parse_hours_range("0.25-0.5")->low == 0.25);
  CHECK(parse_hours_range("0.25-0.5")->high == 0.5);
  CHECK_FALSE(parse_hours_range("12"));
  CHECK_FALSE(parse_hours_range("12-4"));
  CHECK_FALSE(parse_hours_range("4-12h"));
  CHECK_FALSE(parse_hours_range("-4"));
  CHECK_FALSE(parse_hours_range(""));
}

TEST_CASE("a model zoo's variants are priced as alternatives, each directory's costliest priced high", "[core][score][plan]") {
  auto in_variant = [](std::string path, HoursRange hours, uint32_t line = 1) {
    Finding f = make_finding("TPU301", EffortClass::Medium, std::move(path), hours, Severity::Warning, line);
    f.subject = fmt::format("op of {}:{}", f.path.view(), line);  // a rare op each: no replacement shared
    f.model_variant = true;
    return f;
  };
  std::vector<Finding> findings = {
      in_variant("zoo/a.py", {4, 16}),       in_variant("zoo/b.py", {1, 4}),   in_variant("zoo/b.py", {2, 8}, 2),
      in_variant("other/x.py", {1, 2}),      in_variant("other/y.py", {1, 3}),
      make_finding("TPU301", EffortClass::Medium, "zoo/shared.py", {1, 4}),  // not a variant: priced whole
  };
  const ScoreSummary s = compute_score(findings);
  CHECK(findings_core_hours(s).low == Approx(1));
  // zoo/a.py (16 h) over zoo/b.py (12 h); other/y.py (3 h) over other/x.py.
  CHECK(findings_core_hours(s).high == Approx(16 + 3 + 4));
  double plan_high = 0;
  for (const WorkItem& w : plan_work(findings, {})) plan_high += w.hours.high;
  CHECK(plan_high == Approx(findings_core_hours(s).high));
  // Fixing the costliest variant's finding prices the next one: the high bound falls, never rises.
  findings.erase(findings.begin());
  CHECK(findings_core_hours(compute_score(findings)).high == Approx(12 + 3 + 4));
  // One variant is taken whole, with all its categories: not the costliest of each category from
  // different variants. zoo/b.py's dynamic shape and op (2 + 8 h) over zoo/a.py's op (9 h), though
  // zoo/a.py's op costs more than zoo/b.py's.
  std::vector<Finding> mixed = {in_variant("zoo/a.py", {1, 9}), in_variant("zoo/b.py", {1, 2}), in_variant("zoo/b.py", {1, 8}, 2)};
  mixed[2].check_id = "TPU201";
  mixed[2].category = Category::DynamicShape;
  CHECK(findings_core_hours(compute_score(mixed)).high == Approx(2 + 8));
  // A variant's test code does not make it the costliest: its self-test is not ported.
  mixed.push_back(in_variant("zoo/a.py", {4, 12}, 3));
  mixed.back().context = Context::Test;
  CHECK(findings_core_hours(compute_score(mixed)).high == Approx(2 + 8));
  // A variant's error still decides the verdict: the code is there to port when that model is taken.
  std::vector<Finding> error = {in_variant("zoo/a.py", {1, 2})};
  error[0].severity = Severity::Error;
  CHECK(compute_score(error).verdict == Verdict::Portable);
}

TEST_CASE("test code weighs as tests do wherever it is: a test function in the package is not core effort", "[core][score]") {
  Finding f = make_finding("TPU401", EffortClass::Low, "pkg/ops.py", {1, 2}, Severity::Error);
  const ScoreSummary core = compute_score(std::vector<Finding>{f});
  CHECK(core.verdict == Verdict::Portable);
  f.context = Context::Test;
  const ScoreSummary test = compute_score(std::vector<Finding>{f});
  CHECK(test.verdict == Verdict::TpuReady);
  CHECK(findings_core_hours(test).high == 0);
  CHECK(findings_hours(test).high == Approx(2));
  CHECK(test.score > core.score);
  CHECK(finding_weight(f, 1.0, PathWeights{}) == PathWeights{}.auxiliary);
  CHECK(finding_weight(f, 0.1, PathWeights{}) == 0.1);
}
