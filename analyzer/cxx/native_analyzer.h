// Runs the Clang frontend on a C/C++/CUDA file, then every enabled native check on its facts.
#pragma once

#include <span>
#include <vector>

#include "core/finding.h"
#include "core/source_file.h"
#include "cxx/clang_frontend.h"
#include "cxx/native_check.h"

namespace tpulint::cxx {

// One per worker thread.
class NativeAnalyzer {
 public:
  NativeAnalyzer(std::span<const NativeCheckEntry> checks, ClangFrontendOptions options);
  void analyze(const SourceFile& file, FileResult& result) { analyze(file, file, result); }
  // `file` is code embedded in `shown` at the same byte offsets (a Python file's kernel sources,
  // python/embedded_cuda.h): the findings are reported in `shown`, at its lines and columns.
  void analyze(const SourceFile& file, const SourceFile& shown, FileResult& result);
  // Headers analyzed together (ClangFrontend::parse_together), each into its result.
  void analyze_together(std::span<const SourceFile> files, std::span<FileResult> results);

 private:
  // Runs the checks on a file's facts.
  void report(const NativeFile& facts, const SourceFile& file, const SourceFile& shown, FileResult& result);
  std::vector<NativeCheckEntry> checks_;
  std::chrono::milliseconds time_budget_;
  ClangFrontend frontend_;
};

}  // namespace tpulint::cxx
