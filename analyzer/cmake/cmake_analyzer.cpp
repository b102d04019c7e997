#include "cmake/cmake_analyzer.h"

#include <fmt/format.h>
#include <system_error>

#include "core/analyzer_notes.h"
#include "core/source_tree.h"

namespace fs = std::filesystem;

namespace tpulint::cmake {

namespace {

// A CMakeLists.txt is read whole to see whether it calls project(); a larger one is taken not to.
constexpr uint64_t kMaxListFileSize = uint64_t(16) << 20;

// Whether the CMakeLists.txt of `dir` (a directory of the tree) calls project(): a project's
// top directory.
bool calls_project(const SourceTree& tree, const fs::path& dir) {
  std::optional<std::string> rel = tree.relative_path(dir / "CMakeLists.txt");
  if (!rel) return false;
  FileRead read = tree.read(*rel, kMaxListFileSize);
  if (read.status != FileRead::Status::Read) return false;
  for (const Command& c : lex(read.text).commands)
    if (c.name == "project") return true;
  return false;
}

}  // namespace

Directories directories_of(const SourceFile& file) {
  Directories d;
  const SourceTree tree = SourceTree::holding(file.absolute_path(), file.path());
  fs::path absolute = file.absolute_path().lexically_normal();
  d.list_dir = absolute.parent_path();
  d.scan_root = tree.root();
  if (absolute.filename() == "CMakeLists.txt") d.source_dir = d.list_dir;
  if (d.source_dir) {
    // A CMakeLists.txt that calls project() sets PROJECT_SOURCE_DIR itself (the evaluator does);
    // one below it inherits the nearest enclosing project's.
    for (fs::path dir = d.list_dir.parent_path(); !d.project_source_dir; dir = dir.parent_path()) {
      if (!tree.relative_path(dir)) break;
      if (calls_project(tree, dir)) d.project_source_dir = dir;
      if (dir == d.scan_root || dir == dir.parent_path()) break;
    }
  }
  if (calls_project(tree, d.scan_root)) d.top_source_dir = d.scan_root;
  return d;
}

std::optional<std::string> CmakeContext::tree_path(const std::string& path) const {
  fs::path p(path);
  if (p.is_relative()) {
    if (!facts_.dirs.source_dir) return std::nullopt;
    p = *facts_.dirs.source_dir / p;
  }
  const SourceTree tree(facts_.dirs.scan_root);
  std::optional<std::string> rel = tree.relative_path(p);
  if (!rel || rel->empty() || tree.kind(*rel) != EntryKind::RegularFile) return std::nullopt;
  return rel;
}

void CmakeAnalyzer::analyze(const SourceFile& file, FileResult& result) const {
  CmakeFile facts;
  Lexed lexed = lex(file.text());
  FindingSink sink(file, result.findings);
  if (lexed.error && syntax_notes_)
    sink.add(notes::kSyntaxError, lexed.error->at,
             fmt::format("CMake syntax error: {}; the commands after it were not analyzed", lexed.error->message));
  if (checks_.empty()) return;
  facts.commands = std::move(lexed.commands);
  facts.dirs = directories_of(file);
  facts.evaluated = evaluate(facts.commands, facts.dirs);
  CmakeContext ctx(facts, sink);
  for (const CmakeCheckEntry& e : checks_) {
    ctx.set_check(e.info);
    e.check->check(facts, ctx);
  }
}

}  // namespace tpulint::cmake
