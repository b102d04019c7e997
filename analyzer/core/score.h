// The TPU-readiness score, the porting-effort estimate and the verdict, computed from findings
// alone. The formula and the reasons for its numbers are in docs/scoring.md; keep them in step.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
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
// Notebooks beside a project's code are its demos and explorations, not what a migration hangs
// on: when `code_paths` (a scan's code files) hold code that decides the verdict outside
// notebooks, `weights` with a first rule `*.ipynb` at the auxiliary weight (first, so that a
// rule of the user's for notebooks wins). A directory of notebooks alone is its own code.
PathWeights with_notebooks_weighed(PathWeights weights, std::span<const std::string> code_paths);
bool is_auxiliary_path(std::string_view path);
// Whether a path's findings decide the verdict: those with full weight (1 or more).
bool decides_verdict(std::string_view path, const PathWeights& weights);
bool decides_verdict(double path_weight);
// What a finding weighs: its path's weight, and for test code in any path (a `test_*` function or a
// model module's self-test block in the package's own modules) at most auxiliary code's: a test is
// not what a migration hangs on, wherever it sits.
double finding_weight(const Finding& f, double path_weight, const PathWeights& weights);

// What the verdict and the score are computed from: sums over findings, so that what a work
// item's findings add can be taken out again to see what fixing it gains (plan.h).
struct Tally {
  double hours = 0;              // hours (low bound) weighted by path: the package 1, auxiliary less
  double core_hours = 0;         // hours (low bound) of findings in the package's core code
  double core_change_hours = 0;  // of those, real changes (effort Medium or High, not mechanical)
  double core_novel_hours = 0;   // of core findings with no TPU path (effort High: a rewrite)
  // Lines that only run on GPUs, outside native files (CoreCode counts those whole): Python
  // kernels of any class, and Python code built on a library with no TPU path.
  double core_gpu_lines = 0;
  double core_novel_lines = 0;   // of those, the code with no TPU path (novel kernels, such libraries)
  double core_novel = 0;         // how many core findings have no TPU path
  double core_kernels = 0;       // core custom kernels with a known path (effort Medium: a standard op), and uses of a library's standard op (Finding::standard_op_use)
  double core_errors = 0;        // core findings of severity error (the code would not run as written)
  Tally& operator+=(const Tally& t);
  Tally& operator-=(const Tally& t);
};

// What one finding adds, its path weighing `path_weight` (path_weight()); `in_native_file`: its
// file is a C/C++/CUDA file of the core code, whose lines CoreCode counts; `price`: the share of
// its low hours it is priced at (KernelFamilies). Analyzer notes add nothing; a discounted finding
// adds nothing but, in guarded code, a kernel's lines to the GPU-only code.
Tally tally_of(const Finding& f, double path_weight, bool in_native_file = false, double price = 1);

// Whether a finding makes its native file GPU code (a kernel, a CUDA API or CUDA library use), and
// code with no TPU path (a novel kernel or device function, with no fallback: not discounted).
bool makes_gpu_code(const Finding& f);
bool makes_novel_code(const Finding& f);

// The core code the verdict weighs (analyzed files outside auxiliary paths): its lines of code, and
// its native (C/C++/CUDA) files with theirs. In an ML repository native code is there to be a GPU
// extension: once one native core file is GPU code, all native core code counts as GPU code (the
// launchers, bindings and headers go with the kernels); a native file with a novel kernel counts
// whole as code with no TPU path. Which files are GPU code is kept as counts of findings, so that
// a work item's findings can be taken out again (plan.h).
class CoreCode {
 public:
  CoreCode(double lines = 0) : lines_(lines) {}  // NOLINT: lines alone (no native file known)
  void add_file(std::string_view path, bool native, double lines);
  double lines() const { return lines_; }
  bool is_native(std::string_view path) const { return files_.contains(path); }
  // Counts `f` in (sign +1) or out (sign -1) of its native file; findings elsewhere are ignored.
  void count(const Finding& f, int sign);
  double gpu_native_lines() const { return gpu_files_ > 0 ? native_lines_ : 0; }
  double novel_native_lines() const { return novel_lines_; }

 private:
  struct File {
    double lines = 0;
    uint32_t gpu = 0;    // findings that make it GPU code
    uint32_t novel = 0;  // findings that make it code with no TPU path
  };
  double lines_ = 0;
  double native_lines_ = 0;
  size_t gpu_files_ = 0;     // native files with gpu > 0
  double novel_lines_ = 0;   // lines of native files with novel > 0
  std::unordered_map<std::string_view, File> files_;  // views of the report's paths
};

