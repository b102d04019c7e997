// .gitignore semantics: globs, anchoring, directory-only rules, negation, precedence.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "core/ignore_rules.h"
#include "glob_reference.h"

using namespace tpulint;

namespace {

// Up to `max_length` characters drawn from `chars`.
std::string random_text(std::mt19937& random, std::string_view chars, size_t max_length) {
  std::string s(random() % (max_length + 1), ' ');
  for (char& c : s) c = chars[random() % chars.size()];
  return s;
}

}  // namespace

TEST_CASE("glob_match follows git's wildmatch with pathnames", "[core][ignore]") {
  CHECK(glob_match("*.py", "train.py"));
  CHECK_FALSE(glob_match("*.py", "pkg/train.py"));  // '*' does not cross '/'
  CHECK(glob_match("**/*.py", "pkg/sub/train.py"));
  CHECK(glob_match("**/*.py", "train.py"));  // '**/' matches zero directories
  CHECK(glob_match("pkg/**", "pkg/a/b.cu"));
  CHECK(glob_match("a/**/b", "a/b"));
  CHECK(glob_match("a/**/b", "a/x/y/b"));
  CHECK_FALSE(glob_match("a/**/b", "a/x/y/c"));
  CHECK(glob_match("file?.cu", "file1.cu"));
  CHECK_FALSE(glob_match("file?.cu", "file/.cu"));
  CHECK(glob_match("[abc].py", "b.py"));
  CHECK_FALSE(glob_match("[!abc].py", "b.py"));
  CHECK(glob_match("[a-c]x", "bx"));
  CHECK(glob_match("\\*.py", "*.py"));
  CHECK_FALSE(glob_match("\\*.py", "a.py"));
  CHECK(glob_match("[unterminated", "[unterminated"));
}

TEST_CASE("an unanchored rule matches a name at any depth", "[core][ignore]") {
  IgnoreRules rules("", "generated\n*.pyc\n");
  CHECK(rules.match("generated", true) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("a/b/generated", false) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("a/x.pyc", false) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("a/x.py", false) == IgnoreRules::Match::None);
}

TEST_CASE("a rule with a slash is anchored to its file's directory", "[core][ignore]") {
  IgnoreRules rules("sub", "/third_party\ndocs/build\n");
  CHECK(rules.match("sub/third_party", true) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("sub/x/third_party", true) == IgnoreRules::Match::None);
  CHECK(rules.match("sub/docs/build", true) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("other/docs/build", true) == IgnoreRules::Match::None);  // outside the file's directory
}

TEST_CASE("a trailing slash matches directories only", "[core][ignore]") {
  IgnoreRules rules("", "out/\n");
  CHECK(rules.match("out", true) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("out", false) == IgnoreRules::Match::None);
}

TEST_CASE("the last matching rule decides, and negation re-includes", "[core][ignore]") {
  IgnoreRules rules("", "*.py\n!keep.py\n# a comment\n\n\\#literal.py\n");
  CHECK(rules.match("drop.py", false) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("keep.py", false) == IgnoreRules::Match::Include);
  CHECK(rules.match("#literal.py", false) == IgnoreRules::Match::Ignore);
}

TEST_CASE("CRLF line endings and trailing spaces in ignore files are tolerated", "[core][ignore]") {
  IgnoreRules rules("", "a.py  \r\nb.py\r\n");
  CHECK(rules.match("a.py", false) == IgnoreRules::Match::Ignore);
  CHECK(rules.match("b.py", false) == IgnoreRules::Match::Ignore);
}

TEST_CASE("an inner ignore file overrides an outer one", "[core][ignore]") {
  IgnoreStack stack;
  stack.push(IgnoreRules("", "*.cu\n"));
  stack.push(IgnoreRules("kernels", "!*.cu\n"));
  CHECK(stack.ignored("a.cu", false));
  CHECK_FALSE(stack.ignored("kernels/a.cu", false));
  stack.pop();
  CHECK(stack.ignored("kernels/a.cu", false));
}

// Stars each retried every later star's every length: 30 characters took 508 million calls of
// the recursive matcher, and 100 (a file name) would have taken years, in the parent process.
TEST_CASE("regression: a pattern of many stars took time exponential in the path's length", "[core][ignore]") {
  const Glob glob("*a*a*a*a*a*a*a*a*a*a*a*a*b");
  const std::string name(100, 'a');
  size_t steps = 0;
  CHECK_FALSE(glob.matches(name, steps));
  CHECK(steps <= (glob.size() + 1) * name.size());
  steps = 0;
  CHECK(glob.matches(name + "b", steps));
  CHECK(steps <= (glob.size() + 1) * (name.size() + 1));
}

// The recursive matcher took a stack frame per "**/": a .gitignore line of 100,000 of them
// crashed the scan (tests/e2e_bad_input_test.cpp runs it through the binary).
TEST_CASE("regression: a run of 100,000 '**/' overflowed the stack", "[core][ignore]") {
  std::string pattern;
  for (int i = 0; i < 100000; ++i) pattern += "**/";
  const Glob dirs(pattern + "b");
  CHECK(dirs.size() == Glob("**/b").size());  // the run is one position
  for (std::string_view path : {"b", "a/b", "a/c/b"}) {
    size_t steps = 0;
    CHECK(dirs.matches(path, steps));
    CHECK(steps <= (dirs.size() + 1) * path.size());
  }
  CHECK_FALSE(dirs.matches("ab"));
  CHECK_FALSE(dirs.matches("a/c"));
  const Glob anything(pattern + "**");  // "**/" runs ending in "**": the same as "**"
  CHECK(anything.size() == 1);
  CHECK(anything.matches("a/b/c"));
}

