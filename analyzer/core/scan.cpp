#include "core/scan.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <fstream>
#include <iterator>
#include <numeric>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/analyzer_notes.h"
#include "core/discovery.h"
#include "core/notebook.h"
#include "core/project_links.h"
#include "core/result_codec.h"
#include "core/source_tree.h"
#include "core/text_encoding.h"
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

std::variant<SourceFile, std::string> load_source(const DiscoveredFile& file, uint64_t max_file_size,
                                                 FileStamp* stamp) {
  SourceTree tree = SourceTree::holding(file.absolute_path, file.path);
  std::optional<std::string> rel = tree.relative_path(file.absolute_path);
  FileRead read = tree.read(rel ? *rel : std::string(), max_file_size);
  if (stamp) *stamp = read.stamp;
  if (read.status == FileRead::Status::TooLarge)
    return "larger than --max-file-size (" + std::to_string(read.stamp.size) + " > " + std::to_string(max_file_size) +
           " bytes)";
  if (read.status != FileRead::Status::Read) return read.reason();
  std::string& text = read.text;
  // NUL bytes mean binary content, except in UTF-16, where every ASCII character holds one.
  const std::string binary = "binary content (NUL bytes)";
  if (!starts_with_utf16_bom(text) && text.find('\0') != std::string::npos) return binary;
  // A notebook is JSON, UTF-8 whatever its cells declare: only a byte-order mark is decoded.
  const bool notebook = is_notebook_path(file.path);
  if (std::optional<std::string> why = decode_to_utf8(text, notebook ? Language::None : file.language))
    return std::move(*why);
  if (text.find('\0') != std::string::npos) return binary;
  if (notebook) {
    auto read = read_notebook(file.path, std::move(text));
    if (auto* why = std::get_if<std::string>(&read)) return "notebook: " + *why;
    Notebook& nb = std::get<Notebook>(read);
    return SourceFile(file.path, file.absolute_path, file.language, std::move(nb.code),
                      std::make_shared<const NotebookMap>(std::move(nb.map)));
  }
  return SourceFile(file.path, file.absolute_path, file.language, std::move(text));
}

