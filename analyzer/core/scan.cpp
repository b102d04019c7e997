#include "core/scan.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <system_error>
#include <thread>

#include "core/analyzer_notes.h"

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

std::vector<FileResult> analyze_files(std::span<const DiscoveredFile> files, const AnalyzerFactory& make_analyzer,
                                      const AnalysisOptions& options) {
  unsigned jobs = options.jobs ? options.jobs : default_jobs();
  const uint64_t max_file_size = options.max_file_size;
  SuppressionPolicy policy = options.suppressions;
  auto yes = [](std::string_view, std::string_view = {}) { return true; };
  if (!policy.enabled) policy.enabled = yes;
  if (!policy.known) policy.known = yes;
  if (!policy.runs) policy.runs = yes;
  std::vector<FileResult> results(files.size());
  std::vector<std::unique_ptr<FileAnalyzer>> analyzers(jobs);
  parallel_for(files.size(), jobs, [&](unsigned worker, size_t i) {
    const DiscoveredFile& file = files[i];
    FileResult& result = results[i];
    result.path = file.path;
    result.language = file.language;
    auto loaded = load_source(file, max_file_size);
    if (auto* reason = std::get_if<std::string>(&loaded)) {
      result.skip_reason = *reason;
      result.findings.push_back(file_note(notes::kFileSkipped, file.path, "file skipped: " + *reason));
      return;
    }
    const SourceFile& source = std::get<SourceFile>(loaded);
    result.analyzed = true;
    try {
      if (!analyzers[worker]) analyzers[worker] = make_analyzer();
      analyzers[worker]->analyze(source, result);
    } catch (const std::exception& e) {
      result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, std::string("analysis failed: ") + e.what()));
    } catch (...) {
      result.findings.push_back(file_note(notes::kAnalysisFailed, file.path, "analysis failed: unknown error"));
    }
    apply_suppressions(source, result.findings, policy);
  });
  return results;
}

ScanReport build_report(const Discovery& discovery, std::vector<FileResult> results,
                        const std::function<bool(std::string_view)>& keep, const PathWeights& weights) {
  ScanReport report;
  report.root = discovery.root;
  report.files = std::move(results);
  for (const SkippedFile& s : discovery.skipped) {
    FileResult r;
    r.path = s.path;
    r.skip_reason = s.reason;
    r.findings.push_back(file_note(notes::kFileSkipped, s.path, "file skipped: " + s.reason));
    report.files.push_back(std::move(r));
  }
  std::stable_sort(report.files.begin(), report.files.end(),
                   [](const FileResult& a, const FileResult& b) { return a.path < b.path; });
  for (FileResult& f : report.files) {
    std::erase_if(f.findings, [&](const Finding& x) { return !keep(x.check_id); });
    std::sort(f.findings.begin(), f.findings.end(), finding_less);
    if (f.analyzed)
      ++report.analyzed;
    else
      report.skipped.push_back({f.path, f.skip_reason});
    report.findings.insert(report.findings.end(), f.findings.begin(), f.findings.end());
  }
  report.score = compute_score(report.findings, weights);
  report.plan = plan_work(report.findings, weights);
  report.path_weights = weights;
  return report;
}

}  // namespace tpulint
