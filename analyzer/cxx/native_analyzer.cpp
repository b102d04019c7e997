#include "cxx/native_analyzer.h"

namespace tpulint::cxx {

NativeAnalyzer::NativeAnalyzer(std::span<const NativeCheckEntry> checks, ClangFrontendOptions options)
    : checks_(checks.begin(), checks.end()), frontend_(std::move(options)) {}

void NativeAnalyzer::analyze(const SourceFile& file, FileResult& result) {
  NativeFile facts = frontend_.parse(file);
  for (const IncludeFact& inc : facts.includes)
    if (!inc.found) result.missing_headers.push_back(inc.spelled);
  FindingSink sink(file, result.findings);
  NativeContext ctx(facts, sink);
  for (const NativeCheckEntry& e : checks_) {
    ctx.set_check(e.info);
    e.check->check(facts, ctx);
  }
}

}  // namespace tpulint::cxx
