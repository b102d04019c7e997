#include "core/score.h"

#include "core/discovery.h"
#include "core/identifier_words.h"
#include "core/ignore_rules.h"
#include "core/notebook.h"
#include "core/source_file.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

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
  // What is not a package's core: tests, benchmarks, examples and demos, docs and vendored
  // third-party code (`dependencies/`: tiny-cuda-nn's and instant-ngp's vendored libraries, OLMo's
  // copy of AutoGPTQ), as the labels' protocol has it (docs/validation/verdicts.md, "Core code"), and
  // development and analysis scratch (llm.c's `dev/cuda/` kernel experiments, VMamba's `analyze/`).
  static constexpr std::array<std::string_view, 22> kDirs = {
      "test",  "tests",    "testing",     "bench",      "benchmark", "benchmarks", "example",
      "examples", "demo",  "demos",       "doc",        "docs",      "third_party", "thirdparty",
      "3rdparty", "vendor", "vendored",   "dependencies", "dev",     "analysis",   "analyze",
      "analyses"};
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

PathWeights with_notebooks_weighed(PathWeights weights, std::span<const std::string> code_paths) {
  constexpr std::string_view kNotebooks = "*.ipynb";
  const bool notebooks = std::any_of(code_paths.begin(), code_paths.end(), [](const std::string& p) { return is_notebook_path(p); });
  const bool other_code = std::any_of(code_paths.begin(), code_paths.end(), [&](const std::string& p) {
    return !is_notebook_path(p) && decides_verdict(path_weight(p, weights));
  });
  if (notebooks && other_code) weights.rules.insert(weights.rules.begin(), {std::string(kNotebooks), weights.auxiliary});
  return weights;
}

bool decides_verdict(double path_weight) { return path_weight >= 1; }
bool decides_verdict(std::string_view path, const PathWeights& weights) { return decides_verdict(path_weight(path, weights)); }

double finding_weight(const Finding& f, double path_weight, const PathWeights& weights) {
  return f.context == Context::Test ? std::min(path_weight, weights.auxiliary) : path_weight;
}

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

// Small estimates keep a decimal ("0.4", not "0"); large ones do not pretend to precision.
std::string hours_text(double h) {
  if (h > 0 && h < 0.05) return "under 0.1";
  return h < 10 ? fmt::format("{:.1f}", h) : fmt::format("{:.0f}", h);
}

std::string plural(double n, std::string_view one, std::string_view many) {
  return fmt::format("{:.0f} {}", n, n == 1 ? one : many);
}

// The top of a verdict's band: the bands, best first, are 100-75, 75-50, 50-25 and 25-0.
double band_top(Verdict v) { return 100 - C::kBandWidth * double(int(v)); }

}  // namespace

Tally& Tally::operator+=(const Tally& t) {
  hours += t.hours;
  core_hours += t.core_hours;
  core_change_hours += t.core_change_hours;
  core_novel_hours += t.core_novel_hours;
  core_gpu_lines += t.core_gpu_lines;
  core_novel_lines += t.core_novel_lines;
  core_novel += t.core_novel;
  core_kernels += t.core_kernels;
  core_errors += t.core_errors;
  return *this;
}

Tally& Tally::operator-=(const Tally& t) {
  // Never below zero: sums taken apart in another order may differ in the last bit.
  auto take = [](double& a, double b) { a = std::max(0.0, a - b); };
  take(hours, t.hours);
  take(core_hours, t.core_hours);
  take(core_change_hours, t.core_change_hours);
  take(core_novel_hours, t.core_novel_hours);
  take(core_gpu_lines, t.core_gpu_lines);
  take(core_novel_lines, t.core_novel_lines);
  take(core_novel, t.core_novel);
  take(core_kernels, t.core_kernels);
  take(core_errors, t.core_errors);
  return *this;
}

bool makes_gpu_code(const Finding& f) {
  return f.category == Category::CustomKernel || f.category == Category::CudaApi || f.category == Category::CudaLibrary;
}
bool makes_novel_code(const Finding& f) {
  return f.category == Category::CustomKernel && f.effort == EffortClass::High && !f.discounted;
}

bool counts_in_native_file(const Finding& f, double path_weight, const CoreCode& code) {
  return (!f.discounted || f.context == Context::Guarded) && decides_verdict(path_weight) && code.is_native(f.path);
}

