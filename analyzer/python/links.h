// What a Python file uses of the rest of its project (core FileLinks): the modules and names it
// imports, the names of the project's own modules it refers to, and the native sources its
// string literals name (a JIT loader's `sources=[...]`), each placed by the semantic model
// (guarded or not, in which top-level function). Joined across files by core/project_links.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/project_index.h"
#include "core/source_file.h"
#include "python/imports.h"
#include "python/semantic.h"

namespace tpulint::python {

class LinkRecorder {
 public:
  LinkRecorder(const SourceFile& file, const CodeRoleFacts& facts, const ProjectIndex& project);

  // Every import statement of the file.
  void add_imports(const ImportTable& imports);
  // A whole name reference at `offset` that resolves to `qualified`: kept when it names something
  // of the project's own modules.
  void add_reference(uint32_t offset, std::string_view qualified);
  // The string literals of the file's text that name a native source file (".cu", ".cpp", ...).
  void add_native_paths(std::string_view text);
  // Whether the dotted `qualified` is a name in the project's own code: under one of its own
  // top-level modules, or under the file's own first package directory (what a relative import
  // gives in `src/pkg/x.py`: "src.pkg.ops.f").
  bool names_project_code(std::string_view qualified) const;
  // A call of the file: the keywords it passes a value that may turn an option on (may_turn_on),
  // for FileLinks::options_turned_on. Every file's, whether or not the model is built for it: a
  // config that only turns an option on has no finding and imports nothing.
  void add_call(Node call);
  // The file's options turned on, when finish() is not called (no finding, no use to place).
  void write_options(FileLinks& out) const;
  // A top-level function of the file that is a kernel other modules launch (FileLinks::Function::kernel).
  void add_kernel(std::string_view name);
  // A launch at `offset` of `target`, a name of another module: `finding` (its finding, starting
  // at `offset`) awaits the project links.
  void add_launch(uint32_t offset, std::string_view target, Finding& finding);

  bool empty() const { return pending_.empty() && kernels_.empty() && launches_.empty(); }
  // Places each use with the model (a use in test code keeps the test context) and writes the file's links.
  void finish(const SemanticModel& model, FileLinks& out) const;

 private:
  struct Pending {
    FileLinks::Kind kind;
    std::string target;
    uint32_t at;
  };
  const SourceFile& file_;
  const ProjectIndex& project_;
  std::string own_package_;  // the first part of the file's package ("pkg" of "pkg/ops/x.py")
  bool build_script_ = false;
  std::vector<Pending> pending_;
  std::vector<std::string> kernels_;
  std::set<std::string> options_turned_on_;
  std::vector<FileLinks::Launch> launches_;  // their findings are still the file's
};

}  // namespace tpulint::python
