// TPU110: a native PyTorch extension built with torch.utils.cpp_extension (CUDAExtension,
// CppExtension, BuildExtension, load, load_inline).
// User docs: docs/checks/TPU110.md (generated from the CheckInfo below).
#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU11x_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "core/source_tree.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;

constexpr std::string_view kModule = "torch.utils.cpp_extension";

enum class Build { None, Cuda, Cpu, Unknown };

bool ends_with_cuda_source(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == '\'')) s.remove_suffix(1);
  return s.ends_with(".cu") || s.ends_with(".cuh");
}


Build sources_build(const python::CallArguments& args, const python::PythonContext& ctx);

// A build script's sources evaluated as far as its literals go, as setup.py files build them:
// `glob.glob(os.path.join(extensions_dir, "**", "*.cu"))` where `extensions_dir =
// os.path.join(this_dir, "pkg", "csrc")` and `this_dir = os.path.dirname(os.path.abspath(__file__))`,
// lists joined with `+` and grown with `+=`. Paths are relative to the build file's directory.
class SourceExpressions {
 public:
  explicit SourceExpressions(const python::PythonContext& ctx) : ctx_(ctx), scope_(python::local_scope(ctx)) {}

  // The file names and glob patterns `sources` lists; empty when none could be evaluated.
  std::vector<std::string> patterns(Node sources) {
    std::vector<std::string> out;
    add_patterns(sources, out, 0);
    return out;
  }

 private:
  // Bounds: the nesting of the expressions evaluated (a hostile file can nest them thousands
  // deep), and the names followed to their values.
  static constexpr int kMaxDepth = 48;
  static constexpr int kMaxNames = 32;

  // A name's values: its assignments, then what `+=` adds to it, in the scope of the call, else
  // in the module.
  std::vector<Node> values_of(std::string_view name) const {
    for (Node scope : {scope_, ctx_.tree().root()}) {
      std::vector<Node> values = python::assigned_values(name, scope);
      for (Node v : python::added_values(name, scope)) values.push_back(v);
      if (!values.empty() || scope == ctx_.tree().root()) return values;
    }
    return {};
  }

  std::string callee(Node call) const {
    const auto& q = ctx_.qualified_name(call.field(Field::Function));
    return q ? *q : std::string();
  }

  // A path the expression evaluates to: a literal, `__file__`, `os.path.join`, `dirname`,
  // `abspath` of those, or a name assigned one of them once.
  std::optional<std::filesystem::path> path(Node e, int depth) const {
    e = python::unparenthesized(e);
    if (!e || depth > kMaxDepth) return std::nullopt;
    if (e.kind() == Kind::String) {
      auto s = python::whole_string_value(e);
      return s ? std::optional<std::filesystem::path>(*s) : std::nullopt;
    }
    if (e.kind() == Kind::Identifier) {
      if (e.text() == "__file__") return std::filesystem::path(ctx_.file().path()).filename();
      if (names_followed_ >= kMaxNames) return std::nullopt;
      ++names_followed_;
      std::vector<Node> values = values_of(e.text());
      return values.size() == 1 ? path(values[0], depth + 1) : std::nullopt;
    }
    if (e.kind() != Kind::Call) return std::nullopt;
    const std::string name = callee(e);
    python::CallArguments args = python::call_arguments(e);
    if (name == "os.path.join") {
      if (args.positional.empty()) return std::nullopt;
      std::filesystem::path joined;
      for (Node a : args.positional) {
        auto part = path(a, depth + 1);
        if (!part) return std::nullopt;
        joined /= *part;
      }
      return joined;
    }
    if (args.positional.size() != 1) return std::nullopt;
    if (name == "os.path.abspath" || name == "os.path.realpath" || name == "os.path.normpath") return path(args.positional[0], depth + 1);
    if (name == "os.path.dirname") {
      auto p = path(args.positional[0], depth + 1);
      if (!p) return std::nullopt;
      std::filesystem::path normal = p->lexically_normal();
      if (normal.empty() || normal == ".") return std::filesystem::path("..");  // the build file's directory's parent
      if (normal.filename() == "..") return normal / "..";
      std::filesystem::path parent = normal.parent_path();
      return parent.empty() ? std::filesystem::path(".") : parent;
    }
    return std::nullopt;
  }