// Whether a finding counts in its native file's GPU code (CoreCode::count): a file of the core
// code, and a finding that is not discounted, or is discounted only for its guard: GPU code with a
// fallback is GPU-only code all the same (what the project is), though it costs no rewrite.
bool counts_in_native_file(const Finding& f, double path_weight, const CoreCode& code);

// The shares of the core code that only run on GPUs (kernels with their extensions, code built on
// libraries with no TPU path) and that have no TPU path, with their lines.
struct Shares {
  double gpu = 0;
  double novel = 0;
  double gpu_lines = 0;
  double novel_lines = 0;
};
Shares shares_of(const Tally& t, const CoreCode& code);

struct Judgement {
  Verdict verdict = Verdict::TpuReady;
  double score = 100;  // not rounded
};

// The verdict and the score of `t` with the shares `share` (docs/scoring.md). Both only improve
// when `t` or the shares shrink.
Judgement judge(const Tally& t, const Shares& share);

struct CategoryScore {
  Category category = Category::AnalyzerNote;
  double score = 100;     // 0-100, judge() of the category's findings alone
  size_t findings = 0;
  HoursRange hours;
};

struct ScoreSummary {
  double score = 100;     // 0-100, rounded to one decimal
  HoursRange hours;       // porting effort of all the code, tests and examples included
  HoursRange core_hours;  // porting effort of the package's core code: what the verdict weighs
  // Of both, the fixed part of a port: running the project on a TPU and checking its results against
  // a GPU run (ScoringConstants::bring_up). Scored nothing: the verdict and the score weigh findings.
  HoursRange bring_up;
  double core_lines = 0;  // lines of core code (FileSummary::code_lines outside auxiliary paths)
  size_t model_variants = 0;  // core modules of a model zoo whose findings are priced as alternatives (ModelVariants)
  Tally tally;            // what the verdict and score were computed from, with the shares
  Shares shares;
  std::vector<CategoryScore> categories;  // one per category with findings, in category order
  Verdict verdict = Verdict::TpuReady;
  std::string verdict_reason;  // the one sentence that decided the verdict
};

// The scoring constants, exposed so that the docs and `--explain-score` print the real ones.
struct ScoringConstants {
  // stay-on-gpu: GPU-only code (kernels with their extensions) is at least kStayOnGpuShare of the
  // core code (a kernel library), or code with no TPU path at least kStayOnGpuNovelShare, each
  // being at least kStayOnGpuLines lines (a toy's one kernel is not where a project's value
  // lies); or the rewrite of code with no TPU path takes at least kStayOnGpuHours.
  static constexpr double kStayOnGpuShare = 0.35;
  static constexpr double kStayOnGpuNovelShare = 0.2;
  static constexpr double kStayOnGpuLines = 150;
  static constexpr double kStayOnGpuHours = 160;  // an engineer-month
  // significant: any core kernel (standard or novel), or this many core hours of real changes.
  static constexpr double kSignificantHours = 40;
  // portable: any core error, or more than this many core hours.
  static constexpr double kTpuReadyHours = 8;
  // Each verdict has its band of scores; within it the score falls with the weighted hours,
  // halving past the band's scale (and, on GPU, with the share of code with no TPU path).
  static constexpr double kBandWidth = 25;
  static constexpr double kTpuReadyScale = 8, kPortableScale = 80, kSignificantScale = 800, kStayOnGpuScale = 8000;
  static constexpr double kStayOnGpuShareWeight = 2;  // per share, GPU-only code's and no-TPU-path code's
  // Every port of a project with core code ends in runs on a TPU whose loss or metrics are compared
  // with a GPU run's, and they take longer the more the port changed: a smoke run for TPU-ready
  // code, a short parity run after mechanical changes, a training run that reproduces the
  // reference metric after rewrites of the step (ops swapped, shapes made static, a matcher
  // moved) or of its kernels. By verdict; the hours of the validation items of the calibration
  // half's labels (docs/scoring.md).
  static constexpr HoursRange kBringUp[4] = {{2, 6}, {3, 10}, {24, 60}, {24, 60}};
  static constexpr HoursRange bring_up(Verdict v) { return kBringUp[int(v)]; }
};

// The summary of `findings` in the core code `code` (build_report gives it the analyzed files).
ScoreSummary compute_score(std::span<const Finding> findings, const PathWeights& weights = {}, CoreCode code = {});

