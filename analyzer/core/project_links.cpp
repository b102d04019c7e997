#include "core/project_links.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/discovery.h"
#include "core/identifier_words.h"
#include "core/role_vote.h"
#include "core/source_file.h"

namespace tpulint {

namespace {

void guard(Finding& f) {
  if (f.category == Category::AnalyzerNote) return;
  f.context = Context::Guarded;
  f.discounted = true;
  f.severity = Severity::Info;
}

bool is_native(std::string_view path) {
  const Language l = language_for_path(std::filesystem::path(path));
  return l == Language::Cxx || l == Language::Cuda;
}

}  // namespace

namespace {

bool is_package_init(std::string_view path) { return file_name_of(path) == "__init__.py"; }

// The dotted module a Python file is: "a/b/c.py" -> "a.b.c", "a/b/__init__.py" -> "a.b"; "" for
// other files.
std::string module_of(std::string_view path) {
  if (!path.ends_with(".py")) return "";
  path.remove_suffix(3);
  if (path == "__init__") return "";
  if (path.ends_with("/__init__")) path.remove_suffix(9);
  std::string out(path);
  std::replace(out.begin(), out.end(), '/', '.');
  return out;
}

// The directory of an alternative accelerator or kernel backend that `path` (a Python file) is
// under, at any depth, a directory named for it (a leading '_' aside: Liger-Kernel's `_ascend`); ""
// when there is none. `pkg/ops/backends/npu` of `pkg/ops/backends/npu/gate.py` and of
// `pkg/ops/backends/npu/ops/gate.py`.
std::string_view backend_dir_of(std::string_view path, std::span<const std::string> backend_dirs) {
  if (!path.ends_with(".py") || backend_dirs.empty()) return "";
  for (size_t begin = 0, slash; (slash = path.find('/', begin)) != std::string_view::npos; begin = slash + 1) {
    std::string_view part = path.substr(begin, slash - begin);
    while (part.starts_with('_')) part.remove_prefix(1);
    if (std::find(backend_dirs.begin(), backend_dirs.end(), ascii_lower(part)) != backend_dirs.end())
      return path.substr(0, slash);
  }
  return "";
}

// Whether the module `path`, under the backend directory `dir`, has a namesake in the directory
// holding `dir` or the one above (`pkg/ops/backends/npu/gate.py`, or `.../npu/ops/gate.py`, beside
// `pkg/ops/gate.py`): then `dir` is an alternative to the project's default implementation. A
// backend directory at the top of the tree has nothing beside it.
bool has_default_namesake(std::string_view path, std::string_view dir,
                          const std::unordered_map<std::string, size_t>& by_path) {
  if (dir.find('/') == std::string_view::npos || is_package_init(path)) return false;
  const std::string_view above = directory_of(dir), two_above = directory_of(above);
  for (std::string_view home : {above, two_above})
    if (!home.empty() && by_path.contains(std::string(home) + "/" + std::string(file_name_of(path)))) return true;
  return false;
}

// The words of a Python module's file name, split at '_' and lower-cased: "gpu_fast_attention.py"
// -> gpu, fast, attention.
std::vector<std::string> module_name_words(std::string_view path) {
  std::string_view stem = file_name_of(path);
  if (stem.ends_with(".py")) stem.remove_suffix(3);
  std::vector<std::string> words;
  for (size_t begin = 0;;) {
    const size_t end = stem.find('_', begin);
    words.push_back(ascii_lower(stem.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin)));
    if (end == std::string_view::npos) break;
    begin = end + 1;
  }
  return words;
}

bool names_gpu_backend(std::string_view path, const BackendNames& backends) {
  if (!path.ends_with(".py") || is_package_init(path)) return false;
  for (const std::string& w : module_name_words(path))
    if (std::find(backends.gpu_words.begin(), backends.gpu_words.end(), w) != backends.gpu_words.end()) return true;
  return false;
}

// Whether `path` (a Python file) is a GPU backend's module beside its TPU namesake: one word of its
// file name a GPU word, and a module of the same directory whose name has a TPU word in its place.
// `lower_paths`: the project's paths, lower-cased.
bool gpu_module_beside_tpu_one(std::string_view path, const BackendNames& backends,
                               const std::unordered_set<std::string>& lower_paths) {
  if (!path.ends_with(".py") || backends.gpu_words.empty() || backends.tpu_words.empty()) return false;
  const std::vector<std::string> words = module_name_words(path);
  const std::string dir = ascii_lower(directory_of(path));
  for (size_t k = 0; k < words.size(); ++k) {
    if (std::find(backends.gpu_words.begin(), backends.gpu_words.end(), words[k]) == backends.gpu_words.end()) continue;
    for (const std::string& tpu : backends.tpu_words) {
      std::string namesake = dir.empty() ? "" : dir + "/";
      for (size_t w = 0; w < words.size(); ++w) namesake += (w ? "_" : "") + (w == k ? tpu : words[w]);
      if (lower_paths.contains(namesake + ".py")) return true;
    }
  }
  return false;
}

struct Edge {
  size_t from;      // the using file
  size_t use;       // its index in the using file's links
  size_t to;        // the used file
  int32_t function; // for a name: the used function's index in the used file's links; else -1
};

class Linker {
 public:
  Linker(AnalyzedFiles& files, const PathWeights& weights, const BackendNames& backends)
      : files_(files.results) {
    const size_t n = files_.size();
    counts_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const FileResult& f = files_[i];
      counts_[i] = f.analyzed && decides_verdict(f.path, weights);
      by_path_.emplace(f.path, i);
      // A module is found by any dotted suffix of its name: "src.pkg.m" also as "pkg.m" and "m".
      const std::string module = module_of(f.path);
      for (size_t dot = 0; !module.empty() && dot != std::string::npos;) {
        by_module_suffix_[module.substr(dot)].push_back(i);
        dot = module.find('.', dot);
        if (dot != std::string::npos) ++dot;
      }
    }
    // An extension module's sources, from the findings that list them (the extension's build).
    for (const Finding& x : files.findings)
      if (!x.related_paths.empty() && !x.subject.empty()) {
        std::vector<size_t>& sources = extensions_[std::string(x.subject.view())];
        for (const std::string& p : x.related_paths)
          if (auto it = by_path_.find(p); it != by_path_.end()) sources.push_back(it->second);
      }
    for (size_t i = 0; i < n; ++i)
      for (size_t u = 0; u < files_[i].links.uses.size(); ++u) resolve(i, u);
    // Modules of an alternative backend beside the default implementation: what a dispatch picks
    // by device, never what a TPU runs.
    alternative_.assign(n, false);
    std::unordered_set<std::string> lower_paths;
    for (const FileResult& f : files_) lower_paths.insert(ascii_lower(f.path));
    // A backend directory is an alternative when one module under it has a default namesake; then
    // every module under it is.
    std::vector<std::string_view> backend_dir(n);
    std::unordered_set<std::string_view> alternative_dirs;
    for (size_t i = 0; i < n; ++i) {
      backend_dir[i] = backend_dir_of(files_[i].path, backends.dirs);
      if (!backend_dir[i].empty() && has_default_namesake(files_[i].path, backend_dir[i], by_path_))
        alternative_dirs.insert(backend_dir[i]);
    }
    for (size_t i = 0; i < n; ++i)
      alternative_[i] = (!backend_dir[i].empty() && alternative_dirs.contains(backend_dir[i])) ||
                        gpu_module_beside_tpu_one(files_[i].path, backends, lower_paths) ||
                        unused_gpu_module(i, backends);
  }