  void add_patterns(Node e, std::vector<std::string>& out, int depth) {
    e = python::unparenthesized(e);
    if (!e || depth > kMaxDepth) return;
    const Kind k = e.kind();
    if (k == Kind::List || k == Kind::Tuple) {
      for (uint32_t i = 0; i < e.named_child_count(); ++i) add_patterns(e.named_child(i), out, depth + 1);
      return;
    }
    if (k == Kind::BinaryOperator && e.named_child_count() == 2) {
      add_patterns(e.named_child(0), out, depth + 1);
      add_patterns(e.named_child(1), out, depth + 1);
      return;
    }
    if (k == Kind::Identifier && e.text() != "__file__") {
      std::string name(e.text());
      if (std::find(following_.begin(), following_.end(), name) != following_.end()) return;  // `s = [m] + s`
      if (names_followed_ >= kMaxNames) return;
      ++names_followed_;
      following_.push_back(name);
      for (Node v : values_of(name)) add_patterns(v, out, depth + 1);
      following_.pop_back();
      return;
    }
    if (k == Kind::Call) {
      const std::string name = callee(e);
      python::CallArguments args = python::call_arguments(e);
      if ((name == "glob.glob" || name == "glob.iglob" || name == "sorted" || name == "list") && !args.positional.empty()) {
        add_patterns(args.positional[0], out, depth + 1);
        return;
      }
    }
    if (auto p = path(e, depth)) out.push_back(p->generic_string());
  }

  const python::PythonContext& ctx_;
  Node scope_;
  std::vector<std::string> following_;
  mutable int names_followed_ = 0;
};

// The file names among the sources of a load(...) or an extension class (second positional or
// `sources=`): what SourceExpressions evaluates them to, else the string literals in them, or in
// what a variable holding them was assigned.
std::vector<std::string> source_names(const python::CallArguments& args, const python::PythonContext& ctx) {
  Node sources = args.positional.size() > 1 ? args.positional[1] : args.keyword("sources");
  if (!sources) return {};
  if (std::vector<std::string> evaluated = SourceExpressions(ctx).patterns(sources); !evaluated.empty()) return evaluated;
  std::vector<std::string> files = pyhelp::string_literals(sources);
  if (files.empty() && sources.kind() == Kind::Identifier) {
    for (Node value : pyhelp::assigned_values(sources.text(), ctx))
      for (std::string& s : pyhelp::string_literals(value)) files.push_back(std::move(s));
  }
  return files;
}

