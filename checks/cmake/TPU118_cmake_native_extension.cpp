// TPU118: a Python extension module or a shared library built from native sources by CMake
// (pybind11_add_module, nanobind_add_module, Python_add_library, add_library SHARED/MODULE,
// cuda_add_library), with the sources it lists, so that its kernels join its work item.
// User docs: docs/checks/TPU118.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

#include "checks/check_def.h"

namespace tpulint::checks {

namespace {

using cmake::EvaluatedCommand;
using cmake::Value;

bool has_extension(std::string_view path, std::initializer_list<std::string_view> extensions) {
  std::string ext = std::filesystem::path(path).extension().string();
  return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
}
bool is_cuda_source(std::string_view p) { return has_extension(p, {".cu", ".cuh"}); }
bool is_cxx_source(std::string_view p) { return has_extension(p, {".c", ".cc", ".cpp", ".cxx", ".c++", ".C"}); }
// What joins the module's work item: its compiled sources and the headers it lists.
bool is_native_file(std::string_view p) {
  return is_cuda_source(p) || is_cxx_source(p) || has_extension(p, {".h", ".hh", ".hpp", ".hxx", ".inl"});
}

bool is_one_of(const Value& v, std::initializer_list<std::string_view> words) {
  return v.resolved && std::find(words.begin(), words.end(), v.text) != words.end();
}

struct Target {
  const EvaluatedCommand* declared = nullptr;
  bool python_module = false;  // an extension module (pybind11, nanobind, Python_add_library MODULE)
  bool cuda_builder = false;   // cuda_add_library: FindCUDA's builder, linked with the CUDA runtime
  std::vector<std::string> sources;  // resolved names as written (relative or absolute)
  std::string output_name;
  std::string destination;  // install(TARGETS ... DESTINATION d)
};

// The declaration of a target that may be an extension, with its source values; nullopt for
// other commands (and static, object or interface libraries).
std::optional<Target> declaration(const EvaluatedCommand& e) {
  const std::string& cmd = e.command->name;
  const std::vector<Value>& v = e.values;
  Target t;
  t.declared = &e;
  size_t i = 1;
  if (cmd == "pybind11_add_module") {
    t.python_module = true;
    while (i < v.size() && is_one_of(v[i], {"MODULE", "SHARED", "EXCLUDE_FROM_ALL", "NO_EXTRAS", "SYSTEM",
                                            "THIN_LTO", "OPT_SIZE", "WITHOUT_SOABI"}))
      ++i;
  } else if (cmd == "nanobind_add_module") {
    t.python_module = true;
    for (; i < v.size(); ++i) {
      if (is_one_of(v[i], {"NB_DOMAIN"})) ++i;
      else if (!is_one_of(v[i], {"NB_STATIC", "NB_SHARED", "STABLE_ABI", "FREE_THREADED", "NB_SUPPRESS_WARNINGS",
                                 "NOSTRIP", "NOMINSIZE", "LTO", "PROTECT_STACK", "MUSL_DYNAMIC_LIBSTDCPP"}))
        break;
    }
  } else if (cmd == "python_add_library" || cmd == "python3_add_library") {
    // Python_add_library(name [STATIC|SHARED|MODULE [USE_SABI v] [WITH_SOABI]] sources): MODULE by default.
    t.python_module = true;
    if (i < v.size() && is_one_of(v[i], {"STATIC"})) return std::nullopt;
    if (i < v.size() && is_one_of(v[i], {"SHARED"})) t.python_module = false;
    for (; i < v.size(); ++i) {
      if (is_one_of(v[i], {"USE_SABI"})) ++i;
      else if (!is_one_of(v[i], {"SHARED", "MODULE", "WITH_SOABI"})) break;
    }
  } else if (cmd == "add_library") {
    if (v.size() < 2 || !is_one_of(v[1], {"SHARED", "MODULE"})) return std::nullopt;
    i = is_one_of(v.size() > 2 ? v[2] : v[1], {"EXCLUDE_FROM_ALL"}) ? 3 : 2;
  } else if (cmd == "cuda_add_library") {
    // cuda_add_library(name sources... [STATIC|SHARED|MODULE] [EXCLUDE_FROM_ALL] [OPTIONS ...])
    t.cuda_builder = true;
    auto options = std::find_if(v.begin(), v.end(), [](const Value& x) { return is_one_of(x, {"OPTIONS"}); });
    if (std::any_of(v.begin(), options, [](const Value& x) { return is_one_of(x, {"STATIC"}); })) return std::nullopt;
    for (auto it = v.begin() + 1; it < options; ++it)
      if (it->resolved && !is_one_of(*it, {"SHARED", "MODULE", "EXCLUDE_FROM_ALL"})) t.sources.push_back(it->text);
    return t;
  } else {
    return std::nullopt;
  }
  for (; i < v.size(); ++i)
    if (v[i].resolved) t.sources.push_back(v[i].text);
  return t;
}

// What the whole file tells: its targets, whether it enables CUDA, whether it builds against
// PyTorch.
struct BuildFacts {
  std::map<std::string, Target> targets;  // by name
  std::vector<std::string> order;         // names in declaration order
  bool cuda_enabled = false;
  std::string cuda_enabled_by;
  bool torch = false;
};

// The index of the first value equal to `word` at or after `from`, or v.size().
size_t find_word(const std::vector<Value>& v, std::string_view word, size_t from = 0) {
  for (size_t i = from; i < v.size(); ++i)
    if (v[i].resolved && v[i].text == word) return i;
  return v.size();
}

// Sets `field` of each known target among v[first, last) to `value`.
void set_on_targets(const std::vector<Value>& v, size_t first, size_t last, const Value& value,
                    std::string Target::*field, BuildFacts& b) {
  if (!value.resolved) return;
  for (size_t i = first; i < last; ++i)
    if (v[i].resolved && b.targets.count(v[i].text)) b.targets[v[i].text].*field = value.text;
}

// set_target_properties(t... PROPERTIES name value ...): the OUTPUT_NAME of each target.
void record_properties(const std::vector<Value>& v, BuildFacts& b) {
  size_t props = find_word(v, "PROPERTIES");
  for (size_t i = props + 1; i + 1 < v.size(); i += 2)
    if (is_one_of(v[i], {"OUTPUT_NAME"})) set_on_targets(v, 0, props, v[i + 1], &Target::output_name, b);
}

BuildFacts read_build(const cmake::CmakeFile& facts) {
  BuildFacts b;
  for (const EvaluatedCommand& e : facts.evaluated) {
    if (e.in_definition) continue;
    const std::string& cmd = e.command->name;
    const std::vector<Value>& v = e.values;
    for (const cmake::Argument& a : e.command->arguments)
      if (a.text.find("TORCH_LIBRARIES") != std::string::npos) b.torch = true;
    if (v.empty() || !v[0].resolved) continue;
    if (cmd == "find_package") {
      if (v[0].text == "Torch") b.torch = true;
    } else if (cmd == "enable_language" || cmd == "project") {
      auto from = v.begin() + (cmd == "project" ? 1 : 0);
      if (std::any_of(from, v.end(), [](const Value& x) { return is_one_of(x, {"CUDA"}); }) && !b.cuda_enabled) {
        b.cuda_enabled = true;
        b.cuda_enabled_by = cmd;
      }
    } else if (auto t = declaration(e)) {
      if (b.targets.count(v[0].text)) continue;  // a second declaration is CMake's error, not another target
      b.order.push_back(v[0].text);
      b.targets[v[0].text] = std::move(*t);
    } else if (cmd == "target_sources" && b.targets.count(v[0].text)) {
      Target& t = b.targets[v[0].text];
      for (size_t i = 1; i < v.size(); ++i) {
        if (is_one_of(v[i], {"FILE_SET", "TYPE"})) ++i;
        else if (v[i].resolved && !is_one_of(v[i], {"INTERFACE", "PUBLIC", "PRIVATE", "BASE_DIRS", "FILES"}))
          t.sources.push_back(v[i].text);
      }
    } else if (cmd == "set_target_properties") {
      record_properties(v, b);
    } else if (cmd == "set_property" && v[0].text == "TARGET") {
      // set_property(TARGET t... PROPERTY OUTPUT_NAME name)
      size_t prop = find_word(v, "PROPERTY");
      if (prop + 2 < v.size() && is_one_of(v[prop + 1], {"OUTPUT_NAME"}))
        set_on_targets(v, 1, prop, v[prop + 2], &Target::output_name, b);
    } else if (cmd == "install" && v[0].text == "TARGETS") {
      // install(TARGETS t... [RUNTIME DESTINATION bin] [LIBRARY DESTINATION pkg] ...): a module is
      // a LIBRARY artifact; without that keyword the first DESTINATION is everyone's.
      size_t targets_end = 1;
      while (targets_end < v.size() && !is_one_of(v[targets_end], {"EXPORT", "LIBRARY", "RUNTIME", "ARCHIVE",
                                                                 "DESTINATION", "COMPONENT"}))
        ++targets_end;
      size_t library = find_word(v, "LIBRARY");
      size_t dest = find_word(v, "DESTINATION", library < v.size() ? library : 0);
      if (dest + 1 < v.size()) set_on_targets(v, 1, targets_end, v[dest + 1], &Target::destination, b);
    }
    if (cmd == "target_link_libraries")
      for (const Value& x : v)
        if (x.resolved && (x.text == "torch" || x.text == "torch_python" || x.text == "torch_cuda")) b.torch = true;
  }
  return b;
}

// The dotted module a target installs as, when install(TARGETS ... DESTINATION d) names a
// package directory of the tree (d/__init__.py, or src/d/__init__.py); "" otherwise.
std::string installed_package(const Target& t, const cmake::CmakeFile& facts) {
  std::filesystem::path d(t.destination);
  if (t.destination.empty() || d.is_absolute()) return "";
  d = d.lexically_normal();
  if (d.empty() || *d.begin() == ".." || d == ".") return "";
  std::error_code ec;
  const auto& root = facts.dirs.scan_root;
  if (!std::filesystem::is_regular_file(root / d / "__init__.py", ec) &&
      !std::filesystem::is_regular_file(root / "src" / d / "__init__.py", ec))
    return "";
  std::string dotted = d.generic_string();
  std::replace(dotted.begin(), dotted.end(), '/', '.');
  return dotted;
}

class CmakeNativeExtension final : public cmake::CmakeCheck {
 public:
  void check(const cmake::CmakeFile& facts, cmake::CmakeContext& ctx) const override {
    BuildFacts b = read_build(facts);
    for (const std::string& name : b.order) report(name, b.targets[name], b, facts, ctx);
  }