TEST_CASE("a line of 100,000 '[' without a ']' is that many literal characters", "[core][ignore]") {
  const std::string brackets(100000, '[');
  CHECK(glob_match(brackets, brackets));
  CHECK_FALSE(glob_match(brackets, brackets.substr(1)));
  CHECK(glob_match("[a]" + brackets, "a" + brackets));  // a class closed before them still is one
}

TEST_CASE("glob_match agrees with the reference matcher on random short patterns and paths", "[core][ignore]") {
  // Every construct in a few characters: star runs, '/', '?', classes with '!', '^', '-', '\'
  // and ones left open, and a byte above 0x7F (a negative `char` in class ranges). Half the
  // paths are an instance of their pattern, some with a character changed, so that many match.
  constexpr std::string_view kPatternChars = "aab//**?[]!^\\-\xe9";
  constexpr std::string_view kPathChars = "aaab/]\xe9";
  std::mt19937 random(20261205);
  auto text = [&](std::string_view chars, size_t max_length) { return random_text(random, chars, max_length); };
  auto instance = [&](std::string_view pattern) {
    std::string s;
    for (char c : pattern) {
      if (c == '*') s += text("ab/", 2);
      else if (c == '?') s += 'b';
      else if (c != '\\') s += c;
    }
    if (!s.empty() && random() % 3 == 0) s[random() % s.size()] = kPathChars[random() % kPathChars.size()];
    return s;
  };
  size_t matched = 0;
  constexpr size_t kCases = 100000;
  for (size_t i = 0; i < kCases; ++i) {
    const std::string pattern = text(kPatternChars, 10);
    const std::string path = random() % 2 ? instance(pattern) : text(kPathChars, 8);
    const bool expected = testing::ReferenceGlob(pattern, path).matches();
    const Glob glob(pattern);
    size_t steps = 0;
    if (glob.matches(path, steps) != expected || steps > (glob.size() + 1) * path.size())
      FAIL("pattern '" << pattern << "', path '" << path << "': expected " << expected << ", " << steps << " steps");
    matched += expected;
  }
  CHECK(matched > kCases / 5);  // both outcomes are well represented
}

// Found by fuzz_ignore_rules (one input took 5 s): path_or_parent_matches, behind per-path
// ignores and path weights, called match() on each parent, each a match over the parent: time
// quadratic in the path's length. One pass over the path now answers for the path and its parents.
TEST_CASE("fuzz regression: matching a deep path and its parents took time quadratic in its length",
          "[core][ignore][fuzz]") {
  std::string path;
  for (int i = 0; i < 4000; ++i) path += "d/";
  path += "x.py";
  const Glob glob("**/d/?.py");
  size_t steps = 0;
  CHECK(glob.matched_path_and_parents(path, steps) == std::vector<size_t>{path.size()});
  CHECK(steps <= (glob.size() + 1) * path.size());
  steps = 0;
  const Glob dirs("**/d");
  const std::vector<size_t> parents = dirs.matched_path_and_parents(path, steps);
  CHECK(parents.size() == 4000);
  CHECK(parents.back() == path.size() - 5);
  CHECK(steps <= (dirs.size() + 1) * path.size());
  CHECK(path_or_parent_matches("d/d/", path));
  CHECK_FALSE(path_or_parent_matches("/d/x.py", path));
}

TEST_CASE("ignores_path_or_parent agrees with match() on the path and on each parent", "[core][ignore]") {
  // Rules of every kind (negated, directory-only, anchored, unanchored) in files at the top and
  // below it, against random paths with empty names and '/' at either end.
  constexpr std::string_view kRuleChars = "ab/*!";
  constexpr std::string_view kPathChars = "aab//";
  std::mt19937 random(7);
  auto text = [&](std::string_view chars, size_t max_length) { return random_text(random, chars, max_length); };
  size_t ignored = 0;
  constexpr size_t kCases = 20000;
  for (size_t i = 0; i < kCases; ++i) {
    std::string lines;
    for (size_t n = random() % 4; n > 0; --n) lines += text(kRuleChars, 5) + "\n";
    const IgnoreRules rules(random() % 4 ? "" : "a", lines);
    const std::string path = text(kPathChars, 8);
    bool expected = false;
    for (size_t end = path.size();;) {
      const std::string_view prefix = std::string_view(path).substr(0, end);
      expected = expected || rules.match(prefix, end != path.size()) == IgnoreRules::Match::Ignore;
      const size_t slash = prefix.rfind('/');
      if (slash == std::string_view::npos) break;
      end = slash;
    }
    if (rules.ignores_path_or_parent(path) != expected) FAIL("rules '" << lines << "', path '" << path << "'");
    ignored += expected;
  }
  CHECK(ignored > kCases / 10);
}
