// Runs one Python check (by ID) over one file, without the semantic model: what the check itself
// reports, for tests of a check's per-finding details that fixtures do not show.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "checks/registry.h"
#include "python/python_analyzer.h"

namespace tpulint::testing {

inline FileResult run_python_check(std::string_view id, const std::string& code) {
  std::vector<std::string_view> ids{id};
  auto entries = checks::python_checks(ids);
  REQUIRE(entries.size() == 1);
  python::PythonAnalyzer analyzer(entries);
  SourceFile file("pkg/mod.py", "/tmp/pkg/mod.py", Language::Python, code);
  FileResult result;
  analyzer.analyze(file, result);
  return result;
}

}  // namespace tpulint::testing
