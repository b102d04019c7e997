// The shape of a CMake check: it reads a build description's commands, their arguments already
// expanded (evaluator.h), and reports through a CmakeContext. The analyzer lexes and evaluates
// each CMakeLists.txt or *.cmake file once and calls every enabled check on it.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cmake/evaluator.h"
#include "core/check_info.h"
#include "core/finding.h"
#include "core/source_file.h"

namespace tpulint::cmake {

// A parsed build description.
struct CmakeFile {
  std::vector<Command> commands;
  std::vector<EvaluatedCommand> evaluated;  // one per command, in order
  Directories dirs;
};

class CmakeContext {
 public:
  CmakeContext(const CmakeFile& facts, FindingSink& sink) : facts_(facts), sink_(sink) {}
  const CmakeFile& facts() const { return facts_; }
  const SourceFile& file() const { return sink_.file(); }

  Finding& report(ByteSpan at, std::string_view message, std::string_view hint = {}, std::string_view subject = {}) {
    return sink_.add(*check_, at, message, hint, subject);
  }

  // A path as a build would read it (absolute, or relative to CMAKE_CURRENT_SOURCE_DIR), as a
  // path relative to the scan root: nullopt when it cannot be placed (a *.cmake file's relative
  // path), lies outside the root, or names no regular file of the tree.
  std::optional<std::string> tree_path(const std::string& path) const;

  void set_check(const CheckInfo* check) { check_ = check; }  // the analyzer's bookkeeping

 private:
  const CmakeFile& facts_;
  FindingSink& sink_;
  const CheckInfo* check_ = nullptr;
};

class CmakeCheck {
 public:
  virtual ~CmakeCheck() = default;
  // Called once per analyzed build description. Must not throw.
  virtual void check(const CmakeFile& facts, CmakeContext& ctx) const = 0;
};

struct CmakeCheckEntry {
  const CheckInfo* info;
  const CmakeCheck* check;
};

}  // namespace tpulint::cmake
