// TPU116: a native library loaded from Python (ctypes.CDLL, cdll.LoadLibrary,
// numpy.ctypeslib.load_library, torch.ops.load_library): a CUDA library, or the project's own.
// User docs: docs/checks/TPU116.md (generated from the CheckInfo below).
#include <algorithm>
#include <array>
#include <cctype>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

// Library base names (lower case, without "lib" and extensions) of the CUDA toolkit, driver and
// NVIDIA runtime libraries, matched as prefixes: "cudart64_12" is cudart, "cublasLt" is cublas.
constexpr std::array<std::string_view, 21> kCudaLibraries = {
    "cublas", "cuda",  "cudart", "cudnn",     "cufft",   "cupti", "curand",    "cusolver", "cusparse", "cutensor", "nccl",
    "npp",    "nvblas", "nvcuda", "nvidia-ml", "nvinfer", "nvjitlink", "nvjpeg", "nvml",   "nvrtc",    "nvtoolsext"};

// Operating-system and common host libraries: loading them says nothing about the accelerator.
constexpr std::array<std::string_view, 52> kSystemLibraries = {
    "advapi32", "appkit",   "asound",   "c",         "c++",      "cairo",   "carbon",  "comdlg32", "corefoundation",
    "crypt",    "crypto",   "dbghelp",  "dl",        "dwmapi",   "egl",     "fontconfig", "foundation", "freetype",
    "gcc_s",    "gdi32",    "gl",       "glu",       "glx",      "gomp",    "iokit",   "iomp5",    "iphlpapi",
    "kernel32", "m",        "msvcrt",   "ntdll",     "numa",     "objc",    "ole32",   "oleaut32", "omp",
    "opengl32", "psapi",    "pthread",  "resolv",    "rt",       "security", "shell32", "shlwapi", "ssl",
    "stdc++",   "system",   "user32",   "util",      "winmm",    "ws2_32",  "z"};

// "/usr/lib/x86_64-linux-gnu/libcudart.so.12" -> "cudart"; "nvcuda.dll" -> "nvcuda".
std::string base_name(std::string_view s) {
  size_t slash = s.find_last_of("/\\");
  if (slash != std::string_view::npos) s = s.substr(slash + 1);
  std::string out(s.substr(0, s.find('.')));
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  if (out.starts_with("lib") && out.size() > 3) out = out.substr(3);
  return out;
}

bool is_cuda_library(const std::string& base) {
  return std::any_of(kCudaLibraries.begin(), kCudaLibraries.end(),
                     [&](std::string_view p) { return base.starts_with(p); });
}

bool is_system_library(const std::string& base) {
  if (base.starts_with("python") || base.starts_with("ucrt") || base.starts_with("vcruntime") ||
      base.starts_with("msvcp") || base.starts_with("api-ms-win"))
    return true;
  return std::find(kSystemLibraries.begin(), kSystemLibraries.end(), base) != kSystemLibraries.end();
}

bool has_library_extension(std::string_view s) {
  for (std::string_view ext : {".so", ".dll", ".dylib", ".pyd"})
    if (s.find(ext) != std::string_view::npos) return true;
  return false;
}

// The names a load argument may hold: the literal itself, the names given to
// ctypes.util.find_library(...) inside it, or library file names among its string literals
// (through one assignment of a variable).
std::vector<std::string> candidate_names(Node arg, const python::PythonContext& ctx) {
  std::vector<std::string> out;
  if (!arg) return out;
  if (auto s = python::string_value(arg)) {
    out.push_back(*s);
    return out;
  }
  std::vector<Node> sources{arg};
  if (arg.kind() == Kind::Identifier)
    for (Node v : pyhelp::assigned_values(arg.text(), ctx)) sources.push_back(v);
  for (Node src : sources) {
    if (auto s = python::string_value(src)) {
      out.push_back(*s);
      continue;
    }
    bool find_library = src.text().find("find_library") != std::string_view::npos;
    for (std::string& s : pyhelp::string_literals(src))
      if (find_library || has_library_extension(s)) out.push_back(std::move(s));
  }
  return out;
}

