// compute_score(): property tests over generated finding sets, path weighting, auxiliary
// paths and the verdict rules.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/scan.h"
#include "core/score.h"

using namespace tpulint;

namespace {

using C = ScoringConstants;

Finding make_finding(std::string id, EffortClass effort, std::string path, HoursRange hours = {},
                     Severity severity = Severity::Warning, uint32_t line = 1) {
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
  return f;
}

constexpr std::array<std::string_view, 12> kIds = {"TPU101", "TPU102", "TPU201", "TPU203", "TPU301", "TPU302",
                                                   "TPU401", "TPU402", "TPU501", "TPU601", "TPU901", "TPU902"};
constexpr std::array<std::string_view, 8> kPaths = {"pkg/model.py",      "pkg/ops/kernel.cu",   "pkg/train.py",
                                                    "tests/test_model.py", "tests/util.py",   "examples/run.py",
                                                    "setup.py",          "benchmarks/bench.py"};

// Hours are whole or half hours so every sum is exact and independent of the order of addition.
std::vector<Finding> random_findings(std::mt19937& rng, size_t max_count = 30) {
  std::uniform_int_distribution<size_t> count(0, max_count);
  std::uniform_int_distribution<size_t> id(0, kIds.size() - 1);
  std::uniform_int_distribution<size_t> path(0, kPaths.size() - 1);
  std::uniform_int_distribution<int> effort(0, 3);
  std::uniform_int_distribution<int> severity(0, 2);
  std::uniform_int_distribution<int> half_hours(0, 40);
  std::uniform_int_distribution<uint32_t> line(1, 500);
  std::vector<Finding> out;
  size_t n = count(rng);
  for (size_t i = 0; i < n; ++i) {
    double low = half_hours(rng) / 2.0;
    double high = low + half_hours(rng) / 2.0;
    out.push_back(make_finding(std::string(kIds[id(rng)]), EffortClass(effort(rng)), std::string(kPaths[path(rng)]),
                               {low, high}, Severity(severity(rng)), line(rng)));
  }
  return out;
}

// The parts of a summary that do not depend on the order of the findings.
void require_same_numbers(const ScoreSummary& a, const ScoreSummary& b) {
  REQUIRE(a.score == b.score);
  REQUIRE(a.penalty == b.penalty);
  REQUIRE(a.hours.low == b.hours.low);
  REQUIRE(a.hours.high == b.hours.high);
  REQUIRE(a.verdict == b.verdict);
  REQUIRE(a.categories.size() == b.categories.size());
  for (size_t i = 0; i < a.categories.size(); ++i) {
    REQUIRE(a.categories[i].category == b.categories[i].category);
    REQUIRE(a.categories[i].score == b.categories[i].score);
    REQUIRE(a.categories[i].penalty == b.categories[i].penalty);
    REQUIRE(a.categories[i].findings == b.categories[i].findings);
    REQUIRE(a.categories[i].hours.low == b.categories[i].hours.low);
    REQUIRE(a.categories[i].hours.high == b.categories[i].hours.high);
  }
}

void require_identical(const ScoreSummary& a, const ScoreSummary& b) {
  require_same_numbers(a, b);
  REQUIRE(a.verdict_reason == b.verdict_reason);
}

// The documented formula, recomputed independently for one check and effort class.
double expected_score(double weight_sum, double cap) {
  double penalty = cap * (1 - std::exp(-weight_sum / cap));
  return std::round(1000 * std::exp(-penalty / C::kScale)) / 10;
}

constexpr int kRandomSets = 200;

}  // namespace

