// The Python frontend: parses a file once with tree-sitter, builds its import table, then
// walks the tree once and calls each enabled check on the node kinds it asked for.
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/source_file.h"
#include "core/string_map.h"
#include "python/parse_arena.h"
#include "python/python_check.h"
#include "python/semantic.h"
#include "python/syntax.h"

namespace tpulint::python {

// One per worker thread (it owns the memory its parses use).
class PythonAnalyzer {
 public:
  // `roles`: the framework facts of the semantic model, which gives each finding its context;
  // without them every finding's context is unknown.
  // `project`: the scanned project's index (its own modules), which checks see through the context.
  explicit PythonAnalyzer(std::span<const PythonCheckEntry> checks, const CodeRoleFacts* roles = nullptr,
                          const ProjectIndex* project = nullptr);
  void analyze(const SourceFile& file, FileResult& result);
  // The parse alone, with the same memory and node table as analyze(), and no check: the
  // benchmark's floor (`scan --parse-only`).
  void parse_only(const SourceFile& file);

 private:
  const CodeRoleFacts* roles_ = nullptr;
  const ProjectIndex* project_ = nullptr;
  std::vector<const CheckInfo*> infos_;  // of the checks given, to discount findings by context
  // Calls `call` on the checks of calls that name its callee or the callee's module (see
  // PythonCheck::callee_names).
  void check_named_call(Node call, PythonContext& ctx);
  void add_checks_naming(std::string_view callee_name);

  ParseArena arena_;
  // By node kind; for calls, the checks that are given every call.
  std::array<std::vector<PythonCheckEntry>, size_t(Kind::kCount)> by_kind_;
  // The checks of calls that name their callees or their modules, in registry order; by each
  // name they give, the positions of those checks in that list, ascending; by the first part of
  // each module they give, the module and the check's position.
  std::vector<PythonCheckEntry> named_call_checks_;
  StringMap<std::vector<uint32_t>> named_call_checks_by_name_;
  StringMap<std::vector<std::pair<std::string_view, uint32_t>>> named_call_checks_by_package_;
  std::vector<uint32_t> due_;  // the positions check_named_call or check_reference runs, for one node
  void settle_due();            // each position once, in registry order

  // Calls the checks of references whose names cover `qualified`, the name `reference` resolves to
  // (see PythonCheck::reference_names).
  void check_reference(Node reference, const std::string& qualified, PythonContext& ctx);
  // The checks whose checks_references() is true, in registry order; the positions in that list
  // of those that give no names (every resolved reference reaches them), and by each name given,
  // the positions of the checks that give it, ascending.
  std::vector<PythonCheckEntry> reference_checks_;
  std::vector<uint32_t> reference_checks_of_every_name_;
  StringMap<std::vector<uint32_t>> reference_checks_by_name_;
  size_t longest_reference_name_ = 0;  // of those names

  // The kinds of node the walk acts on: those some check is given, references when a check is
  // given references, and those that open a frame. In a tree without syntax errors the walk
  // passes over every other node (most are punctuation, operators, literals and parameters) with
  // this one test.
  KindSet walked_kinds_;
};

}  // namespace tpulint::python