// A C/C++/CUDA file's analysis can depend on any header of the project, so its cache entries
// carry a key of every header's path, size and time stamp: any header edit invalidates them.
static uint64_t project_headers_key(std::span<const DiscoveredFile> files) {
  std::string key;
  for (const DiscoveredFile& f : files) {
    if (!is_cxx_header_path(f.absolute_path)) continue;
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
  std::optional<AnalyzedFiles::Range> pooled;  // set once the findings are in the scan's list
};

struct AnalysisContext {
  const AnalyzerFactory& make_analyzer;
  SuppressionPolicy policy;
  const ResultCache* cache;
  uint64_t headers_key;
  uint64_t tree_key;
  uint64_t python_key;
  uint64_t max_file_size;
  const std::function<bool(std::string_view)>* is_build_script;

  // What a cached result of a file depends on besides its own bytes.
  uint64_t dependency_key(const DiscoveredFile& f) const {
    if (f.language == Language::Python)
      return *is_build_script && (*is_build_script)(f.path) ? content_hash(fmt::format("{}\n{}", python_key, tree_key)) | 1
                                                            : python_key;
    return f.language == Language::Cmake ? tree_key : headers_key;
  }
};

// Moves the findings that await the project links, once suppressed like the file's others, to
// their launches; a launch whose finding was suppressed is dropped.
void set_aside_launches(FileResult& result) {
  std::vector<FileLinks::Launch>& launches = result.links.launches;
  if (launches.empty()) return;
  for (Finding& f : result.findings) {
    if (!f.awaits_link) continue;
    auto l = std::find_if(launches.begin(), launches.end(),
                          [&](const FileLinks::Launch& x) { return x.at == f.start && !x.finding.awaits_link; });
    if (l != launches.end()) l->finding = std::move(f);
  }
  std::erase_if(result.findings, [](const Finding& f) { return f.awaits_link; });
  std::erase_if(launches, [](const FileLinks::Launch& l) { return !l.finding.awaits_link; });
}

// A file of a task, between its load and its analysis: its outcome so far, and its text when it
// is still to be analyzed (not skipped, not answered by the cache).
struct TaskFile {
  FileOutcome out;
  std::optional<SourceFile> source;
  std::optional<FileStamp> stamp;  // as read, when the result may be cached
  uint64_t hash = 0;
};

// Loads a file and asks the cache for a result of its bytes.
TaskFile load_task_file(const DiscoveredFile& file, const AnalysisContext& c) {
  TaskFile t;
  FileResult& result = t.out.result;
  result.path = file.path;
  result.language = file.language;
  const uint64_t hkey = c.dependency_key(file);
  FileStamp read_stamp;
  auto loaded = load_source(file, c.max_file_size, &read_stamp);
  // The stamp of the file as it was opened and read, not as a separate look found it.
  if (c.cache) t.stamp = read_stamp;
  if (auto* reason = std::get_if<std::string>(&loaded)) {
    result.skip_reason = *reason;
    result.findings.push_back(file_note(notes::kFileSkipped, file.path, "file skipped: " + *reason));
    return t;
  }
  SourceFile& source = std::get<SourceFile>(loaded);
  result.analyzed = true;
  if (file.language != Language::Cmake)
    result.code_lines = count_code_lines(hand_written_part(source.text()), file.language);
  if (t.stamp) {
    // A notebook's findings are placed in its JSON text, not only in its code.
    t.hash = content_hash(source.notebook() ? source.notebook()->json() : std::string_view(source.text()));
    if (auto hit = c.cache->find_by_hash(file.path, t.hash, hkey)) {
      result = std::move(*hit);
      t.out.store = true;  // same bytes, new time stamp: refresh the entry
      t.out.stamp = *t.stamp;
      t.out.hash = t.hash;
      return t;
    }
  }
  t.source = std::move(source);
  return t;
}

// Runs the analyzer on one file; an exception becomes a TPU903 note of the file.
void analyze_guarded(FileAnalyzer& analyzer, const SourceFile& source, FileResult& result) {
  try {
    analyzer.analyze(source, result);
  } catch (const std::exception& e) {
    result.findings.push_back(file_note(notes::kAnalysisFailed, source.path(), std::string("analysis failed: ") + e.what()));
  } catch (...) {
    result.findings.push_back(file_note(notes::kAnalysisFailed, source.path(), "analysis failed: unknown error"));
  }
}

// What follows a file's analysis: its suppressions, its findings in order, what the cache learns.
void finish_task_file(TaskFile& t, std::chrono::nanoseconds analysis_time, const AnalysisContext& c) {
  FileResult& result = t.out.result;
  const SourceFile& source = *t.source;
  apply_suppressions(source, result.findings, c.policy);
  set_aside_launches(result);
  if (source.notebook()) {
    source.notebook()->place(result.findings);
    for (FileLinks::Launch& l : result.links.launches) source.notebook()->place(std::span(&l.finding, 1));
  }
  // Sorted here, in the worker, where a scan has a core per worker: the report wants them in
  // this order, and the parent's end of the scan runs alone.
  std::sort(result.findings.begin(), result.findings.end(), finding_less);
  // At least 1 ns, so that 0 means "not analyzed in this run" whatever the clock's resolution.
  result.analysis_time = std::max(std::chrono::nanoseconds(1), analysis_time);
  // A failed analysis may be transient, and one cut short by a time budget depends on the
  // machine's speed: never cache either.
  bool failed = std::any_of(result.findings.begin(), result.findings.end(), [](const Finding& f) {
    return f.check_id == notes::kAnalysisFailed.id || f.check_id == notes::kTimeBudget.id;
  });
  if (t.stamp && !failed) {
    t.out.store = true;
    t.out.stamp = *t.stamp;
    t.out.hash = t.hash;
  }
}

// Analyzes a task's files: one alone, or several together (AnalysisOptions::batch_key), whose
// analysis time is shared out equally. When analyzing them together throws, each is analyzed
// alone, so that the exception is one file's note.
std::vector<FileOutcome> analyze_task(std::span<const DiscoveredFile* const> task, std::unique_ptr<FileAnalyzer>& analyzer,
                                      const AnalysisContext& c) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<TaskFile> loaded;
  loaded.reserve(task.size());
  for (const DiscoveredFile* f : task) loaded.push_back(load_task_file(*f, c));
  std::vector<size_t> todo;
  for (size_t i = 0; i < loaded.size(); ++i)
    if (loaded[i].source) todo.push_back(i);
  if (!todo.empty()) {
    if (!analyzer) analyzer = c.make_analyzer();
    bool alone = todo.size() == 1;
    if (!alone) {
      std::vector<SourceFile> sources;
      std::vector<FileResult> results;
      for (size_t i : todo) {
        sources.push_back(*loaded[i].source);
        results.push_back(std::move(loaded[i].out.result));
      }
      try {
        analyzer->analyze_together(sources, results);
        for (size_t k = 0; k < todo.size(); ++k) loaded[todo[k]].out.result = std::move(results[k]);
      } catch (...) {
        alone = true;
        for (size_t k = 0; k < todo.size(); ++k) {
          FileResult& r = loaded[todo[k]].out.result;
          r = FileResult{};
          r.path = task[todo[k]]->path;
          r.language = task[todo[k]]->language;
          r.analyzed = true;
          r.code_lines = results[k].code_lines;
        }
      }
    }
    if (alone)
      for (size_t i : todo) analyze_guarded(*analyzer, *loaded[i].source, loaded[i].out.result);
    const auto each = (std::chrono::steady_clock::now() - started) / todo.size();
    for (size_t i : todo) finish_task_file(loaded[i], each, c);
  }
  std::vector<FileOutcome> out;
  out.reserve(loaded.size());
  for (TaskFile& t : loaded) out.push_back(std::move(t.out));
  return out;
}

