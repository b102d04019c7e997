#include "cmake/cmake_analyzer.h"

#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/analyzer_notes.h"

namespace fs = std::filesystem;

namespace tpulint::cmake {

namespace {

// Whether the CMakeLists.txt of `dir` calls project(): a project's top directory.
bool calls_project(const fs::path& dir) {
  std::error_code ec;
  fs::path list = dir / "CMakeLists.txt";
  if (!fs::is_regular_file(fs::symlink_status(list, ec))) return false;
  std::ifstream in(list, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  for (const Command& c : lex(ss.str()).commands)
    if (c.name == "project") return true;
  return false;
}

}  // namespace

Directories directories_of(const SourceFile& file) {
  Directories d;
  fs::path absolute = fs::absolute(file.absolute_path()).lexically_normal();
  d.list_dir = absolute.parent_path();
  // The root is the file's directory less as many levels as its relative path has directories.
  d.scan_root = d.list_dir;
  const fs::path relative = fs::path(file.path()).parent_path();
  for (auto it = relative.begin(); it != relative.end(); ++it) d.scan_root = d.scan_root.parent_path();
  if (absolute.filename() == "CMakeLists.txt") d.source_dir = d.list_dir;
  if (d.source_dir) {
    // A CMakeLists.txt that calls project() sets PROJECT_SOURCE_DIR itself (the evaluator does);
    // one below it inherits the nearest enclosing project's.
    for (fs::path dir = d.list_dir.parent_path(); !d.project_source_dir; dir = dir.parent_path()) {
      if (dir.lexically_relative(d.scan_root).native().starts_with("..")) break;
      if (calls_project(dir)) d.project_source_dir = dir;
      if (dir == d.scan_root || dir == dir.parent_path()) break;
    }
  }
  if (calls_project(d.scan_root)) d.top_source_dir = d.scan_root;
  return d;
}

std::optional<std::string> CmakeContext::tree_path(const std::string& path) const {
  fs::path p(path);
  if (p.is_relative()) {
    if (!facts_.dirs.source_dir) return std::nullopt;
    p = *facts_.dirs.source_dir / p;
  }
  p = p.lexically_normal();
  fs::path rel = p.lexically_relative(facts_.dirs.scan_root);
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(p, ec))) return std::nullopt;
  return rel.generic_string();
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
