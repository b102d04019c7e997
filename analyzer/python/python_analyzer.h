// The Python frontend: parses a file once with tree-sitter, builds its import table, then
// walks the tree once and calls each enabled check on the node kinds it asked for.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "core/finding.h"
#include "core/source_file.h"
#include "python/parse_arena.h"
#include "python/python_check.h"
#include "python/syntax.h"

namespace tpulint::python {

// One per worker thread (it owns the memory its parses use).
class PythonAnalyzer {
 public:
  explicit PythonAnalyzer(std::span<const PythonCheckEntry> checks);
  void analyze(const SourceFile& file, FileResult& result);
  // The parse alone, with the same memory and node table as analyze(), and no check: the
  // benchmark's floor (`scan --parse-only`).
  void parse_only(const SourceFile& file);

 private:
  ParseArena arena_;
  std::array<std::vector<PythonCheckEntry>, size_t(Kind::kCount)> by_kind_;
  std::vector<PythonCheckEntry> reference_checks_;  // those whose checks_references() is true
};

}  // namespace tpulint::python