  // A GPU backend's module by its name (`gpu_fast_attention.py`) that no core module imports and
  // that is no script: a library's GPU variant, which its users pick on a GPU and a TPU never runs
  // (Praxis's `layers/gpu_fast_attention.py` beside its default attention).
  bool unused_gpu_module(size_t i, const BackendNames& backends) const {
    if (files_[i].links.script || !names_gpu_backend(files_[i].path, backends)) return false;
    auto it = file_edges_.find(i);
    return it == file_edges_.end() ||
           std::none_of(it->second.begin(), it->second.end(), [&](const Edge& e) { return counts_[e.from] && !from_test(e); });
  }

  void settle() {
    optional_ = alternative_;
    guarded_.resize(files_.size());
    for (size_t i = 0; i < files_.size(); ++i) guarded_[i].assign(files_[i].links.functions.size(), false);
    // Least fixed point: a file or function becomes optional or guarded only once no live use
    // is left, and each such change can only take live uses away.
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t b = 0; b < files_.size(); ++b) {
        if (optional_[b]) continue;
        if (only_guarded_file(b)) {
          optional_[b] = true;
          changed = true;
        }
        const std::vector<FileLinks::Function>& functions = files_[b].links.functions;
        for (size_t k = 0; k < functions.size(); ++k) {
          if (guarded_[b][k] || functions[k].used_here) continue;
          if (only_guarded(name_edges_[{b, k}])) {
            guarded_[b][k] = true;
            changed = true;
          }
        }
      }
    }
  }

  // Roles from the other modules' uses: a top-level function its own file neither calls nor gives
  // a role takes the role its live uses from core code vote for (a helper only a Dataset calls is
  // host code), through chains of such helpers. Run after settle().
  void settle_roles() {
    role_.resize(files_.size());
    for (size_t i = 0; i < files_.size(); ++i) role_[i].assign(files_[i].links.functions.size(), Context::Unknown);
    for (int pass = 0; pass < 8; ++pass) {
      bool changed = false;
      for (const auto& [key, edges] : name_edges_) {
        const FileLinks::Function& function = files_[key.file].links.functions[key.function];
        if (function.role != Context::Unknown || function.used_here || guarded_[key.file][key.function] ||
            optional_[key.file])
          continue;
        RoleVote vote;
        bool only_tests = !edges.empty();  // every use is from test code
        for (const Edge& e : edges) {
          if (from_test(e)) continue;
          only_tests = false;
          if (counts_[e.from] && live(e)) vote.take(use_role(e));
        }
        Context role = vote.role();
        if (role == Context::Unknown && only_tests) role = Context::Test;
        if (role != role_[key.file][key.function]) {
          role_[key.file][key.function] = role;
          changed = true;
        }
      }
      if (!changed) break;
    }
  }

  // Functions that other modules' live core code calls on the hot path or in a training loop: the
  // code in them runs on the device there, though their own file makes host or one-time code of it
  // (a dataset module's `mel_spectrogram`, which the training loop also calls on the model's
  // output). Run after settle_roles().
  void settle_device_uses() {
    device_use_.resize(files_.size());
    for (size_t i = 0; i < files_.size(); ++i) device_use_[i].assign(files_[i].links.functions.size(), false);
    for (const auto& [key, edges] : name_edges_) {
      if (guarded_[key.file][key.function] || optional_[key.file]) continue;
      device_use_[key.file][key.function] = std::any_of(edges.begin(), edges.end(), [&](const Edge& e) {
        return !from_test(e) && counts_[e.from] && live(e) && use_role(e) == Context::HotPath;
      });
    }
  }

  // Whether other modules call the function of file `i` at `line` from device code (settle_device_uses).
  bool used_on_device(size_t i, uint32_t line) const {
    const std::optional<size_t> k = function_at(i, line);
    return k && device_use_[i][*k];
  }

  // The role other modules give the code of file `i` at `line`: Unknown when they give none.
  Context role_at(size_t i, uint32_t line) const {
    const std::optional<size_t> k = function_at(i, line);
    return k ? role_[i][*k] : Context::Unknown;
  }

  // Whether `target`, a name file `from` launches, is a kernel of another module of the project:
  // defined there, or imported there from where it is (a package's __init__ re-exporting it).
  bool launches_kernel(size_t from, std::string_view target, int depth = 0) const {
    auto [modules, parts] = resolve_module(from, target);
    if (modules.empty() || parts + 1 != size_t(std::count(target.begin(), target.end(), '.')) + 1) return false;
    const std::string_view name = target.substr(target.rfind('.') + 1);
    for (size_t m : modules) {
      const std::vector<FileLinks::Function>& functions = files_[m].links.functions;
      auto defined = std::find_if(functions.begin(), functions.end(), [&](const auto& f) { return f.name == name; });
      if (defined != functions.end()) {
        if (defined->kernel) return true;
        continue;
      }
      if (depth == kMaxReexports) continue;
      for (const FileLinks::Use& u : files_[m].links.uses)
        if (u.kind == FileLinks::Kind::Module && u.target.ends_with(name) && u.target.size() > name.size() &&
            u.target[u.target.size() - name.size() - 1] == '.' && launches_kernel(m, u.target, depth + 1))
          return true;
    }
    return false;
  }

  // Whether a finding of file `i` stands on guarded code.
  bool guarded(size_t i, const Finding& f) const {
    if (optional_[i]) return true;
    const std::vector<FileLinks::Function>& functions = files_[i].links.functions;
    for (size_t k = 0; k < functions.size(); ++k)
      if (guarded_[i][k] && functions[k].first_line <= f.start.line && f.start.line <= functions[k].last_line) return true;
    if (f.related_paths.empty()) return false;
    return std::all_of(f.related_paths.begin(), f.related_paths.end(), [&](const std::string& p) {
      auto it = by_path_.find(p);
      return it != by_path_.end() && optional_[it->second];
    });
  }

  bool has_file(const std::string& path) const { return by_path_.contains(path); }

  // Whether another module of the core code, not a test, imports file `i`.
  bool imported_by_core(size_t i) const {
    auto it = file_edges_.find(i);
    return it != file_edges_.end() && std::any_of(it->second.begin(), it->second.end(), [&](const Edge& e) {
             return counts_[e.from] && !from_test(e) && files_[e.from].links.uses[e.use].kind != FileLinks::Kind::File;
           });
  }

  // The modules of a model zoo: core modules that define a model (FileLinks::defines_model) and that no
  // other core module uses, kZooSize or more in one directory. A module of custom ops (`op_module`: one
  // with a custom-kernel finding, a kernel, a launch or an extension's import: mmcv's `ops/roi_align.py`
  // wrapping its kernel in a `RoIAlign(nn.Module)`) is no model variant: an op library's exports are
  // what it is, all of them ported. A package's __init__.py re-exporting one
  // is no use of it (timm's and vit-pytorch's packages export every model), but a use of the name it
  // re-exports, from another module, is (`from vit_pytorch import ViT` in a training script).
  static constexpr size_t kZooSize = 3;
  std::vector<bool> model_variants(const std::vector<bool>& op_module) const {
    const size_t n = files_.size();
    std::vector<bool> variant(n, false);
    bool any = false;
    for (size_t i = 0; i < n; ++i) {
      const FileResult& f = files_[i];
      variant[i] = counts_[i] && f.links.defines_model && f.path.ends_with(".py") && !is_package_init(f.path) &&
                   !op_module[i];
      any = any || variant[i];
    }
    if (!any) return variant;
    auto by_core = [&](const Edge& e) { return counts_[e.from] && !from_test(e) && !is_package_init(files_[e.from].path); };
    auto last_part = [](std::string_view dotted) { return dotted.substr(dotted.rfind('.') + 1); };
    for (const auto& [to, edges] : file_edges_) {
      if (is_package_init(files_[to].path)) {
        // Through a re-export: the names other modules take from the package, each looked up once
        // among the names the package imports.
        std::unordered_map<std::string_view, std::vector<size_t>> imported;  // last name -> uses
        const std::vector<FileLinks::Use>& uses = files_[to].links.uses;
        for (size_t k = 0; k < uses.size(); ++k)
          if (uses[k].kind == FileLinks::Kind::Module) imported[last_part(uses[k].target)].push_back(k);
        std::unordered_set<std::string_view> taken;
        for (const Edge& e : edges) {
          if (!by_core(e)) continue;
          const std::string_view name = last_part(files_[e.from].links.uses[e.use].target);
          auto it = imported.find(name);
          if (it == imported.end() || !taken.insert(name).second) continue;
          for (size_t k : it->second)
            for (size_t m : resolve_module(to, uses[k].target).first) variant[m] = false;
        }
        continue;
      }
      if (variant[to] && std::any_of(edges.begin(), edges.end(), by_core)) variant[to] = false;
    }
    for (const auto& [key, edges] : name_edges_)
      if (variant[key.file] && std::any_of(edges.begin(), edges.end(), by_core)) variant[key.file] = false;
    std::unordered_map<std::string_view, size_t> per_directory;
    for (size_t i = 0; i < n; ++i)
      if (variant[i]) ++per_directory[directory_of(files_[i].path)];
    for (size_t i = 0; i < n; ++i)
      if (variant[i] && per_directory[directory_of(files_[i].path)] < kZooSize) variant[i] = false;
    return variant;
  }

 private:
  // The index of file `i`'s top-level function holding `line`, if one does.
  std::optional<size_t> function_at(size_t i, uint32_t line) const {
    const std::vector<FileLinks::Function>& functions = files_[i].links.functions;
    for (size_t k = 0; k < functions.size(); ++k)
      if (functions[k].first_line <= line && line <= functions[k].last_line) return k;
    return std::nullopt;
  }

  // How many packages a launched name is followed through (`from .ops import kern` in an __init__).
  static constexpr int kMaxReexports = 4;

  struct FunctionKey {
    size_t file;
    size_t function;
    bool operator==(const FunctionKey&) const = default;
  };
  struct FunctionKeyHash {
    size_t operator()(const FunctionKey& k) const { return k.file * 1000003u ^ k.function; }
  };

  // The files a dotted name's longest resolvable prefix is (of several, those nearest the user),
  // and how many of its parts that prefix took.
  std::pair<std::vector<size_t>, size_t> resolve_module(size_t from, std::string_view name) const {
    std::string_view prefix = name;
    for (size_t parts = size_t(std::count(name.begin(), name.end(), '.')) + 1; parts > 0; --parts) {
      auto it = by_module_suffix_.find(std::string(prefix));
      if (it == by_module_suffix_.end()) {
        prefix = prefix.substr(0, prefix.rfind('.'));
        continue;
      }
      // Several files are that module ("utils"): those that share the most directories with the user.
      std::vector<size_t> best;
      size_t best_shared = 0;
      for (size_t c : it->second) {
        if (c == from) continue;
        size_t shared = common_prefix(directory_of(files_[c].path), directory_of(files_[from].path));
        if (best.empty() || shared > best_shared) {
          best = {c};
          best_shared = shared;
        } else if (shared == best_shared) {
          best.push_back(c);
        }
      }
      return {best, parts};
    }
    return {{}, 0};
  }

  void resolve(size_t from, size_t u) {
    const FileLinks::Use& use = files_[from].links.uses[u];
    auto add_file = [&](size_t to) {
      if (to != from) file_edges_[to].push_back({from, u, to, -1});
    };
    switch (use.kind) {
      case FileLinks::Kind::File: {
        if (auto it = by_path_.find(use.target); it != by_path_.end()) {
          add_file(it->second);
          return;
        }
        // A loader that joins a directory of its own to the name ("csrc/k.cu" named as "k.cu"):
        // the one file of that name under the literal's directory.
        const std::string_view target = use.target, dir = directory_of(target);
        const std::string name = "/" + std::string(target.substr(dir.empty() ? 0 : dir.size() + 1));
        std::vector<size_t> found;
        for (const auto& [path, i] : by_path_)
          if (path.starts_with(dir) && path.ends_with(name) && path.size() > target.size()) found.push_back(i);
        if (found.size() == 1) add_file(found.front());
        return;
      }
      case FileLinks::Kind::Module:
      case FileLinks::Kind::Name: {
        auto [modules, parts] = resolve_module(from, use.target);
        if (modules.empty()) {
          // An extension module, by its full name or its last part ("pkg._C" or "_C").
          const std::string_view last = std::string_view(use.target).substr(use.target.rfind('.') + 1);
          for (std::string_view name : {std::string_view(use.target), last})
            if (auto it = extensions_.find(std::string(name)); it != extensions_.end()) {
              for (size_t s : it->second) add_file(s);
              return;
            }
          return;
        }
        const size_t total = size_t(std::count(use.target.begin(), use.target.end(), '.')) + 1;
        for (size_t m : modules) add_packages_between(from, u, m);
        for (size_t m : modules) {
          if (use.kind == FileLinks::Kind::Module || parts == total) {
            add_file(m);
            continue;
          }
          // The name's next part after the module is the function referred to.
          size_t begin = 0;
          for (size_t p = 0; p < parts; ++p) begin = use.target.find('.', begin) + 1;
          const std::string_view function = std::string_view(use.target).substr(begin, use.target.find('.', begin) - begin);
          const std::vector<FileLinks::Function>& functions = files_[m].links.functions;
          for (size_t k = 0; k < functions.size(); ++k)
            if (functions[k].name == function && m != from) name_edges_[{m, k}].push_back({from, u, m, int32_t(k)});
        }
        return;
      }
    }
  }

  // Importing a module runs the `__init__.py` of each package it is in: those below the user's own
  // directory (`from .sync_bn.inplace_abn.bn import X` in lib/models/bn_helper.py runs
  // lib/models/sync_bn/__init__.py and lib/models/sync_bn/inplace_abn/__init__.py) are used where the
  // import is, guarded or not. Not the packages holding the user: those ran before it, whoever
  // imported them (a library's own root package is its users' entry point, not this import's).
  void add_packages_between(size_t from, size_t u, size_t module) {
    const std::string_view user_dir = directory_of(files_[from].path);
    std::string_view dir = directory_of(files_[module].path);
    while (!dir.empty() && dir.size() > user_dir.size() &&
           (user_dir.empty() || (dir.starts_with(user_dir) && dir[user_dir.size()] == '/'))) {
      if (auto it = by_path_.find(std::string(dir) + "/__init__.py"); it != by_path_.end() && it->second != from &&
                                                                      it->second != module)
        package_edges_[it->second].push_back({from, u, it->second, -1});
      dir = directory_of(dir);
    }
  }

  // A use's role: its own, or, in a function of no role of its own file, the one other modules give it.
  // A use in a training loop is a call the step makes (`loss = compute_loss(out, y)`): the hot path.
  Context use_role(const Edge& e) const {
    const FileLinks::Use& use = files_[e.from].links.uses[e.use];
    if (use.context == Context::Unknown && use.function >= 0) return role_[e.from][size_t(use.function)];
    return use.context == Context::Loop ? Context::HotPath : use.context;
  }

  // A use from test code (a test module, a test function): it counts neither way, but a function
  // only tests use is test code.
  bool from_test(const Edge& e) const { return files_[e.from].links.uses[e.use].context == Context::Test; }

  bool live(const Edge& e) const {
    const FileLinks::Use& use = files_[e.from].links.uses[e.use];
    return !use.guarded() && !optional_[e.from] && !(use.function >= 0 && guarded_[e.from][size_t(use.function)]);
  }

  // Whether some core code uses file `b` and all of that use is guarded: its imports and loads, and
  // the imports that run it as a package on the way (package_edges_).
  bool only_guarded_file(size_t b) const {
    bool any = false;
    for (const auto* edges : {&file_edges_, &package_edges_})
      if (auto it = edges->find(b); it != edges->end() && !guarded_uses(it->second, any)) return false;
    return any;
  }

  // Whether some core code uses it, and all of that use is guarded.
  bool only_guarded(const std::vector<Edge>& edges) const {
    bool any = false;
    return guarded_uses(edges, any) && any;
  }

  // Whether no use of `edges` from core code, tests apart, is live; `any` is set when one is guarded.
  bool guarded_uses(const std::vector<Edge>& edges, bool& any) const {
    for (const Edge& e : edges) {
      if (!counts_[e.from] || from_test(e)) continue;
      if (live(e)) return false;
      any = true;
    }
    return true;
  }

  std::vector<FileResult>& files_;
  std::vector<bool> counts_;
  std::unordered_map<std::string, size_t> by_path_;
  std::unordered_map<std::string, std::vector<size_t>> by_module_suffix_;
  std::unordered_map<std::string, std::vector<size_t>> extensions_;
  std::unordered_map<size_t, std::vector<Edge>> file_edges_;
  std::unordered_map<size_t, std::vector<Edge>> package_edges_;  // add_packages_between
  std::unordered_map<FunctionKey, std::vector<Edge>, FunctionKeyHash> name_edges_;
  std::vector<bool> alternative_;  // modules of an alternative backend (has_default_namesake)
  std::vector<bool> optional_;
  std::vector<std::vector<bool>> guarded_;
  std::vector<std::vector<Context>> role_;
  std::vector<std::vector<bool>> device_use_;  // settle_device_uses()
};

}  // namespace