// An outcome as one string, to cross from a worker process: the cache fields and the analysis
// time on a line of their own ("store size mtime ctime inode hash nanoseconds"), then the result. (The
// cache keeps no time: a result it answers was not analyzed in that run.)
std::string encode_outcome(const FileOutcome& o) {
  std::string out;
  char buf[160];
  char* at = buf;
  *at++ = o.store ? '1' : '0';
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.stamp.size).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.stamp.mtime_ns).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.stamp.ctime_ns).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.stamp.inode).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.hash).ptr;
  *at++ = ' ';
  at = std::to_chars(at, buf + sizeof buf, o.result.analysis_time.count()).ptr;
  *at++ = '\n';
  out.append(buf, at);
  append_encoded_result(out, o.result);
  return out;
}

// A task's outcomes as one string: each encoded outcome after its length and a newline.
std::string encode_outcomes(const std::vector<FileOutcome>& outcomes) {
  std::string out;
  for (const FileOutcome& o : outcomes) {
    std::string one = encode_outcome(o);
    out += std::to_string(one.size());
    out += '\n';
    out += one;
  }
  return out;
}

// The encoded outcomes of a task's string, `count` of them; fewer when it is damaged.
std::vector<std::string_view> split_outcomes(std::string_view text, size_t count) {
  std::vector<std::string_view> out;
  while (out.size() < count) {
    size_t nl = text.find('\n');
    size_t size = 0;
    if (nl == std::string_view::npos) break;
    auto [end, ec] = std::from_chars(text.data(), text.data() + nl, size);
    if (ec != std::errc() || end != text.data() + nl || size > text.size() - nl - 1) break;
    out.push_back(text.substr(nl + 1, size));
    text.remove_prefix(nl + 1 + size);
  }
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
  int64_t nanoseconds = 0;
  if (!field(store, ' ') || !field(o.stamp.size, ' ') || !field(o.stamp.mtime_ns, ' ') ||
      !field(o.stamp.ctime_ns, ' ') || !field(o.stamp.inode, ' ') || !field(o.hash, ' ') ||
      !field(nanoseconds, 0) || nanoseconds < 0)
    return false;
  o.store = store != 0;
  o.result.analysis_time = std::chrono::nanoseconds(nanoseconds);
  return true;
}