// The sources as paths of the scanned tree: a build runs in the build file's directory, so
// "csrc/nms.cu" in pkg/setup.py is pkg/csrc/nms.cu. Their findings (the kernels) join the
// extension's work item; names that are not source files (directories, flags) match nothing.
// A pattern (`glob.glob("./ops/csrc/cuda/*.cu")`) is expanded against the tree when only its file
// name has wildcards, as `glob.glob` would, or its file name and a last directory `**`
// (`csrc/**/*.cu`), read as any depth beneath `csrc` (recursive or not: the files it adds are
// the extension's sources as surely).
std::vector<std::string> source_paths(const python::CallArguments& args, const python::PythonContext& ctx) {
  std::filesystem::path dir = std::filesystem::path(ctx.file().path()).parent_path();
  std::vector<std::string> out;
  for (const std::string& name : source_names(args, ctx)) {
    std::filesystem::path p = std::filesystem::path(name);
    if (name.empty() || p.is_absolute() || !p.has_extension()) continue;
    std::filesystem::path rel = (dir / p).lexically_normal();
    if (rel.generic_string().starts_with("..")) continue;
    if (!has_glob_wildcard(rel.generic_string())) {
      out.push_back(rel.generic_string());
      continue;
    }
    std::filesystem::path dir_part = rel.parent_path();
    const bool any_depth = dir_part.filename() == "**";
    if (any_depth) dir_part = dir_part.parent_path();
    if (has_glob_wildcard(dir_part.generic_string())) continue;
    const SourceTree tree = SourceTree::holding(ctx.file().absolute_path(), ctx.file().path());
    if (auto found = tree.glob(dir_part.generic_string(), rel.filename().string(), any_depth, kMaxGlobEntries))
      for (std::string& f : *found) out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Whether a load(...) call builds CUDA code: `with_cuda=` decides when given, then
// `extra_cuda_cflags=`, then the file names among its sources (`.cu`/`.cuh`).
Build load_build(const python::CallArguments& args, const python::PythonContext& ctx) {
  if (Node w = args.keyword("with_cuda"); w && !python::is_none(w)) return w.text() == "False" ? Build::Cpu : Build::Cuda;
  if (args.keyword("extra_cuda_cflags")) return Build::Cuda;
  return sources_build(args, ctx);
}

// Whether the sources of a load(...) or an extension class (second positional or `sources=`)
// include CUDA files.
Build sources_build(const python::CallArguments& args, const python::PythonContext& ctx) {
  std::vector<std::string> files = source_names(args, ctx);
  if (files.empty()) return Build::Unknown;
  for (const std::string& f : files)
    if (ends_with_cuda_source(f)) return Build::Cuda;
  return Build::Cpu;
}

// Whether a load_inline(...) call builds CUDA code: `with_cuda=` decides when given, else
// whether `cuda_sources` (third positional) is given and not None.
Build load_inline_build(const python::CallArguments& args) {
  if (Node w = args.keyword("with_cuda"); w && !python::is_none(w)) return w.text() == "False" ? Build::Cpu : Build::Cuda;
  Node cuda = args.positional.size() > 2 ? args.positional[2] : args.keyword("cuda_sources");
  return !cuda || python::is_none(cuda) ? Build::Cpu : Build::Cuda;
}

// The extension's name: the first positional argument or `name=`, when a string literal or a
// variable assigned one.
std::string extension_name(const python::CallArguments& args, const python::PythonContext& ctx) {
  Node n = !args.positional.empty() ? args.positional[0] : args.keyword("name");
  if (!n) return "";
  if (auto s = python::string_value(n)) return *s;
  if (n.kind() == Kind::Identifier)
    for (Node v : pyhelp::assigned_values(n.text(), ctx))
      if (auto s = python::string_value(v)) return *s;
  return "";
}

// "CUDA extension 'roi_ops._C'" (after "the" when `article`), or "a CUDA extension" when its
// name is not a literal.
std::string extension_label(std::string_view kind, const std::string& name, bool article = false) {
  if (name.empty()) return fmt::format("a {} extension", kind);
  return fmt::format("{}{} extension '{}'", article ? "the " : "", kind, name);
}

class TorchCppExtension final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }

  void check(Node call, python::PythonContext& ctx) const override {
    Node callee = call.field(Field::Function);
    if (callee.kind() != Kind::Identifier && callee.kind() != Kind::Attribute) return;
    const auto& q = ctx.qualified_name(callee);
    // Following local variables costs a walk of the scope: only in files that import the module.
    bool of_module = q ? python::has_module_prefix(*q, kModule) : ctx.imports().imports(kModule);
    // Most calls are neither the module's nor a `setup(cmdclass=...)`: tell them first.
    if (!of_module && !pyapi::passes_keyword(call, {"cmdclass"})) return;
    if (!ctx.imports().imports("torch")) return;
    std::vector<std::string> names;
    if (q)
      names.push_back(*q);
    else if (of_module)
      names = pyhelp::resolved_names(callee, ctx);
    python::CallArguments args = python::call_arguments(call);

    bool cuda_ext = false, cpp_ext = false;
    for (const std::string& q : names) {
      if (!python::has_module_prefix(q, kModule)) continue;
      std::string_view member = std::string_view(q).substr(kModule.size());
      if (member == ".CUDAExtension") cuda_ext = true;
      if (member == ".CppExtension") cpp_ext = true;
      if (member == ".load" || member == ".load_inline") {
        Build b = member == ".load" ? load_build(args, ctx) : load_inline_build(args);
        report_load(callee, ctx, std::string(member.substr(1)), extension_name(args, ctx), b)
            .related_paths = source_paths(args, ctx);
        return;
      }
    }
    // CppExtension(..., sources=[..., "kernel.cu"]): BuildExtension compiles the .cu with nvcc.
    bool cuda_sources = cpp_ext && !cuda_ext && sources_build(args, ctx) == Build::Cuda;
    if (cuda_ext || cpp_ext) {
      // `ext = CppExtension` / `ext = CUDAExtension` under a CUDA condition: the CUDA build wins.
      std::string name = extension_name(args, ctx);
      std::string via = callee.kind() == Kind::Identifier && !ctx.qualified_name(callee)
                            ? fmt::format(" (through '{}')", callee.text())
                            : "";
      std::string subject = name.empty() ? (cuda_ext ? "CUDAExtension" : "CppExtension") : name;
      Finding* f = nullptr;
      if (cuda_ext || cuda_sources) {
        f = &ctx.report(callee, fmt::format("{} is built with '{}'{}{}; its kernels cannot run on a TPU",
                                       extension_label("CUDA", name), cuda_ext ? "CUDAExtension" : "CppExtension",
                                       cuda_ext ? "" : " from CUDA sources", via),
                   std::string(kCudaHint), subject);
      } else {
        f = &ctx.report(callee, fmt::format("{} is built with 'CppExtension'{}; its ops have no XLA lowering",
                                            extension_label("C++", name), via),
                        std::string(kCpuHint), subject);
        f->effort = EffortClass::Medium;
        f->hours = {4, 16};
      }
      f->related_paths = source_paths(args, ctx);
      return;
    }
    check_build_extension(args, ctx);
  }

 private:
  static constexpr std::string_view kCudaHint =
      "reimplement its ops as PyTorch ops that XLA compiles, or as Pallas kernels, and keep the extension "
      "out of the TPU build";
  static constexpr std::string_view kCpuHint =
      "reimplement its ops as PyTorch ops that XLA compiles; a C++ op sees no data of an XLA tensor";

  static Finding& report_load(Node at, python::PythonContext& ctx, const std::string& fn, const std::string& name,
                              Build b) {
    std::string subject = name.empty() ? fn : name;
    if (b == Build::Cuda) {
      return ctx.report(at,
                        fmt::format("'{}' JIT-compiles {}; its kernels cannot run on a TPU", fn,
                                    extension_label("CUDA", name, true)),
                        std::string(kCudaHint), subject);
    }
    Finding& f = ctx.report(
        at,
        fmt::format("'{}' JIT-compiles {}; its ops have no XLA lowering", fn,
                    extension_label(b == Build::Cpu ? "C++" : "native", name, true)),
        std::string(kCpuHint), subject);
    f.effort = EffortClass::Medium;
    f.hours = {4, 16};
    return f;
  }

  // `setup(cmdclass={"build_ext": BuildExtension})` in a file that builds no extension itself
  // (they come from another module): the one place that says the package has native code.
  static void check_build_extension(const python::CallArguments& args, python::PythonContext& ctx) {
    Node cmdclass = args.keyword("cmdclass");
    if (!cmdclass) return;
    Node build_ext;
    std::vector<Node> stack{cmdclass};
    while (!stack.empty() && !build_ext) {
      Node n = stack.back();
      stack.pop_back();
      if (n.kind() == Kind::Identifier || n.kind() == Kind::Attribute) {
        const auto& q = ctx.qualified_name(n);
        if (q && *q == fmt::format("{}.BuildExtension", kModule)) {
          build_ext = n;
          continue;
        }
        if (n.kind() == Kind::Identifier) continue;
      }
      for (uint32_t i = n.named_child_count(); i-- > 0;) stack.push_back(n.named_child(i));
    }
    if (!build_ext || builds_extensions_itself(ctx)) return;
    Finding& f = ctx.report(build_ext,
                            "'BuildExtension' builds the package's native PyTorch extensions, which cannot run on a TPU",
                            "reimplement the extensions' ops as PyTorch ops that XLA compiles, or as Pallas kernels",
                            "BuildExtension");
    f.effort = EffortClass::Medium;
    f.hours = {4, 16};
  }

  // True if the file names an extension constructor or loader (those calls are reported).
  static bool builds_extensions_itself(const python::PythonContext& ctx) {
    for (const auto& b : ctx.imports().bindings()) {
      for (std::string_view m : {".CUDAExtension", ".CppExtension", ".load", ".load_inline"})
        if (b.target == fmt::format("{}{}", kModule, m)) return true;
    }
    std::string_view text = ctx.tree().text();
    for (std::string_view m : {"CUDAExtension(", "CppExtension(", "cpp_extension.load"})
      if (text.find(m) != std::string_view::npos) return true;
    return false;
  }
};

