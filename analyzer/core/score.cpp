#include "core/score.h"

#include "core/ignore_rules.h"

#include <array>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace tpulint {

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::TpuReady: return "tpu-ready";
    case Verdict::Portable: return "portable";
    case Verdict::Significant: return "significant";
    case Verdict::StayOnGpu: return "stay-on-gpu";
  }
  return "unknown";
}

bool is_auxiliary_path(std::string_view path) {
  static constexpr std::array<std::string_view, 10> kDirs = {
      "test", "tests", "testing", "bench", "benchmark", "benchmarks",
      "example", "examples", "doc", "docs"};
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t slash = path.find('/', begin);
    bool last = slash == std::string_view::npos;
    std::string_view part = path.substr(begin, last ? std::string_view::npos : slash - begin);
    if (last) {
      return part.starts_with("test_") || part.ends_with("_test.py") || part == "conftest.py";
    }
    for (std::string_view d : kDirs)
      if (part == d) return true;
    begin = slash + 1;
  }
  return false;
}

double path_weight(std::string_view path, const PathWeights& weights) {
  for (auto it = weights.rules.rbegin(); it != weights.rules.rend(); ++it)
    if (path_or_parent_matches(it->first, path)) return it->second;
  return is_auxiliary_path(path) ? weights.auxiliary : 1.0;
}

bool decides_verdict(double path_weight) { return path_weight >= 1; }
bool decides_verdict(std::string_view path, const PathWeights& weights) { return decides_verdict(path_weight(path, weights)); }

double PathWeigher::operator()(std::string_view path) {
  // The same path is mostly the same text (an interned path): its address answers first.
  if (!last_ || last_->first.data() != path.data() || last_->first.size() != path.size()) {
    auto [it, inserted] = weights_by_path_.try_emplace(path, 0.0);
    if (inserted) it->second = path_weight(path, weights_);
    last_ = &*it;  // unordered_map elements stay where they are
  }
  return last_->second;
}

namespace {

using C = ScoringConstants;

double weight_of(EffortClass e) {
  switch (e) {
    case EffortClass::High: return C::kWeightHigh;
    case EffortClass::Medium: return C::kWeightMedium;
    case EffortClass::Low: return C::kWeightLow;
    case EffortClass::None: return 0;
  }
  return 0;
}

double cap_of(EffortClass e) {
  switch (e) {
    case EffortClass::High: return C::kCapHigh;
    case EffortClass::Medium: return C::kCapMedium;
    case EffortClass::Low: return C::kCapLow;
    case EffortClass::None: return 1;
  }
  return 1;
}

// One check's term: its weights add up, then saturate at the class's cap.
double saturate(double sum, EffortClass effort) {
  double cap = cap_of(effort);
  return cap * (1 - std::exp(-sum / cap));
}

double score_of(double penalty) { return score_from_penalty(penalty); }

std::string where(const Finding& f) { return fmt::format("{}:{}", f.path, f.start.line); }

// Small estimates keep a decimal ("0.4", not "0"); large ones do not pretend to precision.
std::string hours_text(double h) { return h < 10 ? fmt::format("{:.1f}", h) : fmt::format("{:.0f}", h); }

}  // namespace

// The penalty of a set of findings: per check and effort class, the weights add up and then
// saturate at the class's cap (cap * (1 - exp(-sum / cap))), so a hundred '.cuda()' calls
// never outweigh one custom kernel, while every finding still adds a little. Each term grows
// with every finding, so removing a finding can only raise the score.
double PenaltyModel::weight(const Finding& f) const {
  if (f.category == Category::AnalyzerNote) return 0;
  return weight_of(f.effort) * path_weight_(f.path);
}

PenaltyModel::Added PenaltyModel::add_to(Sums& sums, const Finding& f, double weight) {
  auto it = sums.find(KeyView{f.check_id, f.effort});
  if (it == sums.end()) it = sums.emplace(Key{f.check_id, f.effort}, 0.0).first;
  it->second += weight;
  return {&*it, weight};
}

PenaltyModel::Added PenaltyModel::add(const Finding& f) {
  if (f.category == Category::AnalyzerNote) return {};
  return add_to(sums_, f, weight(f));
}

PenaltyModel::Added PenaltyModel::add(const Finding& f, double path_weight) {
  if (f.category == Category::AnalyzerNote) return {};
  return add_to(sums_, f, weight_of(f.effort) * path_weight);  // weight(f), with the path weighed
}

const std::vector<const PenaltyModel::Sums::value_type*>& PenaltyModel::in_key_order() const {
  if (key_order_.size() != sums_.size()) {  // terms are only ever added
    key_order_.clear();
    for (const auto& entry : sums_) key_order_.push_back(&entry);
    std::sort(key_order_.begin(), key_order_.end(), [](auto* a, auto* b) { return a->first < b->first; });
  }
  return key_order_;
}