TEST_CASE("the score and every category score stay within [0, 100]", "[core][score]") {
  std::mt19937 rng(20240611);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 60);
    ScoreSummary s = compute_score(findings);
    INFO("round " << round << ", " << findings.size() << " findings");
    REQUIRE(s.score >= 0);
    REQUIRE(s.score <= 100);
    REQUIRE(s.penalty >= 0);
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
  // Even an absurd number of high-effort findings keeps the score at or above 0.
  std::vector<Finding> many;
  for (int i = 0; i < 2000; ++i)
    many.push_back(make_finding("TPU1" + std::to_string(10 + i % 90), EffortClass::High, "pkg/k.cu", {8, 16}));
  ScoreSummary s = compute_score(many);
  CHECK(s.score >= 0);
  CHECK(s.score < 1);
}

TEST_CASE("removing any single finding never lowers the score", "[core][score]") {
  std::mt19937 rng(7);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 25);
    ScoreSummary full = compute_score(findings);
    for (size_t i = 0; i < findings.size(); ++i) {
      std::vector<Finding> fewer = findings;
      fewer.erase(fewer.begin() + long(i));
      ScoreSummary s = compute_score(fewer);
      INFO("round " << round << ", without finding " << i << " (" << findings[i].check_id << ")");
      REQUIRE(s.score >= full.score);
      REQUIRE(s.penalty <= full.penalty);
    }
  }
}

TEST_CASE("the score ignores the order of findings and is deterministic", "[core][score]") {
  std::mt19937 rng(12345);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 40);
    ScoreSummary a = compute_score(findings);
    ScoreSummary again = compute_score(findings);
    INFO("round " << round);
    require_identical(a, again);
    // The penalty is summed per (check, effort) in an ordered map, so a permutation changes
    // nothing but, possibly, which finding the verdict reason names first.
    std::vector<Finding> shuffled = findings;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    require_same_numbers(a, compute_score(shuffled));
    std::reverse(shuffled.begin(), shuffled.end());
    require_same_numbers(a, compute_score(shuffled));
  }
}

TEST_CASE("adding clean files to a report changes nothing", "[core][score]") {
  std::mt19937 rng(99);
  auto keep_all = [](std::string_view) { return true; };
  for (int round = 0; round < 50; ++round) {
    auto findings = random_findings(rng, 20);
    // Spread the findings over per-file results, as the scan does.
    std::vector<FileResult> results;
    for (std::string_view p : kPaths) {
      FileResult r;
      r.path = std::string(p);
      r.language = Language::Python;
      r.analyzed = true;
      for (const Finding& f : findings)
        if (f.path == p) r.findings.push_back(f);
      results.push_back(std::move(r));
    }
    ScanReport base = build_report(Discovery{}, results, keep_all, PathWeights{});
    std::vector<FileResult> with_clean = results;
    for (int i = 0; i < 20; ++i) {
      FileResult r;
      r.path = "pkg/clean_" + std::to_string(i) + ".py";
      r.language = Language::Python;
      r.analyzed = true;
      with_clean.push_back(std::move(r));
    }
    ScanReport more = build_report(Discovery{}, with_clean, keep_all, PathWeights{});
    INFO("round " << round);
    require_identical(base.score, more.score);
    REQUIRE(more.analyzed == base.analyzed + 20);
    REQUIRE(more.findings.size() == base.findings.size());
  }
}

TEST_CASE("analyzer notes (TPU9xx) never change the score", "[core][score]") {
  std::mt19937 rng(4242);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 20);
    std::vector<Finding> without_notes;
    for (const Finding& f : findings)
      if (f.category != Category::AnalyzerNote) without_notes.push_back(f);
    ScoreSummary a = compute_score(findings);
    ScoreSummary b = compute_score(without_notes);
    INFO("round " << round);
    require_identical(a, b);
  }
  // Notes with the heaviest effort and many hours, in core code, still count for nothing.
  std::vector<Finding> notes;
  for (std::string id : {"TPU901", "TPU902", "TPU903"})
    notes.push_back(make_finding(id, EffortClass::High, "pkg/model.py", {100, 200}, Severity::Error));
  ScoreSummary s = compute_score(notes);
  CHECK(s.score == 100);
  CHECK(s.penalty == 0);
  CHECK(s.hours.low == 0);
  CHECK(s.hours.high == 0);
  CHECK(s.categories.empty());
  CHECK(s.verdict == Verdict::TpuReady);
}

