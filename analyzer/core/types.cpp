#include "core/types.h"

#include <charconv>

namespace tpulint {

std::string_view to_string(Language l) {
  switch (l) {
    case Language::Python: return "python";
    case Language::Cxx: return "c++";
    case Language::Cuda: return "cuda";
    case Language::Cmake: return "cmake";
    case Language::None: break;
  }
  return "none";
}

std::string_view to_string(Category c) {
  switch (c) {
    case Category::CustomKernel: return "custom-kernel";
    case Category::DynamicShape: return "dynamic-shape";
    case Category::UnsupportedOp: return "unsupported-op";
    case Category::CudaApi: return "cuda-api";
    case Category::CudaLibrary: return "cuda-library";
    case Category::HostSync: return "host-sync";
    case Category::FrameworkVersion: return "framework-version";
    case Category::AnalyzerNote: return "analyzer-note";
  }
  return "unknown";
}

std::string_view display_name(Category c) {
  switch (c) {
    case Category::CustomKernel: return "custom kernels and native extensions";
    case Category::DynamicShape: return "dynamic shapes and data-dependent control flow";
    case Category::UnsupportedOp: return "ops and dtypes without TPU support";
    case Category::CudaApi: return "CUDA-coupled device and runtime APIs";
    case Category::CudaLibrary: return "CUDA-only libraries";
    case Category::HostSync: return "host-device syncs and input-pipeline stalls";
    case Category::FrameworkVersion: return "APIs current framework releases no longer have";
    case Category::AnalyzerNote: return "analyzer notes";
  }
  return "unknown";
}

std::string_view to_string(Framework f) {
  switch (f) {
    case Framework::Any: return "any";
    case Framework::Torch: return "torch";
    case Framework::Jax: return "jax";
    case Framework::TensorFlow: return "tensorflow";
  }
  return "any";
}

std::optional<Framework> framework_for_target(std::string_view target) {
  if (target == "torch-xla") return Framework::Torch;
  if (target == "jax") return Framework::Jax;
  if (target == "tf") return Framework::TensorFlow;
  return std::nullopt;
}

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "unknown";
}

std::string_view to_string(EffortClass e) {
  switch (e) {
    case EffortClass::None: return "none";
    case EffortClass::Low: return "low";
    case EffortClass::Medium: return "medium";
    case EffortClass::High: return "high";
  }
  return "unknown";
}

namespace {
template <typename E, size_t N>
std::optional<E> parse_enum(std::string_view s, const E (&values)[N]) {
  for (E v : values)
    if (to_string(v) == s) return v;
  return std::nullopt;
}
}  // namespace

std::optional<Category> category_from_string(std::string_view s) { return parse_enum(s, kAllCategories); }

std::string_view to_string(Context c) {
  switch (c) {
    case Context::Unknown: return "unknown";
    case Context::HotPath: return "hot-path";
    case Context::Loop: return "loop";
    case Context::Host: return "host";
    case Context::OneTime: return "one-time";
    case Context::Eval: return "eval";
    case Context::Guarded: return "guarded";
    case Context::Test: return "test";
  }
  return "unknown";
}

std::optional<Context> context_from_string(std::string_view s) {
  static constexpr Context kAll[] = {Context::Unknown, Context::HotPath, Context::Loop,    Context::Host,
                                     Context::OneTime, Context::Eval,   Context::Guarded, Context::Test};
  return parse_enum(s, kAll);
}

std::optional<Severity> severity_from_string(std::string_view s) {
  static constexpr Severity kAll[] = {Severity::Info, Severity::Warning, Severity::Error};
  return parse_enum(s, kAll);
}

std::optional<EffortClass> effort_from_string(std::string_view s) {
  static constexpr EffortClass kAll[] = {EffortClass::None, EffortClass::Low, EffortClass::Medium, EffortClass::High};
  return parse_enum(s, kAll);
}

std::optional<Language> language_from_string(std::string_view s) {
  static constexpr Language kAll[] = {Language::None, Language::Python, Language::Cxx, Language::Cuda, Language::Cmake};
  return parse_enum(s, kAll);
}

std::optional<HoursRange> parse_hours_range(std::string_view text) {
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  HoursRange h;
  const char* end = text.data() + text.size();
  auto low = std::from_chars(text.data(), text.data() + dash, h.low);
  auto high = std::from_chars(text.data() + dash + 1, end, h.high);
  if (low.ec != std::errc() || low.ptr != text.data() + dash || high.ec != std::errc() || high.ptr != end ||
      h.low > h.high)
    return std::nullopt;
  return h;
}

std::optional<Category> category_from_id(std::string_view id) {
  if (id.size() != 6 || id.substr(0, 3) != "TPU") return std::nullopt;
  for (char c : id.substr(3))
    if (c < '0' || c > '9') return std::nullopt;
  for (Category c : kAllCategories)
    if (id[3] - '0' == int(c)) return c;
  return std::nullopt;
}

}  // namespace tpulint