std::vector<PenaltyModel::Term> PenaltyModel::terms() const {
  std::vector<Term> out;
  for (const auto* e : in_key_order())
    out.push_back({e->first.check_id, e->first.effort, e->second, saturate(e->second, e->first.effort)});
  return out;
}

double PenaltyModel::penalty() const {
  double p = 0;
  for (const auto* e : in_key_order()) p += saturate(e->second, e->first.effort);
  return p;
}

void PenaltyModel::Removal::take(Added a) {
  if (!a.term) return;
  // Summed per term in the order taken, as the term's own sum was.
  for (auto& [term, sum] : sums_)
    if (term == a.term) {
      sum += a.weight;
      return;
    }
  sums_.emplace_back(a.term, a.weight);
}

double PenaltyModel::penalty_without(const Removal& removed) const {
  double p = 0;
  for (const auto* e : in_key_order()) {
    double sum = e->second;
    for (const auto& [term, taken] : removed.sums_)
      if (term == e) sum = std::max(0.0, sum - taken);
    p += saturate(sum, e->first.effort);
  }
  return p;
}

double score_from_penalty(double penalty) { return std::round(1000 * std::exp(-penalty / C::kScale)) / 10; }

ScoreSummary compute_score(std::span<const Finding> findings, const PathWeights& weights) {
  ScoreSummary out;
  // One pass: each finding's path is weighed once, and the finding added to the whole scan's
  // model and to its category's, in the findings' order (so every sum is the same as the
  // model's of each set alone).
  struct CategoryTally {
    explicit CategoryTally(const PathWeights& weights) : model(weights) {}
    PenaltyModel model;
    size_t findings = 0;
    HoursRange hours;
  };
  PenaltyModel all(weights);
  std::map<Category, CategoryTally> by_category;
  auto tally = by_category.end();  // the last finding's category's
  size_t counted = 0;
  // The verdict looks at the package's own code only: auxiliary code does not decide a migration.
  double core_low = 0, core_high = 0, high_effort_low = 0;
  const Finding* first_high = nullptr;
  const Finding* first_error = nullptr;
  size_t high_count = 0;
  PathWeigher path_weight_of(weights);
  for (const Finding& f : findings) {
    if (f.category == Category::AnalyzerNote) continue;
    ++counted;
    out.hours.low += f.hours.low;
    out.hours.high += f.hours.high;
    const double path_weight = path_weight_of(f.path);
    all.add(f, path_weight);
    if (tally == by_category.end() || tally->first != f.category)
      tally = by_category.try_emplace(f.category, weights).first;
    CategoryTally& t = tally->second;
    t.model.add(f, path_weight);
    ++t.findings;
    t.hours.low += f.hours.low;
    t.hours.high += f.hours.high;
    if (!decides_verdict(path_weight)) continue;
    core_low += f.hours.low;
    core_high += f.hours.high;
    if (f.effort == EffortClass::High) {
      high_effort_low += f.hours.low;
      ++high_count;
      if (!first_high) first_high = &f;
    }
    if (f.severity == Severity::Error && !first_error) first_error = &f;
  }
  out.penalty = all.penalty();
  out.score = score_of(out.penalty);
  for (const auto& [category, t] : by_category) {
    CategoryScore cs;
    cs.category = category;
    cs.penalty = t.model.penalty();
    cs.score = score_of(cs.penalty);
    cs.findings = t.findings;
    cs.hours = t.hours;
    out.categories.push_back(cs);
  }

  if (high_effort_low >= C::kStayOnGpuHighEffortHours) {
    out.verdict = Verdict::StayOnGpu;
    out.verdict_reason = fmt::format(
        "the value is in custom CUDA kernels or CUDA-only libraries with no TPU path: {} such "
        "finding{}, at least {:.0f} engineer-days of rewrite, first at {}",
        high_count, high_count == 1 ? "" : "s", high_effort_low / 8, where(*first_high));
  } else if (first_high || core_low >= C::kSignificantHours) {
    out.verdict = Verdict::Significant;
    out.verdict_reason =
        first_high ? fmt::format("real rewrites with a known TPU path: {} finding{} with no drop-in "
                                 "TPU equivalent, first at {}",
                                 high_count, high_count == 1 ? "" : "s", where(*first_high))
                   : fmt::format("real rewrites with a known TPU path: at least {:.0f} engineer-days "
                                 "of changes",
                                 core_low / 8);
  } else if (first_error || core_high > C::kTpuReadyHours) {
    out.verdict = Verdict::Portable;
    out.verdict_reason = fmt::format(
        "the blockers are mechanical: {}-{} engineer-hours of changes{}", hours_text(core_low),
        hours_text(core_high), first_error ? fmt::format(", first at {}", where(*first_error)) : "");
  } else {
    out.verdict = Verdict::TpuReady;
    out.verdict_reason =
        counted == 0 ? "no TPU blocker found"
                    : fmt::format("nothing blocks a TPU run: at most {} engineer-hours of tuning",
                                  hours_text(core_high));
  }
  return out;
}

}  // namespace tpulint
