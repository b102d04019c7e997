#include "app/engine.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <pthread.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/memory_setup.h"
#include "checks/python/frameworks/code_roles.h"
#include "core/project_index.h"
#include "core/project_links.h"
#include "checks/registry.h"
#include "core/analyzer_notes.h"
#include "core/ignore_rules.h"
#include "core/source_tree.h"
#include "cmake/cmake_analyzer.h"
#include "cxx/native_analyzer.h"
#include "python/embedded_cuda.h"
#include "python/python_analyzer.h"

namespace tpulint::app {

namespace {

FaultHook g_fault_hook = nullptr;

// Runs `fn` on a thread with a large stack and waits for it. Clang recurses on deeply nested
// code (a macro that expands to 65,536 chained additions, say), and so do the Python checks'
// helpers that follow an expression's operands (`not not ... x`, `a & b & ...`): either would
// overflow the usual 8 MB. Every file is analyzed on such a stack; it is only reserved, pages
// are used as touched.
void run_with_large_stack(const std::function<void()>& fn) {
  constexpr size_t kStack = size_t(512) << 20;
  struct Call {
    const std::function<void()>* fn;
    std::exception_ptr error;
  } call{&fn, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, kStack);
  pthread_t thread;
  auto body = [](void* arg) -> void* {
    auto* c = static_cast<Call*>(arg);
    try {
      (*c->fn)();
    } catch (...) {
      c->error = std::current_exception();
    }
    return nullptr;
  };
  if (pthread_create(&thread, &attr, body, &call) != 0) {
    pthread_attr_destroy(&attr);
    fn();  // no thread to be had: run here
    return;
  }
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

// The enabled checks, shared read-only by every worker of every scan.
struct EnabledChecks {
  std::vector<python::PythonCheckEntry> python;
  std::vector<cxx::NativeCheckEntry> native;
  std::vector<cmake::CmakeCheckEntry> cmake;
  bool syntax_notes = false;  // TPU901 (syntax errors) is selected: Python and CMake files are parsed for it
  std::shared_ptr<const ProjectIndex> project;  // never null
  bool parse_only = false;
};

// Dispatches each file to its language's frontend. The frontends are created on first use,
// so a Python-only scan never starts Clang.

class LanguageDispatcher final : public FileAnalyzer {
 public:
  LanguageDispatcher(const EnabledChecks& enabled, cxx::ClangFrontendOptions clang_options)
      : enabled_(enabled), clang_options_(std::move(clang_options)) {}

  void analyze(const SourceFile& file, FileResult& result) override {
    if (g_fault_hook) g_fault_hook(file);
    run_with_large_stack([&] { analyze_here(file, result); });
  }

  // A batch is C/C++/CUDA headers (native_batch_key).
  void analyze_together(std::span<const SourceFile> files, std::span<FileResult> results) override {
    if (g_fault_hook)
      for (const SourceFile& f : files) g_fault_hook(f);
    if (enabled_.native.empty() && !enabled_.parse_only) return;
    run_with_large_stack([&] {
      if (enabled_.parse_only) {
        if (!clang_) clang_ = std::make_unique<cxx::ClangFrontend>(clang_options_);
        clang_->parse_together(files);
        return;
      }
      if (!native_) native_ = std::make_unique<cxx::NativeAnalyzer>(enabled_.native, clang_options_);
      native_->analyze_together(files, results);
    });
  }

 private:
  void analyze_here(const SourceFile& file, FileResult& result) {
    if (enabled_.parse_only) return parse_only(file);
    if (file.language() == Language::Python) {
      // No Python check and no note selected: nothing could be reported, so nothing is parsed.
      if (!enabled_.python.empty() || enabled_.syntax_notes) {
        if (!python_)
          python_ =
              std::make_unique<python::PythonAnalyzer>(enabled_.python, &checks::code_role_facts(), enabled_.project.get());
        python_->analyze(file, result);
      }
      // Kernel sources in the file's strings (CuPy, PyCUDA, load_inline) are CUDA code, read
      // where they are written.
      if (enabled_.native.empty()) return;
      if (std::string cuda = python::embedded_cuda_source(file.text()); !cuda.empty())
        analyze_native(SourceFile(file.path(), file.absolute_path(), Language::Cuda, std::move(cuda)), result, file);
    } else if (file.language() == Language::Cmake) {
      if (enabled_.cmake.empty() && !enabled_.syntax_notes) return;
      if (!cmake_) cmake_ = std::make_unique<cmake::CmakeAnalyzer>(enabled_.cmake, enabled_.syntax_notes);
      cmake_->analyze(file, result);
    } else {
      if (enabled_.native.empty()) return;
      analyze_native(file, result, file);
    }
  }

  // The benchmark's floor: the same frontends, no check (`scan --parse-only`).
  void parse_only(const SourceFile& file) {
    if (file.language() == Language::Python) {
      if (!python_) python_ = std::make_unique<python::PythonAnalyzer>(std::span<const python::PythonCheckEntry>{});
      python_->parse_only(file);
    } else if (file.language() == Language::Cmake) {
      cmake::lex(file.text());
    } else {
      if (!clang_) clang_ = std::make_unique<cxx::ClangFrontend>(clang_options_);
      clang_->parse(file);
    }
  }

  // `shown`: the file the findings are reported in (see NativeAnalyzer::analyze).
  void analyze_native(const SourceFile& file, FileResult& result, const SourceFile& shown) {
    if (!native_) native_ = std::make_unique<cxx::NativeAnalyzer>(enabled_.native, clang_options_);
    native_->analyze(file, shown, result);
  }

  const EnabledChecks& enabled_;
  cxx::ClangFrontendOptions clang_options_;
  std::unique_ptr<python::PythonAnalyzer> python_;
  std::unique_ptr<cxx::NativeAnalyzer> native_;
  std::unique_ptr<cmake::CmakeAnalyzer> cmake_;
  std::unique_ptr<cxx::ClangFrontend> clang_;
};

}  // namespace

void set_fault_hook(FaultHook hook) { g_fault_hook = hook; }

Engine::Engine(EngineOptions options)
    : options_(std::move(options)), selected_(checks::registry().select(options_.select, options_.ignore, options_.target)) {}

SuppressionPolicy Engine::suppression_policy() const {
  auto selected = selected_;
  std::sort(selected.begin(), selected.end());  // asked for every finding: a binary search
  auto per_path = options_.per_path_ignores;
  // A check runs on a file if it is selected and no per-path ignore covers it there.
  auto enabled = [selected, per_path](std::string_view id, std::string_view path) {
    if (!std::binary_search(selected.begin(), selected.end(), id)) return false;
    for (const auto& [glob, prefixes] : per_path)
      if (path_or_parent_matches(glob, path))
        for (const std::string& p : prefixes)
          if (id.starts_with(p)) return false;
    return true;
  };
  return {
      .enabled = enabled,
      .known = [](std::string_view prefix) {
        for (const CheckInfo* c : checks::registry().all())
          if (c->id.starts_with(prefix)) return true;
        return false;
      },
      .runs = [selected, enabled](std::string_view prefix, std::string_view path) {
        return std::any_of(selected.begin(), selected.end(),
                           [&](std::string_view id) { return id.starts_with(prefix) && enabled(id, path); });
      },
  };
}

namespace {

// A compile database is read whole; one larger than this is not used.
constexpr uint64_t kMaxCompileDatabaseSize = uint64_t(512) << 20;
constexpr std::string_view kDatabaseName = "compile_commands.json";

}  // namespace

Engine::ScanDatabase Engine::compile_database(const std::filesystem::path& root) const {
  namespace fs = std::filesystem;
  ScanDatabase out;
  auto parse = [&](const std::string& text, const fs::path& dir, cxx::DatabaseOrigin origin) {
    out.key = fmt::format("{}:{:016x}", dir.string(), content_hash(text));
    out.database = std::make_shared<const cxx::CompileDatabase>(cxx::CompileDatabase::parse(text, dir, origin));
  };
  if (options_.compile_database_dir && options_.compile_database_origin == cxx::DatabaseOrigin::User) {
    // The user's own: its errors are the user's to fix.
    const fs::path dir = *options_.compile_database_dir;
    std::error_code ec;
    const fs::path file = fs::canonical(dir / kDatabaseName, ec);  // the user's own path: symlinks followed
    FileRead read = ec ? FileRead{} : SourceTree(file.parent_path()).read(file.filename().string(), kMaxCompileDatabaseSize);
    if (read.status != FileRead::Status::Read)
      throw std::runtime_error(fmt::format("-p: cannot read '{}': {}", (dir / kDatabaseName).string(), read.reason()));
    try {
      parse(read.text, dir, cxx::DatabaseOrigin::User);
    } catch (const cxx::CompileDatabaseError& e) {
      throw std::runtime_error(fmt::format("-p: '{}' is not a compile database: {}", (dir / kDatabaseName).string(), e.what()));
    }
    return out;
  }
  // The tree's own: read beneath the root like any scanned file; a problem with it is a note.
  const SourceTree tree(root);
  std::vector<std::string> candidates;
  if (options_.compile_database_dir) {
    if (auto rel = tree.relative_path(*options_.compile_database_dir))
      candidates.push_back(rel->empty() ? std::string(kDatabaseName) : *rel + "/" + std::string(kDatabaseName));
  } else if (options_.find_compile_database) {
    candidates = {std::string(kDatabaseName), "build/" + std::string(kDatabaseName)};
  }
  for (const std::string& rel : candidates) {
    std::string where = rel;
    EntryKind kind = tree.kind(where);
    if (kind == EntryKind::Missing) continue;
    if (kind == EntryKind::Symlink) {
      // Followed only to a file inside the tree (`ln -s build/compile_commands.json .` is common).
      std::error_code ec;
      fs::path target = fs::canonical(root / rel, ec);
      auto inside = ec ? std::nullopt : path_beneath(target, fs::canonical(root, ec));
      if (!inside) {
        out.unusable = SkippedFile{rel, "compile database not used: a symlink that leaves the scanned root"};
        return out;
      }
      where = *inside;
    }
    FileRead read = tree.read(where, kMaxCompileDatabaseSize);
    if (read.status != FileRead::Status::Read) {
      out.unusable = SkippedFile{rel, "compile database not used: " + read.reason()};
      return out;
    }
    try {
      parse(read.text, (root / where).parent_path(), cxx::DatabaseOrigin::Tree);
    } catch (const cxx::CompileDatabaseError& e) {
      out = {};
      out.unusable = SkippedFile{rel, std::string("compile database not used: ") + e.what() +
                                          "; C/C++ files were analyzed without it"};
    }
    return out;
  }
  return out;
}

namespace {

std::vector<std::string> paths_of(const Discovery& discovery, bool with_cmake) {
  std::vector<std::string> paths;
  paths.reserve(discovery.files.size());
  for (const DiscoveredFile& f : discovery.files)
    if (with_cmake || f.language != Language::Cmake) paths.push_back(f.path);
  return paths;
}

}  // namespace

AnalyzerFactory Engine::analyzer_factory(const std::filesystem::path& root,
                                         std::shared_ptr<const cxx::CompileDatabase> database,
                                         std::shared_ptr<const ProjectIndex> project) const {
  auto enabled = std::make_shared<EnabledChecks>();
  enabled->project = project ? std::move(project) : std::make_shared<const ProjectIndex>();
  enabled->python = checks::python_checks(selected_);
  enabled->native = checks::native_checks(selected_);
  enabled->cmake = checks::cmake_checks(selected_);
  enabled->syntax_notes = std::find(selected_.begin(), selected_.end(), notes::kSyntaxError.id) != selected_.end();
  enabled->parse_only = options_.parse_only;
  cxx::ClangFrontendOptions clang;
  clang.compile_database = std::move(database);
  clang.tree_root = root;
  clang.time_budget = options_.cxx_time_budget;
  return [enabled, clang]() -> std::unique_ptr<FileAnalyzer> {
    return std::make_unique<LanguageDispatcher>(*enabled, clang);
  };
}

std::string Engine::cache_settings_key(const std::string& database_key, uint64_t max_file_size) const {
  std::string key = fmt::format("max-file-size={}\nselected=", max_file_size);
  for (std::string_view id : selected_) key += fmt::format("{},", id);
  for (const auto& [glob, ids] : options_.per_path_ignores) key += fmt::format("\nper-path:{}={}", glob, fmt::join(ids, ","));
  // The C/C++ frontend: it is built and installed apart from this binary.
  key += "\nclang-module=" + cxx::clang_module_identity();
  // The compile database in use, and its contents.
  if (!database_key.empty()) key += "\ncompile-db=" + database_key;
  return key;
}

std::string native_batch_key(const DiscoveredFile& file) {
  if (file.language != Language::Cxx && file.language != Language::Cuda) return {};
  if (!cxx::is_header_extension(file.absolute_path.extension().string())) return {};
  return std::filesystem::path(file.path).parent_path().string() + '/';
}

bool in_shard(std::string_view path, unsigned index, unsigned count) {
  return count <= 1 || content_hash(path) % count == index - 1;
}

namespace {

// What the project links read (core/project_links.h): Python files' uses, and the extensions the
// build files name. Every shard analyzes all of them, so that each links the whole project.
bool feeds_links(Language language) { return language == Language::Python || language == Language::Cmake; }

// The results of the files `keep` accepts, with their findings.
AnalyzedFiles only_files(AnalyzedFiles all, const std::function<bool(const FileResult&)>& keep) {
  AnalyzedFiles kept;
  for (size_t i = 0; i < all.results.size(); ++i) {
    if (!keep(all.results[i])) continue;
    const AnalyzedFiles::Range range = all.ranges[i];
    all.results[i].findings.assign(std::make_move_iterator(all.findings.begin() + ptrdiff_t(range.begin)),
                                   std::make_move_iterator(all.findings.begin() + ptrdiff_t(range.begin + range.size)));
    kept.add(std::move(all.results[i]));
  }
  return kept;
}

}  // namespace

ScanReport Engine::scan(const ScanRequest& request) const {
  Discovery discovery = discover(request.paths, request.discovery);
  // Of the whole project, before a shard is cut out of it: every shard sees the same index.
  auto project = std::make_shared<const ProjectIndex>(ProjectIndex::from_paths(paths_of(discovery, true)));
  const PathWeights weights = with_notebooks_weighed(request.path_weights, paths_of(discovery, false));
  auto other = [&](const auto& f) { return !in_shard(f.path, request.shard_index, request.shard_count); };
  if (request.shard_count > 1) {
    std::erase_if(discovery.files, [&](const DiscoveredFile& f) { return other(f) && !feeds_links(f.language); });
    std::erase_if(discovery.skipped, other);
  }
  ScanDatabase database = compile_database(discovery.root);
  if (database.unusable) {
    discovery.skipped.push_back(*database.unusable);
    std::sort(discovery.skipped.begin(), discovery.skipped.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  }
  AnalyzerFactory factory = analyzer_factory(discovery.root, database.database, project);
  std::optional<ResultCache> cache;
  if (options_.cache_dir)
    cache.emplace(*options_.cache_dir, discovery.root, cache_settings_key(database.key, request.max_file_size));
  AnalysisOptions analysis{request.jobs,         request.max_file_size,       suppression_policy(),
                           cache ? &*cache : nullptr, request.isolate,      request.file_timeout,
                           request.worker_memory_limit, project->key(),              {},
                           {},                          {},                          native_batch_key};
  analysis.is_build_script = [](std::string_view path) {
    return python::is_build_script(checks::code_role_facts(), path);
  };
  // Clang is loaded before the workers start, once, and only when a C/C++ file is to be parsed;
  // a missing frontend fails the scan here rather than quietly in every C/C++ file.
  analysis.prepare = [this](LanguageSet languages) {
    bool native = contains(languages, Language::Cxx) || contains(languages, Language::Cuda);
    if (native && (options_.parse_only || !checks::native_checks(selected_).empty())) cxx::load_clang_module();
  };
  // The workers parse in the heap's huge pages; the parent's growth once they are forked is
  // findings. On again first: an earlier scan in this process (--diff-score) turned them off.
  request_huge_pages_in_heap(true);
  analysis.workers_started = [] { request_huge_pages_in_heap(false); };
  AnalyzedFiles results = analyze_files_into_one_list(discovery.files, factory, analysis);
  const python::CodeRoleFacts& roles = checks::code_role_facts();
  link_project(results, weights, checks::registry(),
               BackendNames{roles.alternative_backend_dirs, roles.gpu_backend_words, roles.tpu_words});
  if (request.shard_count > 1) {
    results = only_files(std::move(results), [&](const FileResult& r) { return !other(r); });
    std::erase_if(discovery.files, other);
  }
  // Files discovery skipped get their notes in build_report: the same selection applies.
  SuppressionPolicy policy = suppression_policy();
  return build_report(discovery, std::move(results), [&](std::string_view id) { return policy.enabled(id, ""); },
                      weights);
}

FileResult Engine::analyze_file(const std::filesystem::path& absolute_path, const std::string& relative_path) const {
  DiscoveredFile file{absolute_path, relative_path, language_for_path(absolute_path)};
  // The file's project, under its scan root.
  const std::string root_text = scan_root_of(absolute_path, relative_path).string();
  auto project = std::make_shared<const ProjectIndex>(ProjectIndex::from_paths(paths_of(discover(std::span(&root_text, 1), {}), true)));
  auto results = analyze_files(std::span(&file, 1),
                               analyzer_factory(absolute_path.parent_path(), compile_database(absolute_path.parent_path()).database,
                                                project),
                               {1, kDefaultMaxFileSize, suppression_policy(), nullptr, false, {}, 0, project->key(), {}, {}, {}, {}});
  return std::move(results.front());
}

}  // namespace tpulint::app