TEST_CASE("one high-effort kernel outweighs a hundred low-effort API calls", "[core][score]") {
  std::vector<Finding> kernel{make_finding("TPU101", EffortClass::High, "pkg/ops/nms.cu", {16, 40})};
  std::vector<Finding> calls;
  for (uint32_t i = 0; i < 100; ++i)
    calls.push_back(make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.25}, Severity::Error, i + 1));
  ScoreSummary k = compute_score(kernel);
  ScoreSummary c = compute_score(calls);
  CHECK(k.score < c.score);
  CHECK(k.penalty > c.penalty);
  // The numbers follow the documented formula.
  CHECK(k.score == Approx(expected_score(C::kWeightHigh, C::kCapHigh)));
  CHECK(c.score == Approx(expected_score(100 * C::kWeightLow, C::kCapLow)));
  CHECK(k.penalty == Approx(C::kCapHigh * (1 - std::exp(-C::kWeightHigh / C::kCapHigh))));
  // One check's low-effort findings saturate below its cap.
  CHECK(c.penalty < C::kCapLow);
  // Even a thousand of them do not.
  std::vector<Finding> thousand;
  for (uint32_t i = 0; i < 1000; ++i)
    thousand.push_back(make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.25}, Severity::Error, i + 1));
  CHECK(compute_score(thousand).score > k.score);
}

TEST_CASE("the score follows the documented formula per check and effort class", "[core][score]") {
  CHECK(compute_score(std::vector<Finding>{}).score == 100);
  CHECK(compute_score(std::vector<Finding>{}).penalty == 0);
  // Two findings of one check add their weights before saturating.
  std::vector<Finding> two{make_finding("TPU201", EffortClass::Medium, "pkg/a.py"),
                           make_finding("TPU201", EffortClass::Medium, "pkg/b.py")};
  CHECK(compute_score(two).score == Approx(expected_score(2 * C::kWeightMedium, C::kCapMedium)));
  // Findings of different checks saturate separately, so they cost more than one check's pair.
  std::vector<Finding> split{make_finding("TPU201", EffortClass::Medium, "pkg/a.py"),
                             make_finding("TPU202", EffortClass::Medium, "pkg/b.py")};
  CHECK(compute_score(split).penalty > compute_score(two).penalty);
  CHECK(compute_score(split).penalty ==
        Approx(2 * C::kCapMedium * (1 - std::exp(-C::kWeightMedium / C::kCapMedium))));
  // An effort of None costs nothing.
  std::vector<Finding> none{make_finding("TPU601", EffortClass::None, "pkg/a.py", {1, 2})};
  CHECK(compute_score(none).score == 100);
  CHECK(compute_score(none).hours.high == 2);
}

TEST_CASE("a finding in auxiliary code lowers the score less than in the package", "[core][score]") {
  for (EffortClass e : {EffortClass::Low, EffortClass::Medium, EffortClass::High}) {
    INFO("effort " << to_string(e));
    double core = compute_score(std::vector<Finding>{make_finding("TPU301", e, "pkg/model.py")}).score;
    for (std::string aux : {"tests/test_model.py", "examples/train.py", "docs/conf.py", "benchmarks/b.py",
                            "pkg/tests/helpers.py", "test_model.py"}) {
      INFO("path " << aux);
      double s = compute_score(std::vector<Finding>{make_finding("TPU301", e, aux)}).score;
      CHECK(s > core);
      CHECK(s < 100);
    }
  }
  // The auxiliary weight is the PathWeights knob.
  CHECK(path_weight("tests/a.py", PathWeights{}) == 0.25);
  CHECK(path_weight("pkg/a.py", PathWeights{}) == 1.0);
  CHECK(path_weight("tests/a.py", PathWeights{0.5, {}}) == 0.5);
  std::vector<Finding> aux{make_finding("TPU101", EffortClass::High, "tests/k.cu")};
  std::vector<Finding> core{make_finding("TPU101", EffortClass::High, "pkg/k.cu")};
  CHECK(compute_score(aux, PathWeights{1.0, {}}).score == compute_score(core).score);
  CHECK(compute_score(aux, PathWeights{0.0, {}}).score == 100);
  CHECK(compute_score(aux, PathWeights{0.0, {}}).hours.low == 0);  // no hours given
}

