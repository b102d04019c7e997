#include "cxx/native_analyzer.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/analyzer_notes.h"

namespace tpulint::cxx {

NativeAnalyzer::NativeAnalyzer(std::span<const NativeCheckEntry> checks, ClangFrontendOptions options)
    : checks_(checks.begin(), checks.end()), time_budget_(options.time_budget), frontend_(std::move(options)) {}

void NativeAnalyzer::analyze(const SourceFile& file, const SourceFile& shown, FileResult& result) {
  report(frontend_.parse(file), file, shown, result);
}

void NativeAnalyzer::analyze_together(std::span<const SourceFile> files, std::span<FileResult> results) {
  std::vector<NativeFile> facts = frontend_.parse_together(files);
  for (size_t i = 0; i < files.size(); ++i) report(std::move(facts[i]), files[i], files[i], results[i]);
}

void NativeAnalyzer::report(const NativeFile& facts, const SourceFile& file, const SourceFile& shown,
                            FileResult& result) {
  for (const IncludeFact& inc : facts.includes) {
    if (!inc.found) result.missing_headers.push_back(inc.spelled);
    if (!inc.resolved.empty() && inc.resolved != file.path()) result.project_includes.push_back(inc.resolved);
  }
  std::sort(result.project_includes.begin(), result.project_includes.end());
  result.project_includes.erase(std::unique(result.project_includes.begin(), result.project_includes.end()),
                                result.project_includes.end());
  FindingSink sink(shown, result.findings);
  sink.keep_touches(&result.touches);
  NativeContext ctx(facts, sink);
  const size_t first = result.findings.size();
  for (const NativeCheckEntry& e : checks_) {
    ctx.set_check(e.info);
    e.check->check(facts, ctx);
  }
  // A file generated to split one template's compilation (flash-attention has hundreds, one per
  // head size and type) holds no code of its own: its findings are listed, but they are the
  // template's work, counted where the template is, so they join its work item and cost nothing.
  if (!facts.instantiated_templates.empty()) {
    const std::string& name = facts.instantiated_templates.front();
    for (size_t i = first; i < result.findings.size(); ++i) {
      Finding& f = result.findings[i];
      f.message = fmt::format("{} (the file only instantiates '{}', counted with that template)", f.message, name);
      f.subject = name;
      f.effort = EffortClass::None;
      f.hours = {};
    }
    for (TouchLine& t : result.touches) t.subject = name;
  }
  settle_touch_lines(result.touches, std::span<const Finding>(result.findings).subspan(first));
  if (facts.over_budget)
    sink.add(notes::kTimeBudget, {0, 0},
             fmt::format("Clang's parse took more than --cxx-time-budget ({} s of CPU) and was stopped; the file was "
                         "analyzed in its tokens only: kernels, launches, calls and includes are reported, findings "
                         "that need the syntax tree (device functions, inline assembly) may be missing",
                         time_budget_.count() / 1000.0));
  // A fatal error stopped Clang: say so, or the findings after it would silently be fewer.
  if (!facts.fatal_error.empty())
    sink.add(notes::kSyntaxError, facts.fatal_error_at,
             "Clang stopped at a fatal error (" + facts.fatal_error +
                 "); kernels and launches after it were found in the tokens, other findings there may be missing");
}

}  // namespace tpulint::cxx
