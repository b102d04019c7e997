// The CMake frontend: lexes a CMakeLists.txt or *.cmake file as text (it never runs cmake),
// evaluates its variables, and calls each enabled check once on the result. A file the lexer
// cannot read to its end gets a TPU901 note; the commands before the error are still checked.
#pragma once

#include <span>
#include <vector>

#include "cmake/cmake_check.h"
#include "core/finding.h"
#include "core/source_file.h"

namespace tpulint::cmake {

// The directories a file's path variables stand for (see Directories): its own directory;
// the nearest directory at or above it, inside the scan root, whose CMakeLists.txt calls
// project(); the scan root as CMAKE_SOURCE_DIR when its CMakeLists.txt calls project().
Directories directories_of(const SourceFile& file);

class CmakeAnalyzer {
 public:
  CmakeAnalyzer(std::span<const CmakeCheckEntry> checks, bool syntax_notes)
      : checks_(checks.begin(), checks.end()), syntax_notes_(syntax_notes) {}
  void analyze(const SourceFile& file, FileResult& result) const;

 private:
  std::vector<CmakeCheckEntry> checks_;
  bool syntax_notes_;
};

}  // namespace tpulint::cmake
