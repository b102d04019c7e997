// libFuzzer target: ignore-file text and a path, as discovery matches them. The input's first
// line is the path (at most PATH_MAX bytes, as discovery's are: a match costs up to pattern
// length * path length), the rest the ignore file. Checks that rules under a directory see a path
// below it as top-level rules see it at the top, and that each line as a Glob stays within its
// step bound and, when short, agrees with tests/glob_reference.h.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/ignore_rules.h"
#include "glob_reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tpulint;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view path = input.substr(0, std::min<size_t>(newline, PATH_MAX));
  const std::string_view text = newline == std::string_view::npos ? "" : input.substr(newline + 1);

  const IgnoreRules top("", text), sub("sub", text);
  const std::string below = "sub/" + std::string(path);
  for (bool is_dir : {false, true})
    if (top.match(path, is_dir) != sub.match(below, is_dir)) __builtin_trap();
  IgnoreStack stack;
  stack.push(top);
  stack.push(sub);
  stack.ignored(below, true);

  // The reference recurses per character, and costs pattern * path^2: short inputs only.
  constexpr size_t kReferenceMax = 64;
  for (size_t begin = 0; begin <= text.size();) {
    const size_t end = std::min(text.find('\n', begin), text.size());
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    const Glob glob(line);
    size_t steps = 0;
    const bool matched = glob.matches(path, steps);
    if (steps > (glob.size() + 1) * path.size()) __builtin_trap();
    if (line.size() <= kReferenceMax && path.size() <= kReferenceMax &&
        matched != testing::ReferenceGlob(line, path).matches())
      __builtin_trap();
    path_or_parent_matches(line, path);
  }
  return 0;
}