Tally tally_of(const Finding& f, double path_weight, bool in_native_file, double price) {
  Tally t;
  if (f.category == Category::AnalyzerNote) return t;
  if (f.discounted) {
    if (f.context == Context::Guarded && decides_verdict(path_weight) && !in_native_file &&
        f.category == Category::CustomKernel)
      t.core_gpu_lines = f.code_lines;
    return t;
  }
  // An API current releases no longer have is a pin or a migration of the framework, whatever the
  // accelerator: effort, like the bring-up run, and neither the score nor the verdict, which weigh
  // what a TPU needs of the code (TPU-native code on an old release runs on a TPU as it is).
  if (f.category == Category::FrameworkVersion) return t;
  const double hours = f.hours.low * price;
  t.hours = hours * path_weight;
  if (!decides_verdict(path_weight)) return t;
  t.core_hours = hours;
  if (f.effort >= EffortClass::Medium) t.core_change_hours = hours;
  const bool kernel = f.category == Category::CustomKernel && f.code_lines > 0;
  const bool novel = f.effort == EffortClass::High;
  if (novel) {
    t.core_novel = 1;
    t.core_novel_hours = hours;
  } else if (f.effort == EffortClass::Medium && (kernel || f.standard_op_use)) {
    t.core_kernels = 1;
  }
  if (!in_native_file && (kernel || novel)) {
    t.core_gpu_lines = f.code_lines;
    if (novel) t.core_novel_lines = f.code_lines;
  }
  if (f.severity == Severity::Error) t.core_errors = 1;
  return t;
}

void CoreCode::add_file(std::string_view path, bool native, double lines) {
  if (!native) return;
  auto [it, inserted] = files_.try_emplace(path);
  if (!inserted) return;
  it->second.lines = lines;
  native_lines_ += lines;
}

void CoreCode::count(const Finding& f, int sign) {
  const bool gpu = makes_gpu_code(f), novel = makes_novel_code(f);
  if (!gpu && !novel) return;
  auto it = files_.find(f.path);
  if (it == files_.end()) return;
  File& file = it->second;
  auto step = [sign](uint32_t& n) {
    const bool before = n > 0;
    n = sign > 0 ? n + 1 : (n > 0 ? n - 1 : 0);
    return int(n > 0) - int(before);  // +1: became positive, -1: became zero
  };
  if (gpu) gpu_files_ += step(file.gpu);
  if (novel) novel_lines_ += step(file.novel) * file.lines;
}

// The verdict is the first rule that holds; the score falls within the verdict's band with the
// weighted hours (and, for stay-on-gpu, with the share of core code that has no TPU path). Each
// quantity only shrinks when a finding goes and the share only shrinks when code is added, and
// the bands are ordered: so the score never falls when a finding is fixed or clean code added.
Judgement judge(const Tally& t, const Shares& share) {
  Judgement j;
  if ((share.gpu >= C::kStayOnGpuShare && share.gpu_lines >= C::kStayOnGpuLines) ||
      (share.novel >= C::kStayOnGpuNovelShare && share.novel_lines >= C::kStayOnGpuLines) ||
      t.core_novel_hours >= C::kStayOnGpuHours) {
    j.verdict = Verdict::StayOnGpu;
    j.score = C::kBandWidth *
              std::exp(-C::kStayOnGpuShareWeight * (share.gpu + share.novel) - t.hours / C::kStayOnGpuScale);
    return j;
  }
  double scale = C::kTpuReadyScale;
  if (t.core_novel > 0 || t.core_kernels > 0 || t.core_change_hours >= C::kSignificantHours) {
    j.verdict = Verdict::Significant;
    scale = C::kSignificantScale;
  } else if (t.core_errors > 0 || t.core_hours > C::kTpuReadyHours) {
    j.verdict = Verdict::Portable;
    scale = C::kPortableScale;
  }
  j.score = band_top(j.verdict) - C::kBandWidth * (1 - std::exp(-t.hours / scale));
  return j;
}

size_t SameLineDuplicates::KeyHash::operator()(const Key& k) const {
  std::hash<std::string_view> h;
  return (((h(k.path) * 31 + h(k.check)) * 31 + h(k.subject)) * 31 + k.line) * 31 + k.cell_line;
}