// Decodes a worker's outcome, its findings into the scan's list.
FileOutcome decode_outcome(const DiscoveredFile& file, std::string_view text, AnalyzedFiles& analyzed) {
  FileOutcome o;
  size_t nl = text.find('\n');
  std::optional<FileResult> result;
  const size_t before = analyzed.findings.size();
  if (nl != std::string::npos && decode_outcome_fields(text.substr(0, nl), o))
    result = decode_result_into(file.path, text.substr(nl + 1), analyzed.findings);
  if (!result) {
    o = FileOutcome{};
    o.result.path = file.path;
    o.result.language = file.language;
    o.result.analyzed = true;
    o.result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, "analysis failed: a damaged result"));
    o.pooled = analyzed.take(o.result.findings);
    return o;
  }
  result->analysis_time = o.result.analysis_time;  // from the outcome's line, not the result's text
  o.result = std::move(*result);
  o.pooled = analyzed.since(before);
  return o;
}

}  // namespace

// Workers take the next task as they finish one. Handing out the costliest first keeps one long
// C++ parse from running alone at the end while the other workers idle (the
// longest-processing-time-first rule). A C/C++ file costs a Clang parse, tens of times a Python
// file of its size; within a language, cost grows with size (a task's, its files' sizes together).
// Results keep the files' order. `size` holds the sizes the cache lookup already read (0: not read).
static void order_longest_first(std::vector<std::vector<size_t>>& tasks, std::span<const DiscoveredFile> files,
                                std::vector<uint64_t>& size) {
  auto native = [&](const std::vector<size_t>& t) {
    return files[t.front()].language == Language::Cxx || files[t.front()].language == Language::Cuda;
  };
  std::vector<uint64_t> task_size;
  for (const std::vector<size_t>& t : tasks) {
    uint64_t total = 0;
    for (size_t i : t) {
      if (size[i] == 0)
        if (auto stamp = stamp_of(files[i].absolute_path)) size[i] = stamp->size;
      total += size[i];
    }
    task_size.push_back(total);
  }
  std::vector<size_t> order(tasks.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (native(tasks[a]) != native(tasks[b])) return native(tasks[a]);
    return task_size[a] > task_size[b];
  });
  std::vector<std::vector<size_t>> ordered;
  ordered.reserve(tasks.size());
  for (size_t k : order) ordered.push_back(std::move(tasks[k]));
  tasks = std::move(ordered);
}

// The pending files as tasks: files of one batch key (AnalysisOptions::batch_key) together, in the
// order of `files`, at most kMostInBatch a task; every other file alone.
static std::vector<std::vector<size_t>> tasks_of(const std::vector<size_t>& pending, std::span<const DiscoveredFile> files,
                                                 const std::function<std::string(const DiscoveredFile&)>& batch_key) {
  constexpr size_t kMostInBatch = 16;
  std::vector<std::vector<size_t>> tasks;
  std::unordered_map<std::string, size_t> open;  // by key: its task still taking files
  for (size_t i : pending) {
    std::string key = batch_key ? batch_key(files[i]) : std::string();
    if (key.empty()) {
      tasks.push_back({i});
      continue;
    }
    auto [it, added] = open.try_emplace(std::move(key), tasks.size());
    if (!added && tasks[it->second].size() < kMostInBatch) {
      tasks[it->second].push_back(i);
      continue;
    }
    it->second = tasks.size();
    tasks.push_back({i});
  }
  return tasks;
}

AnalyzedFiles::Range AnalyzedFiles::take(std::vector<Finding>& own) {
  const size_t before = findings.size();
  std::move(own.begin(), own.end(), std::back_inserter(findings));
  own = {};
  return since(before);
}