namespace {

// The launches of file `i` whose names are kernels of other modules: their findings join the
// file's (kept in finding order), placed and discounted below like the others.
void confirm_launches(AnalyzedFiles& files, const Linker& linker) {
  std::vector<std::vector<Finding>> confirmed(files.results.size());
  bool any = false;
  for (size_t i = 0; i < files.results.size(); ++i) {
    for (FileLinks::Launch& l : files.results[i].links.launches) {
      if (!linker.launches_kernel(i, l.target)) continue;
      l.finding.awaits_link = false;
      confirmed[i].push_back(std::move(l.finding));
      any = true;
    }
    files.results[i].links.launches.clear();
  }
  if (!any) return;
  std::vector<Finding> all;
  all.reserve(files.findings.size());
  for (size_t i = 0; i < files.results.size(); ++i) {
    const AnalyzedFiles::Range old = files.ranges[i];
    const size_t begin = all.size();
    std::move(files.findings.begin() + ptrdiff_t(old.begin), files.findings.begin() + ptrdiff_t(old.begin + old.size),
              std::back_inserter(all));
    std::move(confirmed[i].begin(), confirmed[i].end(), std::back_inserter(all));
    std::sort(all.begin() + ptrdiff_t(begin), all.end(), finding_less);
    files.ranges[i] = {begin, all.size() - begin};
  }
  files.findings = std::move(all);
}

// Removes the findings whose check ID was cleared, keeping each file's range.
void drop_cleared(AnalyzedFiles& files) {
  std::vector<Finding> kept;
  kept.reserve(files.findings.size());
  for (AnalyzedFiles::Range& range : files.ranges) {
    const size_t begin = kept.size();
    for (size_t k = range.begin; k < range.begin + range.size; ++k)
      if (!files.findings[k].check_id.empty()) kept.push_back(std::move(files.findings[k]));
    range = {begin, kept.size() - begin};
  }
  files.findings = std::move(kept);
}

// A finding in code only a model's off-by-default option runs (Finding::optional_option) is
// discounted when no file of the project passes that option a value that may turn it on: the
// default path, the one a port runs, has none of it. It keeps its context.
void discount_optional_code(AnalyzedFiles& files) {
  std::unordered_set<std::string_view> turned_on;
  for (const FileResult& r : files.results) turned_on.insert(r.links.options_turned_on.begin(), r.links.options_turned_on.end());
  for (Finding& f : files.findings) {
    if (f.optional_option.empty() || f.discounted || f.context == Context::Test || turned_on.contains(f.optional_option))
      continue;
    f.discounted = true;
    f.severity = Severity::Info;
    f.message = fmt::format("{} (only with the off-by-default option '{}')", f.message.view(), f.optional_option.view());
  }
}

// A library module's `if __name__ == "__main__":` block is the module's smoke test (`v = ViT(...).cuda();
// v(torch.randn(...))`, `A = torch.ones(...).cuda(); print(op(A).shape)`): test code, which weighs as
// tests do (finding_weight). A module is a library module when another module of the core code imports
// it (`linker`: votenet's `backbone_module.py`, which `votenet.py` imports), or when it defines a model
// class in a package (its directory holds an __init__.py: vit-pytorch's model files, which no module of
// the project imports). A script's main block is its entry point and keeps its role.
void place_self_tests(AnalyzedFiles& files, const Registry& registry, const Linker& linker) {
  for (size_t i = 0; i < files.results.size(); ++i) {
    const FileResult& r = files.results[i];
    if (r.links.main_first_line == 0) continue;
    const std::string_view dir = directory_of(r.path);
    const bool model_in_package =
        r.links.defines_model && !dir.empty() && linker.has_file(fmt::format("{}/__init__.py", dir));
    if (!model_in_package && !linker.imported_by_core(i)) continue;
    for (size_t k = files.ranges[i].begin; k < files.ranges[i].begin + files.ranges[i].size; ++k) {
      Finding& f = files.findings[k];
      if (f.category == Category::AnalyzerNote || f.context == Context::Guarded || f.context == Context::Test ||
          f.start.line < r.links.main_first_line || f.start.line > r.links.main_last_line)
        continue;
      f.context = Context::Test;
      if (!f.discounted) continue;
      if (const CheckInfo* check = registry.find(f.check_id)) {
        f.discounted = false;
        f.severity = check->severity;
      }
    }
  }
}

void link_modules(AnalyzedFiles& files, const PathWeights& weights, const Registry& registry,
                  const BackendNames& backends) {
  const bool any_links = std::any_of(files.results.begin(), files.results.end(), [](const FileResult& r) {
    return !r.links.uses.empty() || !r.links.launches.empty() || r.links.defines_model || r.links.main_first_line;
  });
  if (!any_links) return;
  Linker linker(files, weights, backends);
  place_self_tests(files, registry, linker);
  linker.settle();
  linker.settle_roles();
  linker.settle_device_uses();
  confirm_launches(files, linker);
  std::vector<bool> op_module(files.results.size(), false);
  for (size_t i = 0; i < files.results.size(); ++i)
    for (size_t k = files.ranges[i].begin; k < files.ranges[i].begin + files.ranges[i].size; ++k)
      if (files.findings[k].category == Category::CustomKernel) op_module[i] = true;
  const std::vector<bool> variants = linker.model_variants(op_module);
  for (size_t i = 0; i < files.results.size(); ++i)
    if (variants[i])
      for (size_t k = files.ranges[i].begin; k < files.ranges[i].begin + files.ranges[i].size; ++k)
        files.findings[k].model_variant = true;
  bool dropped = false;  // a finding of a check not reported on the hot path, placed there
  for (size_t i = 0; i < files.results.size(); ++i) {
    const AnalyzedFiles::Range range = files.ranges[i];
    for (size_t k = range.begin; k < range.begin + range.size; ++k) {
      Finding& f = files.findings[k];
      if (f.category == Category::AnalyzerNote) continue;
      // Discounted as host or one-time code by its file, but called from device code by another
      // module: it runs on the device, every step of that loop. (Evaluation code a training loop
      // calls, `val.run(...)` after each epoch, is the loop's evaluation: it stays evaluation.)
      if (f.discounted && (f.context == Context::Host || f.context == Context::OneTime) &&
          linker.used_on_device(i, f.start.line)) {
        const CheckInfo* check = registry.find(f.check_id);
        if (check && check->device_code_only) {
          f.context = Context::HotPath;
          f.discounted = false;
          f.severity = check->severity;
        }
        continue;
      }
      if (f.discounted) continue;
      if (linker.guarded(i, f)) {
        f.context = Context::Guarded;
      } else if (f.context == Context::Unknown) {
        f.context = linker.role_at(i, f.start.line);
        const CheckInfo* check = registry.find(f.check_id);
        if (check && check->outside_hot_path_only && f.context == Context::HotPath) {
          f.check_id.clear();
          dropped = true;
          continue;
        }
        if (!check || !discounts_finding(f.context, *check)) continue;
      } else {
        continue;
      }
      f.discounted = true;
      f.severity = Severity::Info;
    }
  }
  if (dropped) drop_cleared(files);
}

}  // namespace

