// .gitignore semantics: globs, anchoring, directory-only rules, negation, precedence.
#include <catch2/catch.hpp>

#include "core/ignore_rules.h"

using namespace tpulint;

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