 private:
  static void report(const std::string& name, const Target& t, const BuildFacts& b, const cmake::CmakeFile& facts,
                     cmake::CmakeContext& ctx) {
    bool cuda_sources = std::any_of(t.sources.begin(), t.sources.end(), [](const std::string& s) { return is_cuda_source(s); });
    bool cxx_sources = std::any_of(t.sources.begin(), t.sources.end(), [](const std::string& s) { return is_cxx_source(s); });
    bool cuda = t.cuda_builder || cuda_sources || (b.cuda_enabled && cxx_sources);
    // C++ code matters when it is built against PyTorch: its functions take tensors and read
    // their memory, like a CppExtension. A CPU module of a JAX or TF project (a tokenizer, a
    // graph helper) runs on the TPU host as it is.
    if (!cuda && !(b.torch && (t.python_module || cxx_sources))) return;

    std::string module = t.output_name.empty() ? name : t.output_name;
    std::string package = installed_package(t, facts);
    std::string subject = package.empty() ? module : package + "." + module;
    // The command as written (`Python_add_library`): names are case-insensitive, messages quote the code.
    ByteSpan at = t.declared->command->name_span;
    std::string builder = ctx.file().text().substr(at.begin, at.end - at.begin);
    std::string what = t.python_module ? "extension" : "shared library";
    // cuda_add_library is a CUDA build whatever its sources: it links the CUDA runtime.
    std::string from = cuda_sources ? " from CUDA sources"
                       : cuda && !t.cuda_builder ? fmt::format(" in a project that enables CUDA ('{}')", b.cuda_enabled_by)
                                                 : "";
    std::string label = fmt::format("{} {} '{}'", cuda ? "CUDA" : "C++", what, subject);
    Finding* f = nullptr;
    if (cuda) {
      f = &ctx.report(at, fmt::format("{} is built with '{}'{}; its kernels cannot run on a TPU", label, builder, from),
                      std::string(b.torch ? kTorchCudaHint : kCudaHint), subject);
    } else {
      f = &ctx.report(at, fmt::format("{} is built with '{}'; its ops have no XLA lowering", label, builder),
                      std::string(b.torch ? kTorchCpuHint : kCpuHint), subject);
      f->effort = EffortClass::Medium;
      f->hours = {4, 16};
    }
    std::set<std::string> paths;
    for (const std::string& s : t.sources)
      if (is_native_file(s))
        if (auto p = ctx.tree_path(s)) paths.insert(*p);
    f->related_paths.assign(paths.begin(), paths.end());
  }

