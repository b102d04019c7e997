// The scan pipeline's language-independent steps: load each discovered file once, hand it to
// a per-worker FileAnalyzer on a pool of threads, collect the results in a fixed order, score.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/discovery.h"
#include "core/finding.h"
#include "core/plan.h"
#include "core/result_cache.h"
#include "core/score.h"
#include "core/source_file.h"
#include "core/suppressions.h"

namespace tpulint {

// Analyzes one file at a time. Each worker thread owns one, so implementations may keep
// per-thread state (a parser, a compiler instance) without locking.
class FileAnalyzer {
 public:
  virtual ~FileAnalyzer() = default;
  // Adds findings (and, for C/C++, missing headers) to `result`. May throw: the scan turns an
  // exception into a TPU903 note for this file and goes on with the others.
  virtual void analyze(const SourceFile& file, FileResult& result) = 0;
  // Analyzes files of one batch (AnalysisOptions::batch_key) at once, each into its result, as
  // `analyze` would each: by default one after the other. May throw: the scan then analyzes each
  // alone.
  virtual void analyze_together(std::span<const SourceFile> files, std::span<FileResult> results) {
    for (size_t i = 0; i < files.size(); ++i) analyze(files[i], results[i]);
  }
};
using AnalyzerFactory = std::function<std::unique_ptr<FileAnalyzer>()>;

inline constexpr uint64_t kDefaultMaxFileSize = 10 * 1024 * 1024;

// Reads a file once, through its SourceTree (no symlink followed, regular files only), and
// decides whether it can be analyzed: a SourceFile, its text decoded to UTF-8 (decode_to_utf8),
// or the reason it is skipped (a symlink, not a regular file, unreadable, larger than
// `max_file_size`, binary, or text that cannot be decoded). `stamp`, when given, receives the
// stamp of the file as it was read.
std::variant<SourceFile, std::string> load_source(const DiscoveredFile& file, uint64_t max_file_size,
                                                 FileStamp* stamp = nullptr);

// Runs fn(worker, index) for every index in [0, count) on `jobs` threads; each worker index in
// [0, jobs) is used by one thread only. Returns when all are done.
void parallel_for(size_t count, unsigned jobs, const std::function<void(unsigned, size_t)>& fn);

unsigned default_jobs();  // the number of cores

// A file's line in a report: what it is, whether it was analyzed, and what its findings (those
// in ScanReport::findings with its path) add up to.
struct FileSummary {
  std::string path;
  Language language = Language::None;
  bool analyzed = false;
  std::string skip_reason;                   // set when !analyzed
  std::vector<std::string> missing_headers;  // C/C++/CUDA: #includes that were not found
  std::vector<std::string> project_includes;  // FileResult::project_includes
  uint32_t code_lines = 0;                   // FileResult::code_lines
  size_t findings = 0;
  HoursRange hours;                          // the sum of its findings' hours, in report order
  std::chrono::nanoseconds analysis_time{0};  // FileResult::analysis_time (for `scan --timings`)
  std::vector<TouchLine> touches;             // FileResult::touches of the checks kept
};

struct ScanReport {
  std::filesystem::path root;        // the scan root (absolute); reports print paths relative to it
  std::vector<FileSummary> files;    // every discovered file, analyzed or skipped, by path
  std::vector<SkippedFile> skipped;  // files not analyzed, with the reason, by path
  // Code files (Python, C/C++, CUDA, CMake) that were skipped or whose analysis stopped (a TPU903
  // note), with why, by path: what the report cannot speak for.
  std::vector<SkippedFile> unanalyzed;
  std::vector<Finding> findings;     // all findings, ordered by finding_less
  size_t analyzed = 0;
  size_t force_excluded = 0;         // paths named explicitly that the excludes left out (--force-exclude)
  ScoreSummary score;
  std::vector<WorkItem> plan;        // the migration plan, cheapest big wins first
  PathWeights path_weights;          // the weights the score was computed with