void AnalyzedFiles::add(FileResult result) {
  ranges.push_back(take(result.findings));
  results.push_back(std::move(result));
}

std::vector<FileResult> analyze_files(std::span<const DiscoveredFile> files, const AnalyzerFactory& make_analyzer,
                                      const AnalysisOptions& options) {
  AnalyzedFiles analyzed = analyze_files_into_one_list(files, make_analyzer, options);
  for (size_t i = 0; i < analyzed.results.size(); ++i) {
    auto first = analyzed.findings.begin() + ptrdiff_t(analyzed.ranges[i].begin);
    analyzed.results[i].findings.assign(std::make_move_iterator(first),
                                        std::make_move_iterator(first + ptrdiff_t(analyzed.ranges[i].size)));
  }
  return std::move(analyzed.results);
}

AnalyzedFiles analyze_files_into_one_list(std::span<const DiscoveredFile> files,
                                          const AnalyzerFactory& make_analyzer, const AnalysisOptions& options) {
  unsigned jobs = options.jobs ? options.jobs : default_jobs();
  AnalysisContext context{make_analyzer, options.suppressions, options.cache,
                          options.cache ? project_headers_key(files) : 0, options.cache ? tree_key(files) : 0,
                          options.python_key, options.max_file_size, &options.is_build_script};
  auto yes = [](std::string_view, std::string_view = {}) { return true; };
  if (!context.policy.enabled) context.policy.enabled = yes;
  if (!context.policy.known) context.policy.known = yes;
  if (!context.policy.runs) context.policy.runs = yes;

  // Files whose cached stamp still matches are answered here, without reading them or starting
  // a worker: on an unchanged tree no worker process is started at all.
  AnalyzedFiles out;
  // The list's room made once, from the number of files, rather than doubled as findings come:
  // each doubling moved every finding so far into fresh memory, half the parent's page faults
  // at a million lines (77.7k findings in 11,876 files, 6.5 a file; real repositories have far
  // fewer). Room never used costs address space only: pages are taken as they are written.
  constexpr size_t kFindingsPerFile = 8, kMostRoom = size_t(1) << 20;
  out.findings.reserve(std::min(files.size() * kFindingsPerFile, kMostRoom));
  std::vector<FileOutcome> outcomes(files.size());
  std::vector<size_t> pending;
  std::vector<uint64_t> size(files.size(), 0);  // from the stamps read here, for the work order
  for (size_t i = 0; i < files.size(); ++i) {
    if (options.cache) {
      const uint64_t hkey = context.dependency_key(files[i]);
      auto stamp = stamp_of(files[i].absolute_path);
      if (stamp) size[i] = stamp->size;
      if (stamp && stamp->size <= context.max_file_size) {
        const size_t before = out.findings.size();
        if (auto hit = options.cache->find_by_stamp(files[i].path, *stamp, hkey, out.findings)) {
          outcomes[i].result = std::move(*hit);
          outcomes[i].pooled = out.since(before);
          continue;
        }
      }
    }
    pending.push_back(i);
  }
  std::vector<std::vector<size_t>> tasks = tasks_of(pending, files, options.batch_key);
  if (jobs > 1 && tasks.size() > 1) order_longest_first(tasks, files, size);
  if (options.prepare && !pending.empty()) {
    LanguageSet languages = 0;
    for (size_t i : pending) languages = languages | files[i].language;
    options.prepare(languages);
  }
  auto task_files = [&](const std::vector<size_t>& task) {
    std::vector<const DiscoveredFile*> out;
    for (size_t i : task) out.push_back(&files[i]);
    return out;
  };
  if (options.isolate && !tasks.empty()) {
    // Each worker process creates its analyzer on its first file; the parent never does.
    std::unique_ptr<FileAnalyzer> analyzer;
    // Tasks of several files whose worker died or ran out of time: their files are analyzed again,
    // each alone, so that what stopped the worker is one file's note.
    std::vector<size_t> retry;
    auto run = [&](const std::vector<std::vector<size_t>>& round, bool last) {
      run_in_workers(
          round.size(), {jobs, options.file_timeout, options.worker_memory_limit, options.workers_started},
          [&](size_t k) { return encode_outcomes(analyze_task(task_files(round[k]), analyzer, context)); },
          [&](size_t k, const std::string& reason) {
            std::vector<FileOutcome> failed;
            for (size_t i : round[k]) {
              FileOutcome o;
              o.result.path = files[i].path;
              o.result.language = files[i].language;
              o.result.analyzed = true;
              o.result.findings.push_back(file_note(notes::kAnalysisFailed, files[i].path, reason));
              failed.push_back(std::move(o));
            }
            if (!last && round[k].size() > 1) {
              retry.insert(retry.end(), round[k].begin(), round[k].end());
              return std::string();
            }
            return encode_outcomes(failed);
          },
          [&](size_t k, std::string_view encoded) {
            const std::vector<size_t>& task = round[k];
            if (encoded.empty() && task.size() > 1 && !last) return;  // retried
            std::vector<std::string_view> parts = split_outcomes(encoded, task.size());
            for (size_t j = 0; j < task.size(); ++j)
              outcomes[task[j]] = decode_outcome(files[task[j]], j < parts.size() ? parts[j] : std::string_view(), out);
          });
    };
    run(tasks, false);
    if (!retry.empty()) {
      std::sort(retry.begin(), retry.end());
      std::vector<std::vector<size_t>> alone;
      for (size_t i : retry) alone.push_back({i});
      run(alone, true);
    }
  } else {
    std::vector<std::unique_ptr<FileAnalyzer>> analyzers(jobs);
    parallel_for(tasks.size(), jobs, [&](unsigned worker, size_t k) {
      std::vector<FileOutcome> done = analyze_task(task_files(tasks[k]), analyzers[worker], context);
      for (size_t j = 0; j < tasks[k].size(); ++j) outcomes[tasks[k][j]] = std::move(done[j]);
    });
  }
  // In-process analyses leave their findings in their results.
  for (FileOutcome& o : outcomes)
    if (!o.pooled) o.pooled = out.take(o.result.findings);

  if (ResultCache* cache = options.cache) {
    std::vector<std::string> live;
    for (size_t i = 0; i < files.size(); ++i) {
      const FileOutcome& o = outcomes[i];
      if (o.store)
        cache->store(files[i].path, o.stamp, o.hash, context.dependency_key(files[i]), o.result,
                     std::span(out.findings).subspan(o.pooled->begin, o.pooled->size));
      if (o.result.analyzed) live.push_back(files[i].path);
    }
    cache->save(live);
  }
  out.results.reserve(files.size());
  out.ranges.reserve(files.size());
  for (FileOutcome& o : outcomes) {
    out.results.push_back(std::move(o.result));
    out.ranges.push_back(*o.pooled);
  }
  return out;
}

