// The TPU-readiness score, the porting-effort estimate and the verdict, computed from findings
// alone. The formula and the reasons for its numbers are in docs/scoring.md; keep them in step.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/finding.h"

namespace tpulint {

enum class Verdict { TpuReady, Portable, Significant, StayOnGpu };
std::string_view to_string(Verdict v);  // "tpu-ready", "portable", "significant", "stay-on-gpu"

// How much a finding in a given path counts. Code under tests/, benchmarks/, examples/ and
// docs/ (and test_*.py files) is ported too, but it is not what a migration decision hangs on.
struct PathWeights {
  double auxiliary = 0.25;  // weight of auxiliary code; the package's own code weighs 1
  // `--path-weight GLOB=WEIGHT` rules, gitignore-style globs relative to the scan root,
  // matched against a path and its parent directories; the last matching rule decides, and
  // overrides the auxiliary default.
  std::vector<std::pair<std::string, double>> rules;
};
double path_weight(std::string_view path, const PathWeights& weights);
bool is_auxiliary_path(std::string_view path);
// Whether a path's findings decide the verdict: those with full weight (1 or more).
bool decides_verdict(std::string_view path, const PathWeights& weights);
bool decides_verdict(double path_weight);

struct CategoryScore {
  Category category = Category::AnalyzerNote;
  double score = 100;     // 0-100, the same formula restricted to the category
  double penalty = 0;
  size_t findings = 0;
  HoursRange hours;
};

struct ScoreSummary {
  double score = 100;     // 0-100, rounded to one decimal
  double penalty = 0;     // the P in score = 100 * exp(-P / kScale)
  HoursRange hours;       // total porting effort in engineer-hours
  std::vector<CategoryScore> categories;  // one per category with findings, in category order
  Verdict verdict = Verdict::TpuReady;
  std::string verdict_reason;  // the one sentence that decided the verdict
};

// The scoring constants, exposed so that the docs and `--explain-score` print the real ones.
struct ScoringConstants {
  static constexpr double kScale = 50;  // penalty that brings the score to 100/e ~ 36.8
  // Weight of one finding, and the cap of one check's total, by effort class.
  static constexpr double kWeightHigh = 20, kCapHigh = 1000;
  static constexpr double kWeightMedium = 4, kCapMedium = 40;
  static constexpr double kWeightLow = 0.5, kCapLow = 8;
  // Verdict thresholds in engineer-hours (lower bounds of the ranges, core code only).
  static constexpr double kStayOnGpuHighEffortHours = 40;
  static constexpr double kSignificantHours = 40;
  static constexpr double kTpuReadyHours = 8;
};

ScoreSummary compute_score(std::span<const Finding> findings, const PathWeights& weights = {});

// path_weight, remembered per path: weighing a path matches it against every rule and auxiliary
// directory name, and a path has many findings. The last path is asked first: findings mostly
// come ordered by path. The memo keeps views, not copies: the paths asked about (the findings'
// own) must outlive the weigher.
class PathWeigher {
 public:
  explicit PathWeigher(const PathWeights& weights) : weights_(weights) {}
  PathWeigher(const PathWeigher&) = delete;  // last_ points into its own map
  PathWeigher& operator=(const PathWeigher&) = delete;
  double operator()(std::string_view path);

 private:
  const PathWeights& weights_;
  std::unordered_map<std::string_view, double> weights_by_path_;
  const std::pair<const std::string_view, double>* last_ = nullptr;
};

// The penalty P of a set of findings, kept as running sums per (check, effort class) so that
// the penalty without some of them (what fixing a work item recovers) costs little to ask. The
// findings added must outlive the model (see PathWeigher).
class PenaltyModel {
 public:
  explicit PenaltyModel(const PathWeights& weights) : path_weight_(weights) {}
  // Where an added finding's weight went: what a Removal needs to take it out again.
  struct Added {
    const void* term = nullptr;  // its (check, effort class) term; null for an analyzer note
    double weight = 0;
  };
  Added add(const Finding& f);
  // Adds `f` whose path weighs `path_weight` (what this model's weights give it), for a caller
  // that has weighed the path already.
  Added add(const Finding& f, double path_weight);
  double penalty() const;

  // Some added findings, as the weight each term would lose: the penalty without them (what
  // fixing a work item recovers) is asked without weighing or looking them up again.
  class Removal {
   public:
    void take(Added a);
   private:
    friend class PenaltyModel;
    std::vector<std::pair<const void*, double>> sums_;  // (term, weight), a few per work item
  };
  double penalty_without(const Removal& removed) const;
  double weight(const Finding& f) const;  // the finding's contribution to its check's sum

  // Each (check, effort class) term of P, in order: for `--explain-score`.
  struct Term {
    std::string check_id;
    EffortClass effort;
    double sum;      // S: the weighted findings
    double penalty;  // cap * (1 - exp(-S / cap))
  };
  std::vector<Term> terms() const;

 private:
  // A (check, effort class) term. Looked up once or more per finding (a million-line scan has
  // tens of thousands), so by hash; summed in key order, so that the sum is the same every run.
  struct Key {
    std::string check_id;
    EffortClass effort;
    auto operator<=>(const Key&) const = default;
  };
  struct KeyView {
    std::string_view check_id;
    EffortClass effort;
  };
  struct KeyHash {
    using is_transparent = void;
    // FNV-1a: check IDs are a few bytes ("TPU201"), too short for a general string hash to pay.
    size_t operator()(KeyView k) const {
      uint64_t h = 14695981039346656037ull;
      for (unsigned char c : k.check_id) h = (h ^ c) * 1099511628211ull;
      return size_t(h) * 31 + size_t(k.effort);
    }
    size_t operator()(const Key& k) const { return (*this)(KeyView{k.check_id, k.effort}); }
  };
  struct KeyEqual {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return a.effort == b.effort && std::string_view(a.check_id) == std::string_view(b.check_id);
    }
  };
  using Sums = std::unordered_map<Key, double, KeyHash, KeyEqual>;
  static Added add_to(Sums& sums, const Finding& f, double weight);
  // The terms in key order, sorted again only when a term was added since (a plan asks once
  // per work item). The map's nodes never move, so the pointers stay valid.
  const std::vector<const Sums::value_type*>& in_key_order() const;

  Sums sums_;
  mutable std::vector<const Sums::value_type*> key_order_;
  mutable PathWeigher path_weight_;
};

double score_from_penalty(double penalty);  // 100 * exp(-P / kScale), rounded to one decimal

}  // namespace tpulint