  // Findings left out of `findings` (but counted in the score and plan) by a filter such as
  // --baseline or --diff: why, and how many.
  struct Hidden {
    std::string why;
    size_t count = 0;
  };
  std::vector<Hidden> hidden;
};

struct AnalysisOptions {
  unsigned jobs = 0;  // 0: default_jobs()
  uint64_t max_file_size = kDefaultMaxFileSize;
  // Which checks are enabled and known, for suppression comments (null: every check).
  SuppressionPolicy suppressions;
  // Results of unchanged files are taken from it, and new results stored in it (null: no cache).
  ResultCache* cache = nullptr;
  // Analyze in forked worker processes, so that a crash or a hang costs one file (a TPU903
  // note) rather than the run. Needs a single-threaded caller.
  bool isolate = false;
  std::chrono::milliseconds file_timeout{0};  // with `isolate`: the time limit per file (0: none)
  uint64_t worker_memory_limit = 0;  // with `isolate`: a worker's resident memory limit, bytes (0: none)
  // What a Python file's cached result depends on besides its own bytes: the project index it was
  // analyzed with (ProjectIndex::key; 0: none).
  uint64_t python_key = 0;
  // Python build scripts (setup.py): their analysis also depends on which files exist (the
  // sources their globs name), so their cached results are keyed on every discovered path too.
  // By the file's path beneath the root; null: none.
  std::function<bool(std::string_view path)> is_build_script;
  // Called in this process with the languages of the files to analyze (those the cache did not
  // answer), before any worker starts, so that what it loads is loaded once and inherited by
  // forked workers. May throw: the scan fails. Not called when there is nothing to analyze.
  std::function<void(LanguageSet)> prepare;
  // With `isolate`: called in this process once the workers are forked (WorkerPoolOptions::started).
  std::function<void()> workers_started;
  // Files of one non-empty key are analyzed together (FileAnalyzer::analyze_together), up to 16 at
  // a time in path order, of the files the cache did not answer; a task of several files whose
  // worker dies or runs out of time is run again one file at a time. Null or empty: every file
  // alone. The key must depend on the file alone; a batch then differs from a cold run's only where
  // the cache answered some of its files but not others (C/C++ entries are valid or stale
  // together: their key holds every header's stamp) or a shard left some out, and an analyzer
  // gives each file of a batch the result it has alone (ClangFrontend::parse_together).
  std::function<std::string(const DiscoveredFile&)> batch_key;
};

// The results of a scan's files with all their findings in one list, not each file's in its
// result: a worker's results are decoded into the list as they come, and the report's list is
// that list put in order in place. (Moving every finding into a new list for the report was
// 17 MB of fresh memory at a million lines, a third of the scan's serial end.)
struct AnalyzedFiles {
  struct Range {
    size_t begin = 0;
    size_t size = 0;
  };
  std::vector<FileResult> results;  // in the order of the files; their own `findings` are empty
  std::vector<Range> ranges;        // per result: where its findings are in `findings`
  std::vector<Finding> findings;    // each file's together, the files in no particular order

  // Adds a result that holds its findings, moving them into the list.
  void add(FileResult result);
  // Moves `own` (a result's findings) to the end of the list; where they went.
  Range take(std::vector<Finding>& own);
  // The findings appended to the list since it held `before`.
  Range since(size_t before) const { return {before, findings.size() - before}; }
};

// Analyzes discovered files on `jobs` threads, applying each file's suppression comments;
// results are in the order of `files`, each file's findings sorted (finding_less).
AnalyzedFiles analyze_files_into_one_list(std::span<const DiscoveredFile> files,
                                          const AnalyzerFactory& make_analyzer, const AnalysisOptions& options);
// The same, each file's findings in its result.
std::vector<FileResult> analyze_files(std::span<const DiscoveredFile> files, const AnalyzerFactory& make_analyzer,
                                      const AnalysisOptions& options);
inline std::vector<FileResult> analyze_files(std::span<const DiscoveredFile> files,
                                             const AnalyzerFactory& make_analyzer, unsigned jobs,
                                             uint64_t max_file_size) {
  return analyze_files(files, make_analyzer, AnalysisOptions{jobs, max_file_size, {}, nullptr, false, {}, 0, 0, {}, {}, {}, {}});
}

// Puts the results together: adds the files discovery skipped, sorts everything, keeps only
// the findings whose ID `keep` accepts (the --select/--ignore result), and scores them. The
// report's list of findings is `analyzed.findings`, put in order in place; results holding
// their own findings are first moved into such a list.
ScanReport build_report(const Discovery& discovery, AnalyzedFiles analyzed,
                        const std::function<bool(std::string_view check_id)>& keep, const PathWeights& weights);
ScanReport build_report(const Discovery& discovery, std::vector<FileResult> results,
                        const std::function<bool(std::string_view check_id)>& keep, const PathWeights& weights);

// Fills report.unanalyzed from its files and findings (build_report does; merge after reading).
void list_unanalyzed(ScanReport& report);

// Recounts each file's findings and hours from `report.findings`, after findings were left out.
void summarize_files(ScanReport& report);

}  // namespace tpulint