TEST_CASE("is_auxiliary_path recognises tests, examples, benchmarks and docs", "[core][score]") {
  for (std::string_view p : {"tests/x.py", "test/x.py", "testing/x.py", "pkg/tests/x.py", "a/b/tests/c/d.cu",
                             "test_x.py", "pkg/test_model.py", "pkg/test_kernel.cu", "x_test.py", "pkg/model_test.py",
                             "conftest.py", "pkg/conftest.py", "benchmarks/b.py", "benchmark/b.py", "bench/b.py",
                             "examples/e.py", "example/e.py", "docs/conf.py", "doc/x.py", "docs/source/api.py"}) {
    INFO(p);
    CHECK(is_auxiliary_path(p));
  }
  for (std::string_view p : {"pkg/model.py", "model.py", "setup.py", "pkg/testing_utils.py", "pkg/tests.py",
                             "tests.py", "pkg/contest.py", "pkg/attest/x.py", "mytests/x.py", "pkg/latest.py",
                             "pkg/testdata.py", "documentation/x.py", "examples.py", "pkg/test.py", "",
                             "pkg/model_test.cc", "Tests/x.py"}) {
    INFO(p);
    CHECK_FALSE(is_auxiliary_path(p));
  }
}

TEST_CASE("verdict: no findings is tpu-ready", "[core][score]") {
  ScoreSummary s = compute_score(std::vector<Finding>{});
  CHECK(s.verdict == Verdict::TpuReady);
  CHECK(s.score == 100);
  CHECK(s.hours.low == 0);
  CHECK(s.hours.high == 0);
  CHECK(s.categories.empty());
  CHECK_FALSE(s.verdict_reason.empty());
  CHECK(to_string(s.verdict) == "tpu-ready");
}

TEST_CASE("verdict: a few hours of warnings is still tpu-ready", "[core][score]") {
  std::vector<Finding> f{make_finding("TPU601", EffortClass::Low, "pkg/train.py", {0.5, 2}, Severity::Warning, 3),
                         make_finding("TPU602", EffortClass::Medium, "pkg/train.py", {1, 4}, Severity::Warning, 9)};
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict == Verdict::TpuReady);
  CHECK(s.score < 100);
  CHECK_FALSE(s.verdict_reason.empty());
  CHECK(s.hours.low == 1.5);
  CHECK(s.hours.high == 6);
}

TEST_CASE("verdict: only low-effort error findings is portable", "[core][score]") {
  std::vector<Finding> f{
      make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.5}, Severity::Error, 12),
      make_finding("TPU401", EffortClass::Low, "pkg/train.py", {0.1, 0.5}, Severity::Error, 3),
      make_finding("TPU402", EffortClass::Low, "pkg/model.py", {0.1, 0.5}, Severity::Error, 40),
  };
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict == Verdict::Portable);
  CHECK(to_string(s.verdict) == "portable");
  CHECK_THAT(s.verdict_reason, Catch::Contains("pkg/model.py:12"));  // the first error, in input order
}

