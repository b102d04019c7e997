// Vocabulary shared by every layer: languages, categories, severities, effort, positions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tpulint {

// The languages a file can be analyzed as. A bit set so a check can name several.
// Cmake: build descriptions (CMakeLists.txt, *.cmake), read as text to tie native sources to
// the Python extension modules they build.
enum class Language : uint8_t { None = 0, Python = 1, Cxx = 2, Cuda = 4, Cmake = 8 };
using LanguageSet = uint8_t;
constexpr LanguageSet operator|(Language a, Language b) { return LanguageSet(uint8_t(a) | uint8_t(b)); }
constexpr LanguageSet operator|(LanguageSet a, Language b) { return LanguageSet(a | uint8_t(b)); }
constexpr bool contains(LanguageSet set, Language l) { return (set & uint8_t(l)) != 0; }
std::string_view to_string(Language l);

// The catalogue's categories; the value is the leading digit of the check IDs in it.
enum class Category : uint8_t {
  CustomKernel = 1,   // TPU1xx custom kernels and native extensions
  DynamicShape = 2,   // TPU2xx dynamic shapes and data-dependent control flow
  UnsupportedOp = 3,  // TPU3xx ops and dtypes without TPU support
  CudaApi = 4,        // TPU4xx CUDA-coupled device and runtime APIs
  CudaLibrary = 5,    // TPU5xx CUDA-only libraries
  HostSync = 6,       // TPU6xx host-device syncs and input-pipeline stalls
  FrameworkVersion = 7,  // TPU7xx APIs current framework releases no longer have
  AnalyzerNote = 9,   // TPU9xx the analyzer's own notes
};
inline constexpr Category kAllCategories[] = {Category::CustomKernel, Category::DynamicShape,
                                              Category::UnsupportedOp, Category::CudaApi,
                                              Category::CudaLibrary, Category::HostSync,
                                              Category::FrameworkVersion, Category::AnalyzerNote};
std::string_view to_string(Category c);        // kebab-case key, e.g. "custom-kernel"
std::string_view display_name(Category c);     // for people, e.g. "custom kernels and native extensions"

// The ML framework a check is about. `--target` (the TPU stack a team ports to) leaves out
// the checks of the other frameworks; Any: checks that apply whatever the framework (CUDA
// kernels, CUDA-only libraries, C++).
enum class Framework : uint8_t { Any, Torch, Jax, TensorFlow };
std::string_view to_string(Framework f);  // "any", "torch", "jax", "tensorflow"
// The framework `--target` names: "torch-xla", "jax" or "tf"; nullopt for anything else.
std::optional<Framework> framework_for_target(std::string_view target);
inline constexpr std::string_view kTargetNames[] = {"torch-xla", "jax", "tf"};

// error: the code cannot run on a TPU as written; warning: it runs, but slowly (recompiles,
// CPU fallback, host syncs); info: a note about the analysis itself.
enum class Severity : uint8_t { Info, Warning, Error };
std::string_view to_string(Severity s);

// How much porting work a finding stands for: none, low (minutes), medium (hours),
// high (no TPU equivalent: a rewrite).
enum class EffortClass : uint8_t { None, Low, Medium, High };
std::string_view to_string(EffortClass e);

// Where the code a finding sits in runs, as the Python semantic model sees it (docs/scoring.md):
// the traced hot path (a model's forward, jitted and compiled functions, what they call), the
// body of a training loop, the host's data path (datasets, collate functions, transforms),
// one-time code (constructors, checkpoint loading, argument parsing), evaluation and
// post-processing, a branch taken only on GPUs or when an optional GPU library is there (a
// guard with another path), tests; unknown when none of these is known.
enum class Context : uint8_t { Unknown, HotPath, Loop, Host, OneTime, Eval, Guarded, Test };
std::string_view to_string(Context c);  // "unknown", "hot-path", "loop", "host", "one-time", "eval", "guarded", "test"

struct HoursRange {
  double low = 0;
  double high = 0;
};
// A data table's hours, "4-12" or "0.25-0.5"; nullopt unless both are numbers and low <= high.
std::optional<HoursRange> parse_hours_range(std::string_view text);

// 1-based line and column. Columns count Unicode code points, as editors and SARIF readers expect.
struct Position {
  uint32_t line = 0;
  uint32_t column = 0;
  friend bool operator==(const Position&, const Position&) = default;
  friend auto operator<=>(const Position&, const Position&) = default;
};

// A half-open byte range [begin, end) in a file's text: what frontends and checks speak in.
struct ByteSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
};

// The inverse of to_string, for reading reports back (tpulint merge); nullopt if unknown.
std::optional<Category> category_from_string(std::string_view s);
std::optional<Severity> severity_from_string(std::string_view s);
std::optional<EffortClass> effort_from_string(std::string_view s);
std::optional<Language> language_from_string(std::string_view s);
std::optional<Context> context_from_string(std::string_view s);

// The category a check ID belongs to ("TPU201" -> DynamicShape); nullopt for a malformed ID.
std::optional<Category> category_from_id(std::string_view check_id);

}  // namespace tpulint
