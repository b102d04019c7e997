// Star expressions the pinned grammar cannot read (python/star_expressions.h): which `*` a parse
// with errors reads again as a space, and which it leaves alone.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "python/star_expressions.h"
#include "python/syntax.h"

using namespace tpulint;
using namespace tpulint::python;

namespace {

// The text of each line holding an unread star, with that `*` marked as `^`.
std::vector<std::string> marked(const std::string& text) {
  Parser parser;
  auto tree = parser.parse(text);
  std::string copy = text;
  for (ByteSpan star : unread_star_expressions(*tree)) copy[star.begin] = '^';
  std::vector<std::string> lines;
  size_t begin = 0;
  while (begin < copy.size()) {
    size_t end = copy.find('\n', begin);
    if (end == std::string::npos) end = copy.size();
    std::string line = copy.substr(begin, end - begin);
    if (line.find('^') != std::string::npos) lines.push_back(line);
    begin = end + 1;
  }
  return lines;
}

}  // namespace

TEST_CASE("the grammar reads a star expression in an expression list only before a name", "[python][star]") {
  // What the re-read works around: a tree-sitter-python release that reads these makes it unneeded.
  Parser parser;
  CHECK(!parser.parse("def f(a, b):\n    return a, *b\n")->root().has_error());
  CHECK(parser.parse("def f(a, b):\n    return a, *(b)\n")->root().has_error());
}

TEST_CASE("a star before an operand that is not a name, in an expression list, is read again", "[python][star]") {
  CHECK(marked("def f(dq):\n    return dq, *((None,) * 21)\n") == std::vector<std::string>{"    return dq, ^((None,) * 21)"});
  CHECK(marked("x = a, *[None] * 10\n") == std::vector<std::string>{"x = a, ^[None] * 10"});
  CHECK(marked("for x in *(a), *-b:\n    pass\n") == std::vector<std::string>{"for x in ^(a), ^-b:"});
  CHECK(marked("t[*(i)] = 0\n") == std::vector<std::string>{"t[^(i)] = 0"});
  CHECK(marked("x += 1, *'ab'\n") == std::vector<std::string>{"x += 1, ^'ab'"});
}

TEST_CASE("a star that is not an unread star expression is left alone", "[python][star]") {
  // Products, parameter lists, star imports and splats the grammar reads, on an error's line.
  CHECK(marked("def f(*, a): return a * (a), *(a)\n") == std::vector<std::string>{"def f(*, a): return a * (a), ^(a)"});
  CHECK(marked("from m import *; x = f(*(a)), *(b)\n") == std::vector<std::string>{"from m import *; x = f(*(a)), ^(b)"});
  // Not Python: `*` before `not` or `lambda` stays an error.
  CHECK(marked("x = a, *not b\n").empty());
  CHECK(marked("x = a, *lambda: b\n").empty());
  // Only on the lines of an error: a file that parses is read once.
  CHECK(marked("x = [*(a), *(b)]\ny = (*(a), 1)\n").empty());
  CHECK(marked("y = [*(a)]\ndef broken(x)\n    return x\n").empty());
}

TEST_CASE("syntax errors are counted as ERROR and MISSING nodes", "[python][star]") {
  Parser parser;
  CHECK(syntax_error_count(*parser.parse("x = 1\n")) == 0);
  CHECK(syntax_error_count(*parser.parse("def f(x)\n    return x\n")) >= 1);
}