namespace {

// In a project whose core Python modules are mostly JAX or TensorFlow without PyTorch (at least two for
// each module of PyTorch without JAX), the PyTorch modules are a side implementation (a Hugging Face port, a reference
// model, a weight converter, an adapter to a PyTorch trainer) beside the one a TPU runs: guarded code,
// as an alternative backend's modules are.
void guard_side_framework_modules(AnalyzedFiles& files, const PathWeights& weights) {
  // A module of PyTorch may read its data with TensorFlow (T5's `hf_model.py` feeds tf.data to a
  // PyTorch model); one that imports JAX as well uses JAX, and torch only for a DataLoader.
  auto torch_side = [](const FileResult& r) {
    return (r.links.frameworks & FileLinks::kTorch) && !(r.links.frameworks & FileLinks::kJax);
  };
  size_t tpu_native = 0, torch_modules = 0;
  for (const FileResult& r : files.results) {
    if (r.language != Language::Python || !decides_verdict(r.path, weights)) continue;
    if (torch_side(r))
      ++torch_modules;
    else if ((r.links.frameworks & (FileLinks::kJax | FileLinks::kTf)) && !(r.links.frameworks & FileLinks::kTorch))
      ++tpu_native;
  }
  if (torch_modules == 0 || tpu_native < 2 * torch_modules) return;
  for (size_t i = 0; i < files.results.size(); ++i) {
    if (files.results[i].language != Language::Python || !torch_side(files.results[i])) continue;
    for (size_t k = files.ranges[i].begin; k < files.ranges[i].begin + files.ranges[i].size; ++k) {
      Finding& f = files.findings[k];
      if (f.context == Context::Test || f.discounted) continue;
      guard(f);
    }
  }
}

}  // namespace

