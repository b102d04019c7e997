#include "core/scan.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>

#include "core/analyzer_notes.h"
#include "core/result_codec.h"
#include "core/worker_pool.h"

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace tpulint {

unsigned default_jobs() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

void parallel_for(size_t count, unsigned jobs, const std::function<void(unsigned, size_t)>& fn) {
  if (jobs == 0) jobs = default_jobs();
  jobs = unsigned(std::min<size_t>(jobs, std::max<size_t>(count, 1)));
  std::atomic<size_t> next{0};
  auto work = [&](unsigned worker) {
    for (size_t i = next++; i < count; i = next++) fn(worker, i);
  };
  if (jobs <= 1) {
    work(0);
    return;
  }
  std::vector<std::jthread> threads;
  for (unsigned w = 1; w < jobs; ++w) threads.emplace_back(work, w);
  work(0);
}

std::variant<SourceFile, std::string> load_source(const DiscoveredFile& file, uint64_t max_file_size) {
  std::error_code ec;
  uint64_t size = fs::file_size(file.absolute_path, ec);
  if (ec) return "unreadable: " + ec.message();
  if (size > max_file_size)
    return "larger than --max-file-size (" + std::to_string(size) + " > " + std::to_string(max_file_size) +
           " bytes)";
  std::ifstream in(file.absolute_path, std::ios::binary);
  if (!in) return std::string("unreadable: cannot open the file");
  std::string text(size, '\0');
  in.read(text.data(), std::streamsize(size));
  text.resize(size_t(in.gcount()));
  if (in.bad()) return std::string("unreadable: read error");
  if (text.size() >= 2 && ((text[0] == '\xFF' && text[1] == '\xFE') || (text[0] == '\xFE' && text[1] == '\xFF')))
    return std::string("UTF-16 encoded (re-encode as UTF-8 to analyze it)");
  if (text.find('\0') != std::string::npos) return std::string("binary content (NUL bytes)");
  if (file.language == Language::Python && !is_valid_utf8(text)) return std::string("not valid UTF-8");
  return SourceFile(file.path, file.absolute_path, file.language, std::move(text));
}

// A C/C++/CUDA file's analysis can depend on any header of the project, so its cache entries
// carry a key of every header's path, size and time stamp: any header edit invalidates them.
static uint64_t project_headers_key(std::span<const DiscoveredFile> files) {
  std::string key;
  for (const DiscoveredFile& f : files) {
    std::string ext = f.absolute_path.extension().string();
    if (ext != ".h" && ext != ".hh" && ext != ".hpp" && ext != ".cuh" && ext != ".inl") continue;
    auto st = stamp_of(f.absolute_path);
    key += fmt::format("{}\x1f{}\x1f{}\n", f.path, st ? st->size : 0, st ? st->mtime_ns : 0);
  }
  return content_hash(key) | 1;  // never 0, which marks Python entries
}

// A build description's analysis depends on which files exist (its sources, its globs): its
// cache entries carry a key of every discovered path.
static uint64_t tree_key(std::span<const DiscoveredFile> files) {
  std::string key;
  for (const DiscoveredFile& f : files) key += f.path + "\n";
  return content_hash(key) | 1;
}

namespace {

// One file's analysis and what the cache should learn from it.
struct FileOutcome {
  FileResult result;
  bool store = false;  // a new (or refreshed) cache entry
  FileStamp stamp;
  uint64_t hash = 0;
};

struct AnalysisContext {
  const AnalyzerFactory& make_analyzer;
  SuppressionPolicy policy;
  const ResultCache* cache;
  uint64_t headers_key;
  uint64_t tree_key;
  uint64_t max_file_size;

  // What a cached result of a file of this language depends on besides its own bytes.
  uint64_t dependency_key(Language l) const {
    if (l == Language::Python) return 0;
    return l == Language::Cmake ? tree_key : headers_key;
  }
};

FileOutcome analyze_one(const DiscoveredFile& file, std::unique_ptr<FileAnalyzer>& analyzer, const AnalysisContext& c) {
  FileOutcome out;
  FileResult& result = out.result;
  result.path = file.path;
  result.language = file.language;
  const uint64_t hkey = c.dependency_key(file.language);
  std::optional<FileStamp> stamp = c.cache ? stamp_of(file.absolute_path) : std::nullopt;
  auto loaded = load_source(file, c.max_file_size);
  if (auto* reason = std::get_if<std::string>(&loaded)) {
    result.skip_reason = *reason;
    result.findings.push_back(file_note(notes::kFileSkipped, file.path, "file skipped: " + *reason));
    return out;
  }
  const SourceFile& source = std::get<SourceFile>(loaded);
  result.analyzed = true;
  uint64_t hash = 0;
  if (stamp) {
    hash = content_hash(source.text());
    if (auto hit = c.cache->find_by_hash(file.path, hash, hkey)) {
      result = std::move(*hit);
      out.store = true;  // same bytes, new time stamp: refresh the entry
      out.stamp = *stamp;
      out.hash = hash;
      return out;
    }
  }
  try {
    if (!analyzer) analyzer = c.make_analyzer();
    analyzer->analyze(source, result);
  } catch (const std::exception& e) {
    result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, std::string("analysis failed: ") + e.what()));
  } catch (...) {
    result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, "analysis failed: unknown error"));
  }
  apply_suppressions(source, result.findings, c.policy);
  // Sorted here, in the worker, where a scan has a core per worker: the report wants them in
  // this order, and the parent's end of the scan runs alone.
  std::sort(result.findings.begin(), result.findings.end(), finding_less);
  // A failed analysis may be transient: never cache it.
  bool failed = std::any_of(result.findings.begin(), result.findings.end(),
                            [](const Finding& f) { return f.check_id == notes::kAnalysisFailed.id; });
  if (stamp && !failed) {
    out.store = true;
    out.stamp = *stamp;
    out.hash = hash;
  }
  return out;
}