namespace {

// An extension whose kernels all have a known TPU path (trivial kernels, standard ops: StyleGAN's
// upfirdn2d and fused bias + leaky ReLU) is no rewrite: its build is dropped and its Python wrapper
// pointed at the replacement the kernels' findings name and price. Its build finding (a custom-kernel
// finding of no code lines, effort high, listing the extension's sources: TPU110's 8-24 h for the
// bindings of novel kernels) takes the class of its costliest kernel, at kSwapHours of that class;
// an extension with a novel kernel, or with no kernel in the scanned sources, keeps it. Here, in the
// report of a scan and of merged shards alike, where every file's findings are at hand.
void settle_extension_builds(std::vector<Finding>& findings) {
  static constexpr HoursRange kSwapHoursLow{0.5, 2}, kSwapHoursMedium{2, 6};
  std::unordered_map<std::string_view, EffortClass> costliest;  // by path: its costliest kernel's class
  for (const Finding& f : findings)
    if (f.category == Category::CustomKernel && f.code_lines > 0 && !f.discounted) {
      auto [it, inserted] = costliest.try_emplace(f.path, f.effort);
      if (!inserted) it->second = std::max(it->second, f.effort);
    }
  if (costliest.empty()) return;
  for (Finding& f : findings) {
    if (f.category != Category::CustomKernel || f.code_lines != 0 || f.effort != EffortClass::High ||
        f.related_paths.empty())
      continue;
    std::optional<EffortClass> most;
    for (const std::string& p : f.related_paths)
      if (auto it = costliest.find(p); it != costliest.end()) most = std::max(most.value_or(it->second), it->second);
    if (!most || *most == EffortClass::High) continue;
    f.effort = std::max(*most, EffortClass::Low);
    f.hours = f.effort == EffortClass::Low ? kSwapHoursLow : kSwapHoursMedium;
    f.message = fmt::format("{} (its kernels all have a known TPU path: the build goes, the wrapper calls the "
                            "replacement)",
                            f.message.view());
  }
}

}  // namespace

