// Engine: wires the frontends and the enabled checks into core's scan pipeline. The one place
// that knows every layer; the CLI and the tests drive tpulint through it.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/discovery.h"
#include "core/project_index.h"
#include "core/scan.h"
#include "core/score.h"
#include "cxx/compile_database.h"

namespace tpulint::app {

struct EngineOptions {
  std::vector<std::string> select;  // ID prefixes; empty = all
  std::vector<std::string> ignore;
  std::optional<Framework> target;  // --target: leave out the checks about other frameworks
  // Checks not run on some paths: gitignore-style glob (relative to the scan root) -> ID prefixes.
  std::vector<std::pair<std::string, std::vector<std::string>>> per_path_ignores;
  // The directory of the compile_commands.json to use: given with -p (the user's), or named by
  // the tree's configuration (a path beneath the scan root, untrusted like the tree).
  std::optional<std::filesystem::path> compile_database_dir;
  cxx::DatabaseOrigin compile_database_origin = cxx::DatabaseOrigin::User;
  bool find_compile_database = true;  // else look for compile_commands.json at the root or under build/
  std::optional<std::filesystem::path> cache_dir;  // where results are cached; nullopt: no cache
  bool parse_only = false;  // parse every file with the frontends, run no check (the benchmark's floor)
  // CPU time Clang may spend on one C/C++/CUDA file before the file falls back to its tokens (a
  // TPU906 note); 0: no budget. Far above a real file's parse, which takes milliseconds.
  std::chrono::milliseconds cxx_time_budget{std::chrono::seconds(10)};
};

struct ScanRequest {
  std::vector<std::string> paths;
  DiscoveryOptions discovery;
  unsigned jobs = 0;  // 0: one per core
  uint64_t max_file_size = kDefaultMaxFileSize;
  PathWeights path_weights;
  // --shard K/N: only the files whose path hashes to K (1-based) of N; `tpulint merge` puts
  // the N reports back together.
  unsigned shard_index = 1, shard_count = 1;
  // Analyze in worker processes (a crash or hang costs one file, not the run), with a time
  // limit per file (0: none).
  bool isolate = true;
  std::chrono::milliseconds file_timeout{std::chrono::seconds(120)};
  // With `isolate`: a worker whose resident memory passes this is stopped (a TPU903 note for its
  // file), so that a hostile file (a macro bomb) costs that file only (0: no limit).
  uint64_t worker_memory_limit = uint64_t(2048) << 20;
};

// Which C/C++/CUDA files are analyzed together (AnalysisOptions::batch_key): the headers of one
// directory, which mostly include the same headers, read once for all of them instead of once each.
// Sources are analyzed alone: two may define the same names.
std::string native_batch_key(const DiscoveredFile& file);

// Whether `path` belongs to shard `index` (1-based) of `count`: a stable hash of the path, so
// a file's shard does not depend on the other files.
bool in_shard(std::string_view path, unsigned index, unsigned count);

// Called on every file before its analysis: the reliability tests' fault-injecting binary
// (tests/fault_injecting_main.cpp) installs one that crashes, aborts, hangs or throws on marked
// files. The tpulint binary never installs one: no environment or input can inject a fault.
using FaultHook = void (*)(const SourceFile& file);
void set_fault_hook(FaultHook hook);

class Engine {
 public:
  // Throws std::invalid_argument for a --select/--ignore entry that matches no check.
  explicit Engine(EngineOptions options);

  // Throws DiscoveryError for a path that cannot be scanned, std::runtime_error for a compile
  // database given with -p that cannot be read. The tree's own database, when it cannot be
  // used, is a note in the report and the scan goes on without it.
  ScanReport scan(const ScanRequest& request) const;

  // Analyzes one file as if it were found at `relative_path` under a scan root (fixtures).
  FileResult analyze_file(const std::filesystem::path& absolute_path, const std::string& relative_path) const;

  const std::vector<std::string_view>& selected_ids() const { return selected_; }

 private:
  // The compile database a scan of `root` uses, read once.
  struct ScanDatabase {
    std::shared_ptr<const cxx::CompileDatabase> database;  // null: none, or not usable
    std::string key;                                       // what cached results depend on
    std::optional<SkippedFile> unusable;                   // the tree's database, and why it is not used
  };
  ScanDatabase compile_database(const std::filesystem::path& root) const;
  AnalyzerFactory analyzer_factory(const std::filesystem::path& root,
                                   std::shared_ptr<const cxx::CompileDatabase> database,
                                   std::shared_ptr<const ProjectIndex> project = nullptr) const;
  SuppressionPolicy suppression_policy() const;
  // Everything besides a file's bytes that its cached result depends on.
  std::string cache_settings_key(const std::string& database_key, uint64_t max_file_size) const;

  EngineOptions options_;
  std::vector<std::string_view> selected_;
};

}  // namespace tpulint::app