// An outcome as one string, to cross from a worker process: the cache fields on a line of their
// own ("store size mtime hash"), then the result.
std::string encode_outcome(const FileOutcome& o) {
  std::string out;
  char buf[96];
  char* at = buf;
  *at++ = o.store ? '1' : '0';
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.stamp.size).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.stamp.mtime_ns).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.hash).ptr;
  *at++ = '\n';
  out.append(buf, at);
  append_encoded_result(out, o.result);
  return out;
}

// The cache fields of an encoded outcome's first line; false when it is not one.
bool decode_outcome_fields(std::string_view line, FileOutcome& o) {
  const char* at = line.data();
  const char* const end = at + line.size();
  // A number, then `after` (or the end of the line when `after` is 0).
  auto field = [&](auto& value, char after) {
    auto [next, ec] = std::from_chars(at, end, value);
    if (ec != std::errc()) return false;
    if (after == 0) return next == end;
    if (next == end || *next != after) return false;
    at = next + 1;
    return true;
  };
  int store = 0;
  if (!field(store, ' ') || !field(o.stamp.size, ' ') || !field(o.stamp.mtime_ns, ' ') || !field(o.hash, 0))
    return false;
  o.store = store != 0;
  return true;
}

FileOutcome decode_outcome(const DiscoveredFile& file, std::string_view text) {
  FileOutcome o;
  size_t nl = text.find('\n');
  std::optional<FileResult> result;
  if (nl != std::string::npos && decode_outcome_fields(text.substr(0, nl), o))
    result = decode_result(file.path, text.substr(nl + 1));
  if (!result) {
    o = FileOutcome{};
    o.result.path = file.path;
    o.result.language = file.language;
    o.result.analyzed = true;
    o.result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, "analysis failed: a damaged result"));
    return o;
  }
  o.result = std::move(*result);
  return o;
}

}  // namespace

// Workers take the next file as they finish one. Handing out the costliest files first keeps
// one long C++ parse from running alone at the end while the other workers idle (the
// longest-processing-time-first rule). A C/C++ file costs a Clang parse, tens of times a Python
// file of its size; within a language, cost grows with size. Results keep the files' order.
// `size` holds the sizes the cache lookup already read (0: not read).
static void order_longest_first(std::vector<size_t>& pending, std::span<const DiscoveredFile> files,
                                std::vector<uint64_t>& size) {
  auto native = [&](size_t i) { return files[i].language == Language::Cxx || files[i].language == Language::Cuda; };
  for (size_t i : pending)
    if (size[i] == 0)
      if (auto stamp = stamp_of(files[i].absolute_path)) size[i] = stamp->size;
  std::stable_sort(pending.begin(), pending.end(), [&](size_t a, size_t b) {
    if (native(a) != native(b)) return native(a);
    return size[a] > size[b];
  });
}