const TorchCppExtension kCheck;

}  // namespace

extern const CheckDef TPU110_torch_cpp_extension{
    .info = {
        .id = "TPU110",
        .name = "torch-cpp-extension",
        .summary = "native PyTorch extension built with torch.utils.cpp_extension (CUDAExtension, CppExtension, "
                   "load, load_inline)",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Error,
        .effort = EffortClass::High,
        .hours = {8, 24},
        .doc = {
            .what = "Calls of `torch.utils.cpp_extension.CUDAExtension` and `CppExtension` (in `setup.py` or "
                    "anywhere, also through a variable: `extension = CUDAExtension; extension(...)`), of the JIT "
                    "builders `load(...)` and `load_inline(...)`, under any alias (`from torch.utils import "
                    "cpp_extension as ce; ce.load(...)`), and `cmdclass={\"build_ext\": BuildExtension}` in a "
                    "file that builds no extension itself. A build with CUDA sources is told apart from a "
                    "C++-only one, also for a `CppExtension` given `.cu` files (which `BuildExtension` "
                    "compiles with nvcc).",
            .why = "An extension's ops are native code compiled for CUDA or the CPU. XLA cannot compile them: a "
                   "CUDA kernel cannot run on a TPU host at all, and a C++ op that reads tensor memory "
                   "(`data_ptr`, accessors) sees none on an XLA tensor, which has no host storage. Ops registered "
                   "with the dispatcher fall back to the CPU at best, with a device-to-host copy each way on "
                   "every call.",
            .example = "from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n"
                       "setup(ext_modules=[CUDAExtension(\"roi_ops\", [\"roi_align.cpp\", \"roi_align_kernel.cu\"])],\n"
                       "      cmdclass={\"build_ext\": BuildExtension})",
            .use_instead = "Reimplement each op the extension exports: as plain PyTorch ops that XLA compiles and "
                           "fuses (most elementwise, gather and reduction kernels), or as a Pallas kernel called "
                           "through `torch_xla.experimental.custom_kernel` for the few that need tiling. Keep the "
                           "extension optional so that the TPU build does not compile it.",
            .effort = "High for a CUDA extension (8-24 h for the Python bindings, dispatch and build; its kernels "
                      "are counted on their own by TPU101 when their sources are scanned). Medium for a C++-only "
                      "extension, or a JIT build whose sources are not visible (4-16 h): its ops are CPU code "
                      "that must become tensor ops. An extension whose kernels in the scanned sources all have a "
                      "known TPU path (trivial kernels, standard ops: StyleGAN's upfirdn2d and fused bias + leaky "
                      "ReLU) is a swap, not a rewrite: the build goes and the wrapper calls the replacement, so the "
                      "finding takes its costliest kernel's class, low 0.5-2 h or medium 2-6 h (docs/scoring.md).",
            .heuristic = "A `load(...)` builds CUDA code when `with_cuda=True`, when it has `extra_cuda_cflags`, or "
                         "when a string among its sources (or the literal list a variable holding them is assigned) "
                         "ends with `.cu`/`.cuh`; a `load_inline(...)` when it has `cuda_sources`. A variable called "
                         "as an extension class is followed through one plain assignment in the same function or "
                         "the module; when it is assigned both classes (`CppExtension`, then `CUDAExtension` if "
                         "CUDA is available), it is reported as a CUDA extension. Sources are evaluated as far as "
                         "literals go: string literals, `os.path.join`, `os.path.dirname`/`abspath` of `__file__`, "
                         "names assigned one of those once, `glob.glob` of them, lists joined with `+` or grown "
                         "with `+=` (detectron2's `glob.glob(path.join(extensions_dir, \"**\", \"*.cu\"))`); a "
                         "pattern's last directory `**` is read as any depth. What reads the environment or a "
                         "name assigned twice is not followed.",
            .references = {"https://docs.pytorch.org/docs/stable/cpp_extension.html",
                           "https://docs.pytorch.org/xla/master/features/pallas.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