TEST_CASE("verdict: more than a day of core warnings is portable", "[core][score]") {
  std::vector<Finding> f{make_finding("TPU601", EffortClass::Medium, "pkg/a.py", {2, 6}),
                         make_finding("TPU602", EffortClass::Medium, "pkg/b.py", {2, 6})};
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict == Verdict::Portable);
  CHECK_FALSE(s.verdict_reason.empty());
  // The same hours in tests only do not count.
  std::vector<Finding> t{make_finding("TPU601", EffortClass::Medium, "tests/a.py", {2, 6}),
                         make_finding("TPU602", EffortClass::Medium, "tests/b.py", {2, 6})};
  CHECK(compute_score(t).verdict == Verdict::TpuReady);
}

TEST_CASE("verdict: a single high-effort finding under 40 hours is significant", "[core][score]") {
  std::vector<Finding> f{
      make_finding("TPU401", EffortClass::Low, "pkg/model.py", {0.1, 0.5}, Severity::Error, 5),
      make_finding("TPU101", EffortClass::High, "pkg/ops/nms.cu", {16, 40}, Severity::Error, 27),
  };
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict == Verdict::Significant);
  CHECK(to_string(s.verdict) == "significant");
  CHECK_THAT(s.verdict_reason, Catch::Contains("pkg/ops/nms.cu:27"));

  // Just under the stay-on-GPU threshold.
  std::vector<Finding> g{make_finding("TPU101", EffortClass::High, "pkg/k.cu", {39.5, 80}, Severity::Error, 2)};
  CHECK(compute_score(g).verdict == Verdict::Significant);
}

TEST_CASE("verdict: 40 or more core hours of medium work is significant", "[core][score]") {
  std::vector<Finding> f;
  for (uint32_t i = 0; i < 5; ++i)
    f.push_back(make_finding("TPU201", EffortClass::Medium, "pkg/model.py", {8, 16}, Severity::Warning, i + 1));
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict == Verdict::Significant);
  CHECK_FALSE(s.verdict_reason.empty());
}

TEST_CASE("verdict: high-effort findings of 40 hours or more in core code stay on GPU", "[core][score]") {
  std::vector<Finding> f{
      make_finding("TPU201", EffortClass::Medium, "pkg/model.py", {2, 4}, Severity::Warning, 1),
      make_finding("TPU101", EffortClass::High, "tests/test_kernel.cu", {30, 60}, Severity::Error, 2),
      make_finding("TPU101", EffortClass::High, "pkg/ops/nms.cu", {24, 48}, Severity::Error, 14),
      make_finding("TPU501", EffortClass::High, "pkg/ops/attn.py", {16, 40}, Severity::Error, 3),
  };
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict == Verdict::StayOnGpu);
  CHECK(to_string(s.verdict) == "stay-on-gpu");
  // The first high-effort finding in core code, in input order (the one under tests/ is skipped).
  CHECK_THAT(s.verdict_reason, Catch::Contains("pkg/ops/nms.cu:14"));
  CHECK_THAT(s.verdict_reason, !Catch::Contains("tests/test_kernel.cu"));

  // Exactly at the threshold.
  std::vector<Finding> g{make_finding("TPU101", EffortClass::High, "pkg/k.cu", {40, 80}, Severity::Error, 2)};
  ScoreSummary t = compute_score(g);
  CHECK(t.verdict == Verdict::StayOnGpu);
  CHECK_THAT(t.verdict_reason, Catch::Contains("pkg/k.cu:2"));
}

TEST_CASE("verdict: the same high-effort findings only under tests/ do not stay on GPU", "[core][score]") {
  std::vector<Finding> f{
      make_finding("TPU101", EffortClass::High, "tests/ops/nms.cu", {24, 48}, Severity::Error, 14),
      make_finding("TPU501", EffortClass::High, "tests/test_attn.py", {16, 40}, Severity::Error, 3),
      make_finding("TPU102", EffortClass::High, "examples/k.cu", {40, 80}, Severity::Error, 3),
  };
  ScoreSummary s = compute_score(f);
  CHECK(s.verdict != Verdict::StayOnGpu);
  // Auxiliary code does not decide the verdict at all.
  CHECK(s.verdict == Verdict::TpuReady);
  // It still counts, lightly, in the score and fully in the hours.
  CHECK(s.score < 100);
  CHECK(s.hours.low == 80);
  CHECK(s.hours.high == 168);
}