void link_project(AnalyzedFiles& files, const PathWeights& weights, const Registry& registry,
                  const BackendNames& backends) {
  link_modules(files, weights, registry, backends);
  guard_side_framework_modules(files, weights);
  discount_optional_code(files);
}

void guard_headers_of_optional_sources(std::vector<Finding>& findings, std::span<const FileIncludes> files) {
  // Each file's findings, a range of the list (ordered by path); the files whose findings are all guarded.
  std::map<std::string_view, std::pair<size_t, size_t>> own;
  std::set<std::string_view> optional;
  for (size_t k = 0; k < findings.size();) {
    const std::string_view path = findings[k].path.view();
    size_t end = k;
    bool all_guarded = true, any = false;
    for (; end < findings.size() && findings[end].path.view() == path; ++end) {
      const Finding& f = findings[end];
      if (f.category == Category::AnalyzerNote) continue;
      any = true;
      all_guarded = all_guarded && f.discounted && f.context == Context::Guarded;
    }
    own[path] = {k, end};
    if (any && all_guarded && is_native(path)) optional.insert(path);
    k = end;
  }
  if (optional.empty()) return;
  std::map<std::string_view, std::vector<std::string_view>> includers;
  for (const FileIncludes& f : files)
    if (is_native(f.path))
      for (const std::string& included : f.includes) includers[included].push_back(f.path);
  // Headers reached through headers (with findings or not): until no more file is made optional.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [header, by] : includers) {
      if (optional.contains(header) ||
          !std::all_of(by.begin(), by.end(), [&](std::string_view p) { return optional.contains(p); }))
        continue;
      optional.insert(header);
      changed = true;
      auto it = own.find(header);
      if (it == own.end()) continue;
      for (size_t k = it->second.first; k < it->second.second; ++k) guard(findings[k]);
    }
  }
  // An extension's build whose sources and headers with findings are all optional (link_modules
  // decides it from the sources a shard analyzed; here every file's are at hand).
  for (Finding& f : findings) {
    if (f.related_paths.empty() || f.context == Context::Guarded) continue;
    bool any = false, all = true;
    for (const std::string& p : f.related_paths)
      if (own.contains(p)) {
        any = true;
        all = all && optional.contains(p);
      }
    if (any && all) guard(f);
  }
}

}  // namespace tpulint