class NativeLibraryLoad final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr std::string_view k[] = {"CDLL", "OleDLL", "PyDLL", "WinDLL", "LoadLibrary", "load_library"};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Attribute && callee.kind() != Kind::Identifier) return;
    const auto& q = ctx.qualified_name(callee);
    static constexpr std::array<std::string_view, 9> kLoaders = {
        "ctypes.CDLL",        "ctypes.OleDLL",           "ctypes.PyDLL",         "ctypes.WinDLL",
        "ctypes.cdll.LoadLibrary", "ctypes.oledll.LoadLibrary", "ctypes.pydll.LoadLibrary",
        "ctypes.windll.LoadLibrary", "numpy.ctypeslib.load_library"};
    bool op_library = q && (*q == "torch.ops.load_library" || *q == "torch.classes.load_library");
    // The loaders are told by name before the imports test and the argument list.
    if (!q || (!op_library && std::find(kLoaders.begin(), kLoaders.end(), *q) == kLoaders.end())) return;
    const python::ImportTable& im = ctx.imports();
    if (!im.imports("ctypes") && !im.imports("numpy") && !im.imports("torch")) return;
    python::CallArguments args = python::call_arguments(call);
    Node arg = !args.positional.empty() ? args.positional[0] : args.keyword("name");

    if (op_library) {
      std::vector<std::string> names = candidate_names(arg, ctx);
      std::string label = names.empty() ? "" : fmt::format(" '{}'", names.front());
      ctx.report(callee, fmt::format("'{}' loads the native custom-op library{}", *q, label),
                 "give its ops implementations XLA can compile (torch ops or Pallas kernels) and load it only on "
                 "GPU hosts",
                 names.empty() ? *q : names.front());
      return;
    }

    std::string project;
    for (const std::string& name : candidate_names(arg, ctx)) {
      std::string base = base_name(name);
      if (base.empty()) continue;
      if (is_cuda_library(base)) {
        Finding& f = ctx.report(callee, fmt::format("'{}' loads the CUDA library '{}'", *q, name),
                                "keep it off TPU code paths: a TPU host has no CUDA runtime; use the torch_xla or "
                                "JAX runtime APIs (such as 'xm.get_memory_info()') instead",
                                name);
        f.severity = Severity::Error;
        return;
      }
      if (project.empty() && !is_system_library(base)) project = name;
    }
    if (project.empty()) return;
    ctx.report(callee, fmt::format("'{}' loads the native library '{}'", *q, project),
               "check that it is built for the host CPU without CUDA and reads no tensor memory (an XLA tensor has "
               "none); port what it computes to tensor ops otherwise",
               project);
  }
};

const NativeLibraryLoad kCheck;

}  // namespace

extern const CheckDef TPU116_native_library_load{
    .info = {
        .id = "TPU116",
        .name = "native-library-load",
        .summary = "native library loaded from Python (`ctypes.CDLL`, `cdll.LoadLibrary`, "
                   "`torch.ops.load_library`): a CUDA library or the project's own",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 4},
        .doc = {
            .what = "`ctypes.CDLL`/`PyDLL`/`WinDLL`/`OleDLL(...)`, `ctypes.cdll.LoadLibrary(...)` (and the "
                    "other loaders), `numpy.ctypeslib.load_library(...)` of a CUDA library (an error) or of a "
                    "library that is neither a CUDA nor an operating-system library, usually the project's own "
                    "(a warning); and `torch.ops.load_library(...)` / `torch.classes.load_library(...)`, which "
                    "load native custom operators.",
            .why = "A CUDA library (`libcudart.so`, `libnvidia-ml.so`, `libcublas.so`) is not on a TPU host, and "
                   "the calls made through it have no meaning there. A project library is native code that "
                   "XLA cannot see: it runs on the host, and if it was built with CUDA or reads tensor memory "
                   "(an XLA tensor has none on the host) it has to be ported.",
            .example = "_libcudart = ctypes.CDLL(\"libcudart.so\")\n"
                       "_lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), \"libfused_ops.so\"))",
            .use_instead = "For CUDA libraries, the runtime APIs of the TPU stack (`xm.get_memory_info()`, "
                           "`torch_xla.sync()`, `jax.devices()`). For the project's library, build it for the "
                           "host CPU without CUDA when it only does host work, or port what it computes to tensor "
                           "ops.",
            .effort = "Medium: 1-4 h to review or replace what the library does; a CUDA library is an error, "
                      "the project's own library a warning.",
            .heuristic = "The library's name comes from the string literal passed, or assigned to the variable "
                         "passed, or given to `ctypes.util.find_library`; among the literals of a built path "
                         "(`os.path.join(here, \"libops.so\")`) only file names with a `.so`/`.dll`/`.dylib`/`.pyd` "
                         "extension count. A CUDA library is recognized by its base name (`cudart`, `cublas`, "
                         "`cudnn`, `nccl`, `nvrtc`, `nvidia-ml`, `nvcuda`, ...); operating-system libraries (`c`, "
                         "`m`, `dl`, `pthread`, `kernel32`, `GL`, `EGL`, ...) are not reported. A name built at run "
                         "time from no literal is not reported (a false negative).",
            .references = {"https://docs.python.org/3/library/ctypes.html#loading-shared-libraries",
                           "https://docs.pytorch.org/xla/master/learn/pytorch-on-xla-devices.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