TEST_CASE("the verdict does not depend on the order of findings", "[core][score]") {
  std::mt19937 rng(2718);
  for (int round = 0; round < kRandomSets; ++round) {
    auto findings = random_findings(rng, 15);
    Verdict v = compute_score(findings).verdict;
    std::shuffle(findings.begin(), findings.end(), rng);
    INFO("round " << round);
    REQUIRE(compute_score(findings).verdict == v);
    REQUIRE_FALSE(compute_score(findings).verdict_reason.empty());
  }
}

TEST_CASE("verdict strings", "[core][score]") {
  CHECK(to_string(Verdict::TpuReady) == "tpu-ready");
  CHECK(to_string(Verdict::Portable) == "portable");
  CHECK(to_string(Verdict::Significant) == "significant");
  CHECK(to_string(Verdict::StayOnGpu) == "stay-on-gpu");
}

TEST_CASE("category scores cover each category's findings", "[core][score]") {
  std::vector<Finding> f{
      make_finding("TPU401", EffortClass::Low, "pkg/a.py", {1, 2}),
      make_finding("TPU101", EffortClass::High, "pkg/k.cu", {16, 40}),
      make_finding("TPU402", EffortClass::Low, "pkg/b.py", {1, 2}),
      make_finding("TPU902", EffortClass::None, "pkg/c.py"),
  };
  ScoreSummary s = compute_score(f);
  REQUIRE(s.categories.size() == 2);
  CHECK(s.categories[0].category == Category::CustomKernel);
  CHECK(s.categories[0].findings == 1);
  CHECK(s.categories[0].hours.low == 16);
  CHECK(s.categories[0].score == Approx(expected_score(C::kWeightHigh, C::kCapHigh)));
  CHECK(s.categories[1].category == Category::CudaApi);
  CHECK(s.categories[1].findings == 2);
  CHECK(s.categories[1].hours.high == 4);
  CHECK(s.categories[1].score > s.score);
  CHECK(s.hours.low == 18);
  CHECK(s.hours.high == 44);
}

TEST_CASE("each category's score is the score of its findings alone, with path weights", "[core][score]") {
  // compute_score weighs each finding's path once and adds it to the whole model and its
  // category's in one pass: every number must equal the score of the category's findings scored
  // on their own, exactly (same sums in the same order), under weight rules and auxiliary paths.
  PathWeights weights;
  weights.rules = {{"pkg/ops/**", 0.5}, {"tests/util.py", 2}};
  std::mt19937 rng(7);
  for (int round = 0; round < kRandomSets; ++round) {
    std::vector<Finding> findings = random_findings(rng, 60);
    ScoreSummary all = compute_score(findings, weights);
    size_t counted = 0;
    for (const CategoryScore& c : all.categories) {
      INFO("round " << round << ", category " << int(c.category));
      std::vector<Finding> alone;
      for (const Finding& f : findings)
        if (f.category == c.category) alone.push_back(f);
      ScoreSummary own = compute_score(alone, weights);
      REQUIRE(own.categories.size() == 1);
      CHECK(c.penalty == own.penalty);
      CHECK(c.score == own.score);
      CHECK(c.findings == alone.size());
      CHECK(c.hours.low == own.hours.low);
      CHECK(c.hours.high == own.hours.high);
      counted += c.findings;
    }
    PenaltyModel model(weights);
    for (const Finding& f : findings) model.add(f);
    CHECK(all.penalty == model.penalty());
    CHECK(counted == size_t(std::count_if(findings.begin(), findings.end(),
                                          [](const Finding& f) { return f.category != Category::AnalyzerNote; })));
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