ScanReport build_report(const Discovery& discovery, std::vector<FileResult> results,
                        const std::function<bool(std::string_view)>& keep, const PathWeights& weights) {
  AnalyzedFiles analyzed;
  analyzed.results.reserve(results.size());
  analyzed.ranges.reserve(results.size());
  for (FileResult& r : results) analyzed.add(std::move(r));
  return build_report(discovery, std::move(analyzed), keep, weights);
}

ScanReport build_report(const Discovery& discovery, AnalyzedFiles analyzed,
                        const std::function<bool(std::string_view)>& keep, const PathWeights& weights) {
  ScanReport report;
  report.root = discovery.root;
  report.force_excluded = discovery.force_excluded;
  for (const SkippedFile& s : discovery.skipped) {
    FileResult r;
    r.path = s.path;
    r.skip_reason = s.reason;
    r.findings.push_back(file_note(notes::kFileSkipped, s.path, "file skipped: " + s.reason));
    analyzed.add(std::move(r));
  }
  std::vector<FileResult>& results = analyzed.results;
  std::vector<Finding>& findings = analyzed.findings;
  // Results come in discovery order, which is mostly already the paths' order.
  std::vector<size_t> by_path(results.size());
  std::iota(by_path.begin(), by_path.end(), size_t(0));
  auto path_less = [&](size_t a, size_t b) { return results[a].path < results[b].path; };
  if (!std::is_sorted(by_path.begin(), by_path.end(), path_less))
    std::stable_sort(by_path.begin(), by_path.end(), path_less);

  // Where each finding goes in the report's list: kept ones in path order, the others after
  // them (to be dropped). The list is then put in that order in place.
  constexpr size_t kUnplaced = size_t(-1);
  std::vector<size_t> place(findings.size(), kUnplaced);
  size_t kept_count = 0;
  std::string kept_id;
  bool kept = false;
  report.files.reserve(results.size());
  for (size_t i : by_path) {
    FileResult& f = results[i];
    const AnalyzedFiles::Range range = analyzed.ranges[i];
    // The kept findings move to the front of the file's range, in their order.
    size_t end_of_kept = range.begin;
    for (size_t k = range.begin; k < range.begin + range.size; ++k) {
      const Finding& x = findings[k];
      // Asked once per run of findings of one check, not once per finding.
      if (kept_id.empty() || x.check_id != kept_id) {
        kept_id = x.check_id;
        kept = keep(x.check_id);
      }
      if (!kept) continue;
      if (k != end_of_kept) findings[end_of_kept] = std::move(findings[k]);
      ++end_of_kept;
    }
    // Analyses give their findings sorted; notes added since, and results from elsewhere
    // (merged reports), may not be.
    auto first = findings.begin() + ptrdiff_t(range.begin), last = findings.begin() + ptrdiff_t(end_of_kept);
    if (!std::is_sorted(first, last, finding_less)) std::sort(first, last, finding_less);
    for (size_t k = range.begin; k < end_of_kept; ++k) place[k] = kept_count++;
    if (f.analyzed)
      ++report.analyzed;
    else
      report.skipped.push_back({f.path, f.skip_reason});
    report.files.push_back({std::move(f.path), f.language, f.analyzed, std::move(f.skip_reason),
                            std::move(f.missing_headers), std::move(f.project_includes), f.code_lines, 0, {},
                            f.analysis_time, {}});
    std::erase_if(f.touches, [&](const TouchLine& t) { return !keep(t.check_id); });
    report.files.back().touches = std::move(f.touches);
  }
  size_t dropped = kept_count;
  for (size_t& p : place)
    if (p == kUnplaced) p = dropped++;
  // Each finding is swapped into its place once: following the cycles of the permutation
  // touches no memory beyond the list, where building a new list touched as much again.
  for (size_t k = 0; k < findings.size(); ++k) {
    while (place[k] != k) {
      const size_t to = place[k];
      std::swap(findings[k], findings[to]);
      std::swap(place[k], place[to]);
    }
  }
  findings.erase(findings.begin() + ptrdiff_t(kept_count), findings.end());
  report.findings = std::move(findings);
  // The headers first: an extension's build is settled by the kernels of the sources and the headers
  // they reach, as merged shards' reports (which list the headers) settle it.
  std::vector<FileIncludes> includes;
  for (const FileSummary& f : report.files)
    if (!f.project_includes.empty()) includes.push_back({f.path, f.project_includes});
  credit_included_headers(report.findings, includes);
  guard_headers_of_optional_sources(report.findings, includes);
  settle_extension_builds(report.findings);
  summarize_files(report);
  double core_lines = 0;
  for (const FileSummary& f : report.files)
    if (decides_verdict(f.path, weights)) core_lines += f.code_lines;
  CoreCode code(core_lines);
  for (const FileSummary& f : report.files)
    if (decides_verdict(f.path, weights)) code.add_file(f.path, f.language == Language::Cxx || f.language == Language::Cuda, f.code_lines);
  report.score = compute_score(report.findings, weights, code);
  std::vector<uint32_t> item_of;
  report.plan = plan_work(report.findings, weights, code, &item_of);
  for (size_t k = 0; k < report.findings.size(); ++k) report.findings[k].work_item = item_of[k];
  std::vector<FileTouches> touches;
  for (const FileSummary& f : report.files)
    if (!f.touches.empty()) touches.push_back({f.path, f.touches});
  attach_touch_lines(report.plan, report.findings, touches);
  report.path_weights = weights;
  list_unanalyzed(report);
  // A verdict that rests on code it did not see says so.
  size_t core = 0;
  const SkippedFile* first_core = nullptr;
  for (const SkippedFile& s : report.unanalyzed)
    if (decides_verdict(s.path, weights) && ++core == 1) first_core = &s;
  if (report.analyzed == 0) report.score.verdict_reason = "no file was analyzed: there is no verdict to give";
  if (core)
    report.score.verdict_reason += fmt::format("; but {} core file{} {} not analyzed (first: {}: {}), so the verdict "
                                               "speaks only for the rest",
                                               core, core == 1 ? "" : "s", core == 1 ? "was" : "were", first_core->path,
                                               first_core->reason);
  return report;
}

void list_unanalyzed(ScanReport& report) {
  report.unanalyzed.clear();
  for (const FileSummary& f : report.files) {
    if (f.analyzed) continue;
    const Language l = f.language != Language::None ? f.language : language_for_path(f.path);
    if (l != Language::None) report.unanalyzed.push_back({f.path, f.skip_reason});
  }
  for (const Finding& f : report.findings)
    if (f.check_id == notes::kAnalysisFailed.id) report.unanalyzed.push_back({f.path.str(), f.message.str()});
  std::stable_sort(report.unanalyzed.begin(), report.unanalyzed.end(),
                   [](const SkippedFile& a, const SkippedFile& b) { return a.path < b.path; });
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
