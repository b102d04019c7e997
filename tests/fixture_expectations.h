// Reads the inline expectations of a check fixture: `# expect: TPU201, TPU401` (Python) or
// `// expect: TPU101` (C/C++/CUDA) on a line of its own, describing the next line that is not
// itself an expectation. `ok:` says the check must not fire there, `todo:` marks a known gap
// (it must not fire yet; when it does, the todo is done and must become an expect).
// An expected ID may pin the finding's effort class: `// expect: TPU101[medium]` (what a custom
// kernel is: low = trivial, medium = standard op, high = novel).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint::testing {

struct LineExpectations {
  std::vector<std::string> expect;  // one entry per expected finding (an ID may repeat)
  std::vector<std::pair<std::string, std::string>> effort;  // (ID, effort class) pinned by `ID[class]`
  std::vector<std::string> ok;
  std::vector<std::string> todo;
};

struct FixtureExpectations {
  std::map<unsigned, LineExpectations> by_line;  // 1-based line the expectations describe
  std::vector<std::string> errors;               // malformed expectation comments
  bool has_expect() const;
  bool has(std::string_view kind, std::string_view id) const;  // kind: "expect", "ok", "todo"
};

FixtureExpectations parse_expectations(std::string_view text, std::string_view comment_prefix);

}  // namespace tpulint::testing