// Whether a finding repeats one asked about before on its line (same check and subject): the
// same issue twice on one line (`x.cuda() + y.cuda()`) counts once in the score, the effort and
// the plan. Keeps views: the findings asked about must outlive it.
class SameLineDuplicates {
 public:
  bool repeated(const Finding& f);

 private:
  struct Key {
    std::string_view path, check, subject;
    uint32_t line;
    uint32_t cell_line;  // a notebook's cell lines can share a line of its JSON text
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  std::unordered_set<Key, KeyHash> seen_;
};

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

// The class a finding is priced with: whether it decides the verdict (finding_weight: core code, not
// tests or examples) and whether it is in a model zoo's variant. A kernel family, an adoption and a
// change made once group findings of one class only: else fixing a test's use would price a core
// one whole, and the score could fall when a finding is fixed.
class PriceClasses {
 public:
  explicit PriceClasses(const PathWeights& weights) : weights_(weights), weigh_(weights) {}
  char operator()(const Finding& f);  // 'a' to 'd'
  bool core(const Finding& f);        // it decides the verdict (core code, not test code)

 private:
  const PathWeights& weights_;
  PathWeigher weigh_;
};

// Of each group of findings added, every finding but the most expensive, per bound (the first in
// finding order among equals, whatever the group's order): the findings a pricing rule prices at a
// share of their hours. The low and the high bounds each take their own most expensive finding,
// so that each only falls when a finding is fixed. Keeps pointers: the findings must outlive it.
class AllButMostExpensive {
 public:
  void add(const std::vector<const Finding*>& group);
  bool low(const Finding& f) const { return low_.contains(&f); }
  bool high(const Finding& f) const { return high_.contains(&f); }

 private:
  std::unordered_set<const Finding*> low_, high_;
};

// The kernels of one op's passes and variants are one rewrite: those of one file, and those of
// files named alike but for a pass (`causal_conv1d_fwd.cu`, `causal_conv1d_bwd.cu`;
// `RasterizeToPixelsFwd.cu`, `RasterizeToPixelsBwd.cu`: one directory, one name once the words
// fwd, bwd, forward, backward, grad, kernel(s), cuda and impl are taken out). Copies of one
// extension vendored into several directories are one family too: a kernel of one name in files of
// one such name joins their families (`classification/ops_dcnv3/src/cuda/dcnv3_im2col_cuda.cuh`
// and `detection/ops_dcnv3/...`: ported once, each copy then swapped). The most expensive
// kernel of a family is priced whole and each other at kShare of its hours: a backward pass
// follows from the rewritten forward (JAX and XLA differentiate it), a layout or decode variant
// reuses its design. The low and the high bounds each take their own most expensive kernel, so
// that each only falls when a kernel is fixed. A kernel of a family whose name is another's of the
// family but for the parts that name a size, a data type or an architecture
// (`butterfly_cuda_kernel_16` beside `butterfly_cuda_kernel_128`, one kernel name in the files
// `monarch_cuda_16_16_16_kernel.h` and `monarch_cuda_32_16_16_kernel.h`) is a specialization of the
// same code: one parameter of the rewritten kernel, priced as one more configuration to validate
// (kSpecialization, at most kShare of its hours); the most expensive of each such name is priced
// as above. A kernel is a finding of a custom kernel with code lines and hours, not discounted.
// Keeps pointers: the findings must outlive it.
class KernelFamilies {
 public:
  static constexpr double kShare = 0.25;
  static constexpr HoursRange kSpecialization{1, 4};
  KernelFamilies(std::span<const Finding> findings, PriceClasses& classes);
  // The share of its low and of its high hours `f` is priced at: a specialization's, kShare for a
  // family's other kernels, else 1.
  double low_price(const Finding& f) const;
  double high_price(const Finding& f) const;
  HoursRange priced(const Finding& f) const { return {f.hours.low * low_price(f), f.hours.high * high_price(f)}; }
  // The family a file's kernels belong to: its directory and its name without the words of a pass.
  static std::string family_of(std::string_view path);
  // A kernel's name without its template arguments and the parts that name a variant; empty when
  // nothing else is left.
  static std::string specialized_name(std::string_view kernel);

