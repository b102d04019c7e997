// The Python frontend: parses a file once with tree-sitter, builds its import table, then
// walks the tree once and calls each enabled check on the node kinds it asked for.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <unordered_map>
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
  // Calls `call` on the checks of calls that name its callee (see PythonCheck::callee_names).
  void check_named_call(Node call, PythonContext& ctx) const;
  const std::vector<uint32_t>& checks_naming(std::string_view callee_name) const;

  ParseArena arena_;
  // By node kind; for calls, the checks that are given every call.
  std::array<std::vector<PythonCheckEntry>, size_t(Kind::kCount)> by_kind_;
  // The checks of calls that name their callees, in registry order, and by each name they give
  // the positions of those checks in that list, ascending.
  std::vector<PythonCheckEntry> named_call_checks_;
  std::unordered_map<std::string_view, std::vector<uint32_t>> named_call_checks_by_name_;
  std::vector<PythonCheckEntry> reference_checks_;  // those whose checks_references() is true
};

}  // namespace tpulint::python