Shares shares_of(const Tally& t, const CoreCode& code) {
  // The code findings stand for is part of the core code; a share never passes 1 (findings
  // given without their files, or a file counted as built on a library and holding a kernel).
  const double lines = std::max(code.lines(), 1.0);
  Shares s;
  s.gpu_lines = std::min(lines, t.core_gpu_lines + code.gpu_native_lines());
  s.novel_lines = std::min(s.gpu_lines, t.core_novel_lines + code.novel_native_lines());
  s.gpu = s.gpu_lines / lines;
  s.novel = s.novel_lines / lines;
  return s;
}

namespace {

bool is_kernel(const Finding& f) {
  return f.category == Category::CustomKernel && f.code_lines > 0 && f.hours.high > 0 && !f.discounted;
}

}  // namespace

void AllButMostExpensive::add(const std::vector<const Finding*>& group) {
  auto add_bound = [&](double HoursRange::*bound, std::unordered_set<const Finding*>& out) {
    const Finding* first = group.front();
    for (const Finding* f : group)
      if (f->hours.*bound > first->hours.*bound ||
          (f->hours.*bound == first->hours.*bound && finding_less(*f, *first)))
        first = f;
    for (const Finding* f : group)
      if (f != first) out.insert(f);
  };
  if (group.empty()) return;
  add_bound(&HoursRange::low, low_);
  add_bound(&HoursRange::high, high_);
}

