#include "fixture_expectations.h"

#include <regex>
#include <sstream>

namespace tpulint::testing {

bool FixtureExpectations::has_expect() const {
  for (const auto& [line, e] : by_line)
    if (!e.expect.empty()) return true;
  return false;
}

bool FixtureExpectations::has(std::string_view kind, std::string_view id) const {
  for (const auto& [line, e] : by_line) {
    const auto& list = kind == "expect" ? e.expect : kind == "ok" ? e.ok : e.todo;
    for (const auto& x : list)
      if (x == id) return true;
  }
  return false;
}

FixtureExpectations parse_expectations(std::string_view text, std::string_view comment_prefix) {
  FixtureExpectations out;
  const std::regex directive("^\\s*" + std::string(comment_prefix == "#" ? "#" : "//") +
                             "\\s*(expect|ok|todo):\\s*(.*?)\\s*$");
  const std::regex id("^(TPU[0-9]{3})(\\[(none|low|medium|high)\\])?$");
  LineExpectations pending;
  bool has_pending = false;
  std::istringstream in{std::string(text)};
  std::string line;
  for (unsigned lineno = 1; std::getline(in, line); ++lineno) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, directive)) {
      std::string kind = m[1], list = m[2];
      std::stringstream ids(list);
      std::string item;
      bool empty = true;
      while (std::getline(ids, item, ',')) {
        empty = false;
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        std::smatch parts;
        if (!std::regex_match(item, parts, id) || (parts[2].matched && kind != "expect")) {
          out.errors.push_back("line " + std::to_string(lineno) + ": '" + item + "' is not a check ID");
          continue;
        }
        std::string check = parts[1];
        if (parts[2].matched) pending.effort.emplace_back(check, parts[3]);
        (kind == "expect" ? pending.expect : kind == "ok" ? pending.ok : pending.todo).push_back(check);
      }
      if (empty) out.errors.push_back("line " + std::to_string(lineno) + ": no check ID after '" + kind + ":'");
      has_pending = true;
      continue;
    }
    if (has_pending) {
      out.by_line[lineno] = std::move(pending);
      pending = {};
      has_pending = false;
    }
  }
  if (has_pending) out.errors.push_back("expectations at the end of the file describe no line");
  return out;
}

}  // namespace tpulint::testing