  // The same advice as TPU110 gives a torch.utils.cpp_extension build.
  static constexpr std::string_view kTorchCudaHint =
      "reimplement its ops as PyTorch ops that XLA compiles, or as Pallas kernels, and keep the extension "
      "out of the TPU build";
  static constexpr std::string_view kTorchCpuHint =
      "reimplement its ops as PyTorch ops that XLA compiles; a C++ op sees no data of an XLA tensor";
  static constexpr std::string_view kCudaHint =
      "reimplement its functions with framework ops that XLA compiles (PyTorch/XLA, JAX), or as Pallas kernels, "
      "and keep the module out of the TPU build";
  static constexpr std::string_view kCpuHint =
      "reimplement its functions with framework ops that XLA compiles; native code sees no data of an XLA tensor";
};

const CmakeNativeExtension kCheck;

}  // namespace

extern const CheckDef TPU118_cmake_native_extension{
    .info = {
        .id = "TPU118",
        .name = "cmake-native-extension",
        .summary = "Python extension module or shared library built from native sources by CMake "
                   "(`pybind11_add_module`, `add_library(... SHARED ...)`, ...)",
        .languages = uint8_t(Language::Cmake),
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {8, 24},
        .doc = {
            .what = "In a `CMakeLists.txt` or `*.cmake` file (read as text; cmake is never run): a target built "
                    "by `pybind11_add_module`, `nanobind_add_module`, `Python_add_library`/`Python3_add_library` "
                    "(a Python extension module), by `add_library(name SHARED|MODULE ...)` or FindCUDA's "
                    "`cuda_add_library` (a shared library), with the sources it lists there and in later "
                    "`target_sources(name ...)`. A CUDA build is told apart from a C++-only one. A C++-only target "
                    "counts when the file builds against PyTorch. The finding names "
                    "the sources that exist in the scanned tree: their kernels, launches and CUDA calls join the "
                    "module's work item, and so does a Python import of the module (TPU117).",
            .why = "The module is native code compiled for CUDA or the CPU, reached from Python. XLA cannot "
                   "compile it: a CUDA kernel cannot run on a TPU host at all, and C++ code that reads tensor "
                   "memory sees none on an XLA tensor, which has no host storage.",
            .example = "find_package(Torch REQUIRED)\n"
                       "pybind11_add_module(_ext_cuda csrc/bindings.cpp csrc/roi_align_kernel.cu)\n"
                       "target_link_libraries(_ext_cuda PRIVATE ${TORCH_LIBRARIES})",
            .use_instead = "Reimplement each function the module exports: as framework ops that XLA compiles and "
                           "fuses (PyTorch ops on the XLA device, JAX), or as Pallas kernels for the few that need "
                           "tiling. Keep the CMake target optional so that the TPU build does not compile it.",
            .effort = "High for a CUDA module or library (8-24 h for the bindings, dispatch and build; its kernels "
                      "are counted on their own by TPU101 when their sources are scanned). Medium for a C++-only "
                      "one (4-16 h): its functions are CPU code that must become tensor ops.",
            .heuristic = "The file is read alone, top to bottom: variables it sets (`set`, `list(APPEND)`, "
                         "`file(GLOB)` expanded against the tree, `project()`) are expanded; a variable it does not "
                         "set (a cache option, a parent directory's, a `find_package` result, a function parameter) "
                         "leaves the argument out, and commands inside `function()`/`macro()` are not calls. The "
                         "commands of every branch of an `if()` are applied in order: sources appended under a "
                         "condition count, and a `set()` in an `else()` replaces the one before it. In a `*.cmake` "
                         "file relative source paths cannot be placed (they are relative to the including "
                         "directory) and are left out. A target is a CUDA build "
                         "when it lists a `.cu`/`.cuh` source, is a `cuda_add_library`, or has C++ sources in a file "
                         "that enables CUDA (`enable_language(CUDA)`, `project(... CUDA)`), even if only some of "
                         "them are compiled by nvcc. A C++-only module or shared library is reported when the file "
                         "builds against PyTorch (`find_package(Torch)`, `${TORCH_LIBRARIES}`, a link to `torch`): "
                         "its functions take tensors, like a `CppExtension`'s; without PyTorch (a tokenizer, a "
                         "JAX project's graph helper) it runs on the TPU host as it is and is not reported. "
                         "The module's name is the target's (or its `OUTPUT_NAME`), "
                         "prefixed by its package when `install(TARGETS ... DESTINATION pkg)` names a package "
                         "directory of the tree. Targets made by a project's own functions (vLLM's "
                         "`define_gpu_extension_target`) and `target_sources` in another file are missed.",
            .references = {"https://pybind11.readthedocs.io/en/stable/compiling.html#building-with-cmake",
                           "https://cmake.org/cmake/help/latest/module/FindPython.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html"},
        },
    },
    .cmake = &kCheck,
};

}  // namespace tpulint::checks