std::vector<FileResult> analyze_files(std::span<const DiscoveredFile> files, const AnalyzerFactory& make_analyzer,
                                      const AnalysisOptions& options) {
  unsigned jobs = options.jobs ? options.jobs : default_jobs();
  AnalysisContext context{make_analyzer, options.suppressions, options.cache,
                          options.cache ? project_headers_key(files) : 0, options.cache ? tree_key(files) : 0,
                          options.max_file_size};
  auto yes = [](std::string_view, std::string_view = {}) { return true; };
  if (!context.policy.enabled) context.policy.enabled = yes;
  if (!context.policy.known) context.policy.known = yes;
  if (!context.policy.runs) context.policy.runs = yes;

  // Files whose cached stamp still matches are answered here, without reading them or starting
  // a worker: on an unchanged tree no worker process is started at all.
  std::vector<FileOutcome> outcomes(files.size());
  std::vector<size_t> pending;
  std::vector<uint64_t> size(files.size(), 0);  // from the stamps read here, for the work order
  for (size_t i = 0; i < files.size(); ++i) {
    if (options.cache) {
      const uint64_t hkey = context.dependency_key(files[i].language);
      auto stamp = stamp_of(files[i].absolute_path);
      if (stamp) size[i] = stamp->size;
      if (stamp && stamp->size <= context.max_file_size) {
        if (auto hit = options.cache->find_by_stamp(files[i].path, *stamp, hkey)) {
          outcomes[i].result = std::move(*hit);
          continue;
        }
      }
    }
    pending.push_back(i);
  }
  if (jobs > 1 && pending.size() > 1) order_longest_first(pending, files, size);
  if (options.prepare && !pending.empty()) {
    LanguageSet languages = 0;
    for (size_t i : pending) languages = languages | files[i].language;
    options.prepare(languages);
  }
  if (options.isolate && !pending.empty()) {
    // Each worker process creates its analyzer on its first file; the parent never does.
    std::unique_ptr<FileAnalyzer> analyzer;
    run_in_workers(
        pending.size(), {jobs, options.file_timeout},
        [&](size_t k) { return encode_outcome(analyze_one(files[pending[k]], analyzer, context)); },
        [&](size_t k, const std::string& reason) {
          const DiscoveredFile& file = files[pending[k]];
          FileOutcome failed;
          failed.result.path = file.path;
          failed.result.language = file.language;
          failed.result.analyzed = true;
          failed.result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, reason));
          return encode_outcome(failed);
        },
        [&](size_t k, std::string_view encoded) { outcomes[pending[k]] = decode_outcome(files[pending[k]], encoded); });
  } else {
    std::vector<std::unique_ptr<FileAnalyzer>> analyzers(jobs);
    parallel_for(pending.size(), jobs, [&](unsigned worker, size_t k) {
      outcomes[pending[k]] = analyze_one(files[pending[k]], analyzers[worker], context);
    });
  }

  std::vector<FileResult> results;
  results.reserve(files.size());
  if (ResultCache* cache = options.cache) {
    std::vector<std::string> live;
    for (size_t i = 0; i < files.size(); ++i) {
      const FileOutcome& o = outcomes[i];
      if (o.store)
        cache->store(files[i].path, o.stamp, o.hash, context.dependency_key(files[i].language), o.result);
      if (o.result.analyzed) live.push_back(files[i].path);
    }
    cache->save(live);
  }
  for (FileOutcome& o : outcomes) results.push_back(std::move(o.result));
  return results;
}

ScanReport build_report(const Discovery& discovery, std::vector<FileResult> results,
                        const std::function<bool(std::string_view)>& keep, const PathWeights& weights) {
  ScanReport report;
  report.root = discovery.root;
  for (const SkippedFile& s : discovery.skipped) {
    FileResult r;
    r.path = s.path;
    r.skip_reason = s.reason;
    r.findings.push_back(file_note(notes::kFileSkipped, s.path, "file skipped: " + s.reason));
    results.push_back(std::move(r));
  }
  // Results come in discovery order, which is mostly already the paths' order.
  auto by_path = [](const FileResult& a, const FileResult& b) { return a.path < b.path; };
  if (!std::is_sorted(results.begin(), results.end(), by_path)) std::stable_sort(results.begin(), results.end(), by_path);
  report.files.reserve(results.size());
  size_t findings = 0;
  for (const FileResult& f : results) findings += f.findings.size();
  report.findings.reserve(findings);
  std::string kept_id;
  bool kept = false;
  for (FileResult& f : results) {
    std::erase_if(f.findings, [&](const Finding& x) {
      // Asked once per run of findings of one check, not once per finding.
      if (kept_id.empty() || x.check_id != kept_id) {
        kept_id = x.check_id;
        kept = keep(x.check_id);
      }
      return !kept;
    });
    // Analyses give their findings sorted; notes added since, and results from elsewhere
    // (merged reports), may not be.
    if (!std::is_sorted(f.findings.begin(), f.findings.end(), finding_less))
      std::sort(f.findings.begin(), f.findings.end(), finding_less);
    if (f.analyzed)
      ++report.analyzed;
    else
      report.skipped.push_back({f.path, f.skip_reason});
    // Moved, not copied: a large scan's findings are most of the memory this process touches.
    std::move(f.findings.begin(), f.findings.end(), std::back_inserter(report.findings));
    report.files.push_back({std::move(f.path), f.language, f.analyzed, std::move(f.skip_reason),
                            std::move(f.missing_headers), 0, {}});
  }
  summarize_files(report);
  report.score = compute_score(report.findings, weights);
  report.plan = plan_work(report.findings, weights);
  report.path_weights = weights;
  return report;
}

void summarize_files(ScanReport& report) {
  // Both lists are ordered by path (findings by finding_less, whose first key is the path).
  auto finding = report.findings.begin();
  for (FileSummary& f : report.files) {
    f.findings = 0;
    f.hours = {};
    while (finding != report.findings.end() && finding->path < f.path) ++finding;
    for (; finding != report.findings.end() && finding->path == f.path; ++finding) {
      ++f.findings;
      f.hours.low += finding->hours.low;
      f.hours.high += finding->hours.high;
    }
  }
}

}  // namespace tpulint