namespace {

// Whether a part of a file name between separators names a variant of one design, not another
// op: a number (a size specialization, `monarch_cuda_32_16_16`), a data type (`_bf16`, `_fp8`), data
// types written one after the other as CUTLASS names a GEMM's operand and accumulator types
// (`_f16f16f32`, `_tf32tf32f32`, `_s8s8s32`), or a GPU architecture (`_sm90`).
bool is_variant_part(std::string_view part) {
  // Read greedily, the first entry the rest starts with: no entry is a prefix of a later one.
  static constexpr std::array<std::string_view, 26> kTypes = {
      "bf16", "fp16", "fp32", "fp64", "fp8",  "fp4",  "tf32", "f8",   "f16",  "f32",  "f64",   "half", "float",
      "double", "int8", "int4", "int16", "int32", "int64", "s8", "s32", "u8", "e4m3", "e5m2", "nvfp4", "s4"};
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  // Whether `s` is one or more type names, one after the other.
  auto types = [&](std::string_view s) {
    while (!s.empty()) {
      auto it = std::find_if(kTypes.begin(), kTypes.end(), [&](std::string_view t) { return s.starts_with(t); });
      if (it == kTypes.end()) return false;
      s.remove_prefix(it->size());
    }
    return true;
  };
  const std::string lower = ascii_lower(part);
  return digits(lower) || types(lower) || (lower.size() > 2 && lower.starts_with("sm") && digits(std::string_view(lower).substr(2)));
}

// The parts of a name between separators (`_`, `-`) but those that name a variant (is_variant_part).
std::vector<std::string_view> parts_but_variants(std::string_view name) {
  std::vector<std::string_view> out;
  size_t begin = 0;
  while (begin <= name.size()) {
    size_t end = name.find_first_of("_-", begin);
    if (end == std::string_view::npos) end = name.size();
    const std::string_view part = name.substr(begin, end - begin);
    begin = end + 1;
    if (!part.empty() && !is_variant_part(part)) out.push_back(part);
  }
  return out;
}

// A file's name without its directory, extension, the words of a pass and the parts that name a
// variant (`causal_conv1d`); empty when it holds nothing else (`kernel.cu`).
std::string name_without_pass_words(std::string_view path) {
  // A convolution's passes as cuDNN and CUTLASS name them too: fprop, dgrad (data), wgrad (weights).
  static constexpr std::array<std::string_view, 14> kPassWords = {
      "fwd",   "bwd",   "forward", "backward", "grad", "fprop", "bprop",
      "dgrad", "wgrad", "kernel",  "kernels",  "cuda", "impl",  "cu"};
  const std::string_view file = file_name_of(path);
  std::string out;
  for (const std::string_view part : parts_but_variants(file.substr(0, file.find('.')))) {
    for (const std::string& w : identifier_words(part)) {
      if (std::find(kPassWords.begin(), kPassWords.end(), w) != kPassWords.end()) continue;
      out += out.empty() ? "" : "_";
      out += w;
    }
  }
  return out;
}

// Union-find over family names, by index; the smaller index is the root, so the result does not
// depend on the order the unions come in.
struct FamilyUnion {
  std::vector<size_t> parent;
  size_t find(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void join(size_t a, size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

}  // namespace

std::string KernelFamilies::family_of(std::string_view path) {
  const std::string name = name_without_pass_words(path);
  if (name.empty()) return std::string(path);
  std::string out(directory_of(path));
  out += '/';
  out += name;
  return out;
}

bool PriceClasses::core(const Finding& f) { return decides_verdict(finding_weight(f, weigh_(f.path), weights_)); }

char PriceClasses::operator()(const Finding& f) { return char('a' + (core(f) ? 1 : 0) + (f.model_variant ? 2 : 0)); }

KernelFamilies::KernelFamilies(std::span<const Finding> findings, PriceClasses& classes) {
  // Families by name and class, in the order of their names, and the copies that join them: a kernel of
  // one name in files of one name (but for the words of a pass) in several directories.
  std::map<std::string, std::vector<const Finding*>> by_family;
  for (const Finding& f : findings)
    if (is_kernel(f)) by_family[family_of(f.path) + '\0' + classes(f)].push_back(&f);
  std::vector<const std::vector<const Finding*>*> families;
  for (const auto& [name, list] : by_family) families.push_back(&list);
  FamilyUnion copies{std::vector<size_t>(families.size())};
  for (size_t i = 0; i < families.size(); ++i) copies.parent[i] = i;
  std::unordered_map<std::string, size_t> first_with_copy_key;
  for (size_t i = 0; i < families.size(); ++i)
    for (const Finding* f : *families[i]) {
      if (f->subject.empty()) continue;
      std::string key = name_without_pass_words(f->path);
      if (key.empty()) key = file_name_of(f->path);
      key += '\0';
      key += f->subject;
      key += '\0';
      key += classes(*f);
      const auto [it, added] = first_with_copy_key.try_emplace(std::move(key), i);
      if (!added) copies.join(it->second, i);
    }
  std::map<size_t, std::vector<const Finding*>> members;
  for (size_t i = 0; i < families.size(); ++i) {
    auto& list = members[copies.find(i)];
    list.insert(list.end(), families[i]->begin(), families[i]->end());
  }
  for (const auto& [family, list] : members) {
    others_.add(list);
    std::map<std::string, std::vector<const Finding*>> by_name;
    for (const Finding* f : list)
      if (std::string name = specialized_name(f->subject); !name.empty()) by_name[std::move(name)].push_back(f);
    for (const auto& [name, same] : by_name) specializations_.add(same);
  }
}

std::string KernelFamilies::specialized_name(std::string_view kernel) {
  std::string out;
  for (const std::string_view part : parts_but_variants(kernel.substr(0, kernel.find('<')))) {
    out += out.empty() ? "" : "_";
    out += part;
  }
  return out;
}

double KernelFamilies::low_price(const Finding& f) const {
  if (specializations_.low(f)) return std::min(kShare, kSpecialization.low / f.hours.low);
  return others_.low(f) ? kShare : 1.0;
}

double KernelFamilies::high_price(const Finding& f) const {
  if (specializations_.high(f)) return std::min(kShare, kSpecialization.high / f.hours.high);
  return others_.high(f) ? kShare : 1.0;
}

namespace {

bool is_native_library_use(const Finding& f) {
  if (f.category != Category::CudaLibrary) return false;
  const Language language = language_for_path(std::filesystem::path(std::string_view(f.path)));
  return language == Language::Cxx || language == Language::Cuda;
}

// What a finding adopts, when it is adopted once (Adoption): a library, or a check's op or dtype; empty otherwise.
std::string adopted_key(const Finding& f) {
  if (f.discounted || f.hours.high <= 0) return {};
  if (is_native_library_use(f)) return fmt::format("library\n{}", f.subject.view());
  if (f.category == Category::UnsupportedOp && !f.subject.empty())
    return fmt::format("{}\n{}", f.check_id, f.subject.view());
  return {};
}

}  // namespace

Adoption::Adoption(std::span<const Finding> findings, PriceClasses& classes) {
  std::map<std::string, std::vector<const Finding*>> uses;
  for (const Finding& f : findings)
    if (std::string key = adopted_key(f); !key.empty()) uses[std::move(key) + '\0' + classes(f)].push_back(&f);
  for (const auto& [key, list] : uses) others_.add(list);
}

double Adoption::low_price(const Finding& f) const {
  return others_.low(f) && f.hours.low > kFurtherUse.low ? kFurtherUse.low / f.hours.low : 1.0;
}

double Adoption::high_price(const Finding& f) const {
  return others_.high(f) && f.hours.high > kFurtherUse.high ? kFurtherUse.high / f.hours.high : 1.0;
}

OncePerProject::OncePerProject(std::span<const Finding> findings, PriceClasses& classes) {
  // By check, subject and class.
  std::map<std::tuple<std::string_view, std::string_view, char>, std::vector<const Finding*>> changes;
  for (const Finding& f : findings)
    if (f.priced_once && !f.discounted && f.category != Category::AnalyzerNote)
      changes[{f.check_id, f.subject, classes(f)}].push_back(&f);
  for (const auto& [key, list] : changes) others_.add(list);
}

namespace {

// Of each directory's variants (the key's second part, with the rest of the key), the most expensive by
// summed hours: the first path among equals.
template <typename Key>
std::set<Key> most_expensive_variants(const std::map<Key, double>& hours, auto directory_key) {
  std::map<decltype(directory_key(hours.begin()->first)), std::pair<Key, double>> most;
  for (const auto& [key, h] : hours) {
    auto [it, inserted] = most.try_emplace(directory_key(key), key, h);
    if (!inserted && h > it->second.second) it->second = {key, h};
  }
  std::set<Key> out;
  for (const auto& [directory, variant] : most) out.insert(variant.first);
  return out;
}

}  // namespace

ModelVariants::ModelVariants(std::span<const Finding> findings, PriceClasses& classes) {
  // Ordered maps: the first path wins a tie. Every variant is listed, so that one of only test code can
  // still be the costliest (at nothing) of its directory.
  std::map<std::string_view, double> hours;
  std::map<std::pair<Category, std::string_view>, double> category_hours;
  for (const Finding& f : findings)
    if (f.model_variant && !f.discounted && f.category != Category::AnalyzerNote) {
      const double h = classes.core(f) ? f.hours.high : 0.0;
      hours[f.path] += h;
      category_hours[{f.category, f.path}] += h;
    }
  priced_ = most_expensive_variants(hours, [](std::string_view path) { return directory_of(path); });
  priced_in_category_ = most_expensive_variants(category_hours, [](const std::pair<Category, std::string_view>& key) {
    return std::pair{key.first, directory_of(key.second)};
  });
}

bool SameLineDuplicates::repeated(const Finding& f) {
  return !seen_.insert(Key{f.path, f.check_id, f.subject, f.start.line, f.cell.start.line}).second;
}

double round_score(double score) { return std::round(10 * score) / 10; }

ScoreSummary compute_score(std::span<const Finding> findings, const PathWeights& weights, CoreCode code) {
  ScoreSummary out;
  out.core_lines = code.lines();
  struct CategoryTally {
    CoreCode code;  // the core code with only this category's findings counted
    Tally tally;
    size_t findings = 0;
    HoursRange hours;
  };
  std::map<Category, CategoryTally> by_category;
  auto category = by_category.end();  // the last finding's category's
  // The finding that decides each verdict, first in input order, and how many there are.
  const Finding* first_novel = nullptr;
  const Finding* first_kernel = nullptr;
  const Finding* first_error = nullptr;
  size_t counted = 0;
  double removed_api_hours = 0;  // of the core hours' high bound, moving off removed framework APIs
  std::set<std::string_view> variant_paths;
  PathWeigher path_weight_of(weights);
  SameLineDuplicates duplicates;
  const Pricing pricing(findings, weights);
  const CoreCode uncounted = code;
  for (const Finding& f : findings) {
    if (f.category == Category::AnalyzerNote || duplicates.repeated(f)) continue;
    ++counted;
    const double path_weight = finding_weight(f, path_weight_of(f.path), weights);
    const bool native = counts_in_native_file(f, path_weight, code);
    const Tally t = tally_of(f, path_weight, native, pricing.low_price(f));
    const HoursRange hours = pricing.priced(f);
    const HoursRange category_hours = pricing.priced_in_category(f);
    if (native) code.count(f, +1);
    out.tally += t;
    out.hours.low += hours.low;
    out.hours.high += hours.high;
    if (category == by_category.end() || category->first != f.category)
      category = by_category.try_emplace(f.category, CategoryTally{uncounted, {}, 0, {}}).first;
    if (native) category->second.code.count(f, +1);
    category->second.tally += t;
    ++category->second.findings;
    category->second.hours.low += category_hours.low;
    category->second.hours.high += category_hours.high;
    if (!decides_verdict(path_weight) || f.discounted) continue;
    out.core_hours.low += hours.low;
    out.core_hours.high += hours.high;
    if (f.category == Category::FrameworkVersion) removed_api_hours += hours.high;
    if (f.model_variant) variant_paths.insert(f.path);
    if (t.core_novel > 0 && !first_novel) first_novel = &f;
    if (t.core_kernels > 0 && !first_kernel) first_kernel = &f;
    if (t.core_errors > 0 && !first_error) first_error = &f;
  }
  out.model_variants = variant_paths.size();
  out.shares = shares_of(out.tally, code);
  const Judgement j = judge(out.tally, out.shares);
  out.score = round_score(j.score);
  out.verdict = j.verdict;
  for (const auto& [c, t] : by_category)
    out.categories.push_back({c, round_score(judge(t.tally, shares_of(t.tally, t.code)).score), t.findings, t.hours});

  const Tally& t = out.tally;
  const Shares& share = out.shares;
  const Finding* first_kernel_or_novel = first_novel ? first_novel : first_kernel;
  switch (out.verdict) {
    case Verdict::StayOnGpu:
      out.verdict_reason = fmt::format(
          "the value is in GPU code: GPU-only code (kernels and their extensions) is {:.0f}% of the core code, code "
          "with no TPU path {:.0f}% ({}, at least {:.0f} engineer-days of rewrite){}",
          100 * share.gpu, 100 * share.novel, plural(t.core_novel, "finding", "findings"), t.core_novel_hours / 8,
          first_kernel_or_novel ? ", first at " + location_text(*first_kernel_or_novel) : "");
      break;
    case Verdict::Significant:
      out.verdict_reason =
          first_novel ? fmt::format("real rewrites: {} with no TPU equivalent{}, first at {}",
                                    plural(t.core_novel, "finding", "findings"),
                                    share.novel >= 0.005 ? fmt::format(" ({:.0f}% of the core code)", 100 * share.novel)
                                                         : "",
                                    location_text(*first_novel))
          : first_kernel
              ? fmt::format("real rewrites with a known TPU path: {} to replace with its TPU equivalent, first at {}",
                            plural(t.core_kernels, "custom kernel", "custom kernels"), location_text(*first_kernel))
              : fmt::format("real rewrites with a known TPU path: at least {:.0f} engineer-days of changes in the core "
                            "code",
                            t.core_change_hours / 8);
      break;
    case Verdict::Portable:
      out.verdict_reason = fmt::format("the blockers are mechanical: {}-{} engineer-hours of changes in the core code{}",
                                       hours_text(out.core_hours.low), hours_text(out.core_hours.high),
                                       first_error ? fmt::format(", first at {}", location_text(*first_error)) : "");
      break;
    case Verdict::TpuReady:
      out.verdict_reason = counted == 0 ? "no TPU blocker found"
                           : out.core_hours.high == 0
                               ? "nothing blocks a TPU run: no change in the core code (findings in tests, examples "
                                 "or benchmarks only)"
                           : removed_api_hours > 0
                               ? fmt::format("nothing blocks a TPU run: at most {} engineer-hours of changes in the "
                                             "core code, {} of them to move off APIs current framework releases no "
                                             "longer have (or to pin an old release)",
                                             hours_text(out.core_hours.high), hours_text(removed_api_hours))
                               : fmt::format("nothing blocks a TPU run: at most {} engineer-hours of tuning in the "
                                             "core code",
                                             hours_text(out.core_hours.high));
      break;
  }
  // The reasons above speak of the findings' hours; the effort adds the run that checks the port.
  if (out.core_lines > 0) {
    out.bring_up = C::bring_up(out.verdict);
    out.hours.low += out.bring_up.low;
    out.hours.high += out.bring_up.high;
    out.core_hours.low += out.bring_up.low;
    out.core_hours.high += out.bring_up.high;
  }
  return out;
}

}  // namespace tpulint