 private:
  AllButMostExpensive others_;
  AllButMostExpensive specializations_;  // of each family, by specialized_name
};

// A replacement is adopted once per project: of the uses of one thing, the most expensive is priced
// whole (learning it, designing its replacement) and every other at a further use's hours
// (kFurtherUse): the replacement is written once and each use then swapped. Adopted are a CUDA
// library's uses in C/C++/CUDA code, by library (cuBLAS's 2-8 h, CUTLASS's 16-60 h: a project built on
// CUTLASS across 122 headers is one CUTLASS port, not 122; further calls in one file are already
// priced so), and the calls of one op or dtype with no TPU path (TPU3xx), by check and subject (an
// FFT's 4-16 h: one DFT-as-matmul replacement, then a swap at each of its 42 calls). Per bound, like
// KernelFamilies. Keeps pointers: the findings must outlive it.
class Adoption {
 public:
  static constexpr HoursRange kFurtherUse{0.25, 1};
  Adoption(std::span<const Finding> findings, PriceClasses& classes);
  double low_price(const Finding& f) const;
  double high_price(const Finding& f) const;

 private:
  AllButMostExpensive others_;
};

// Findings marked priced_once (Finding::priced_once) are one change for the project: of those of
// one check and subject that are not discounted, the most expensive is priced whole and the others
// at nothing. Per bound, like KernelFamilies. Keeps pointers: the findings must outlive it.
class OncePerProject {
 public:
  OncePerProject(std::span<const Finding> findings, PriceClasses& classes);
  double low_price(const Finding& f) const { return others_.low(f) ? 0.0 : 1.0; }
  double high_price(const Finding& f) const { return others_.high(f) ? 0.0 : 1.0; }

 private:
  AllButMostExpensive others_;
};

// A model zoo's variants (Finding::model_variant) are alternatives: a port takes the models it trains,
// not the zoo. The low bound prices none of them (a port of a variant with none of these findings: a
// zoo's models mostly share their layers, and a rare op sits in one variant), the high bound the most
// expensive variant of each directory whole, by its core findings' summed high hours in all categories
// (the first path among equals: one model taken, with all it needs), and the others at nothing. A
// variant's test code (its self-test block) does not make it the costliest: it is not ported. Findings
// outside variants are priced as they are. Fixing a finding lowers its variant's sum, so the high bound
// only falls. A category's hours are those of its findings alone (each category's sub-score is): of
// them, the most expensive variant of each directory in that category. Keeps views of the paths: the
// findings must outlive it.
class ModelVariants {
 public:
  ModelVariants(std::span<const Finding> findings, PriceClasses& classes);
  double low_price(const Finding& f) const { return f.model_variant ? 0.0 : 1.0; }
  double high_price(const Finding& f) const { return f.model_variant && !priced_.contains(f.path) ? 0.0 : 1.0; }
  double category_high_price(const Finding& f) const {
    return f.model_variant && !priced_in_category_.contains({f.category, f.path}) ? 0.0 : 1.0;
  }

 private:
  std::set<std::string_view> priced_;  // the most expensive variant of each directory
  std::set<std::pair<Category, std::string_view>> priced_in_category_;  // ... of each category
};

// The share of its hours each finding is priced at: kernel families, replacements adopted once, changes
// made once per project and a model zoo's variants.
class Pricing {
 public:
  Pricing(std::span<const Finding> findings, const PathWeights& weights) : Pricing(findings, PriceClasses(weights)) {}
  double low_price(const Finding& f) const {
    return families_.low_price(f) * adopted_.low_price(f) * once_.low_price(f) * variants_.low_price(f);
  }
  double high_price(const Finding& f) const { return high_price_but_variants(f) * variants_.high_price(f); }
  HoursRange priced(const Finding& f) const { return {f.hours.low * low_price(f), f.hours.high * high_price(f)}; }
  // As priced in its category's findings alone (a category's sub-score and hours).
  HoursRange priced_in_category(const Finding& f) const {
    return {f.hours.low * low_price(f), f.hours.high * high_price_but_variants(f) * variants_.category_high_price(f)};
  }

 private:
  double high_price_but_variants(const Finding& f) const {
    return families_.high_price(f) * adopted_.high_price(f) * once_.high_price(f);
  }
  Pricing(std::span<const Finding> findings, PriceClasses&& classes)
      : families_(findings, classes), adopted_(findings, classes), once_(findings, classes), variants_(findings, classes) {}

  KernelFamilies families_;
  Adoption adopted_;
  OncePerProject once_;
  ModelVariants variants_;
};


double round_score(double score);  // to one decimal

}  // namespace tpulint
