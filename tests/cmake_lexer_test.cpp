// The CMake frontend's lexer and evaluator: the command syntax of cmake-language(7), and
// malformed input, which must stop the lexer with an error, never crash or hang it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cmake/evaluator.h"
#include "cmake/lexer.h"
#include "temp_dir.h"

using namespace tpulint;
using namespace tpulint::cmake;

namespace {

std::vector<std::string> texts(const Command& c) {
  std::vector<std::string> out;
  for (const Argument& a : c.arguments) out.push_back(a.text);
  return out;
}

// The values of each command of `text`, with unresolved ones shown as "?".
std::vector<std::vector<std::string>> evaluated(const std::string& text, const Directories& dirs) {
  Lexed lexed = lex(text);
  REQUIRE_FALSE(lexed.error);
  std::vector<std::vector<std::string>> out;
  for (const EvaluatedCommand& e : evaluate(lexed.commands, dirs)) {
    out.emplace_back();
    for (const Value& v : e.values) out.back().push_back(v.resolved ? v.text : "?");
  }
  return out;
}

Directories dirs_at(const std::string& dir) {
  Directories d;
  d.scan_root = d.list_dir = dir;
  d.source_dir = dir;
  return d;
}

}  // namespace

TEST_CASE("cmake lexer: commands, arguments and their positions", "[cmake]") {
  Lexed l = lex("cmake_minimum_required(VERSION 3.18)\n"
                "PyBind11_Add_Module (_ext  src/a.cpp\n"
                "    \"src/b c.cu\" # a comment\n"
                "    [[raw ${X}]] [==[x]]y]==])\n");
  REQUIRE_FALSE(l.error);
  REQUIRE(l.commands.size() == 2);
  CHECK(l.commands[0].name == "cmake_minimum_required");
  CHECK(texts(l.commands[0]) == std::vector<std::string>{"VERSION", "3.18"});
  const Command& c = l.commands[1];
  CHECK(c.name == "pybind11_add_module");  // command names are case-insensitive
  CHECK(c.start == Position{2, 1});
  CHECK(texts(c) == std::vector<std::string>{"_ext", "src/a.cpp", "src/b c.cu", "raw ${X}", "x]]y"});
  CHECK(c.arguments[2].kind == ArgumentKind::Quoted);
  CHECK(c.arguments[2].start == Position{3, 5});
  CHECK(c.arguments[3].kind == ArgumentKind::Bracket);
  CHECK(c.arguments[4].kind == ArgumentKind::Bracket);
  CHECK(c.arguments[4].start == Position{4, 18});
}

TEST_CASE("cmake lexer: comments, continuations, escapes and nested parentheses", "[cmake]") {
  Lexed l = lex("#[[ a bracket comment\n add_library(hidden SHARED x.cu) ]]\n"
                "#[=[ another ]] ]=]\n"
                "if((A OR B) AND C)\n"
                "set(X \"one \\\n two\" a\\;b -DQ=\"r s\" #[[inline]] last)\n");
  REQUIRE_FALSE(l.error);
  REQUIRE(l.commands.size() == 2);
  CHECK(texts(l.commands[0]) == std::vector<std::string>{"(", "A", "OR", "B", ")", "AND", "C"});
  CHECK(texts(l.commands[1]) == std::vector<std::string>{"X", "one  two", "a\\;b", "-DQ=\"r s\"", "last"});
  CHECK(l.commands[1].start.line == 5);
}

TEST_CASE("cmake lexer: malformed input stops with an error, keeping the commands before it", "[cmake]") {
  struct Case {
    std::string text;
    std::string message;
    Position at;
  };
  const std::vector<Case> cases = {
      {"project(p)\nadd_library(x SHARED a.cu\n", "missing ')' closing the arguments of 'add_library'", {2, 1}},
      {"project(p)\nset(X \"open\n", "unterminated quoted argument", {2, 7}},
      {"project(p)\nset(X [==[never closed]=])\n", "unterminated bracket argument", {2, 7}},
      {"project(p)\n#[[ comment\n", "unterminated bracket comment", {2, 2}},
      {"project(p)\nnot a command\n", "expected '(' after the command name 'not'", {2, 5}},
      {"project(p)\n)\n", "expected a command name, found ')'", {2, 1}},
      {"project(p)\nset(X a\\", "a backslash at the end of the file", {2, 8}},
      {"project(p)\nif(((((\n", "missing ')' closing the arguments of 'if'", {2, 1}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    Lexed l = lex(c.text);
    REQUIRE(l.error);
    CHECK(l.error->message == c.message);
    CHECK(l.error->start == c.at);
    REQUIRE(l.commands.size() == 1);
    CHECK(l.commands[0].name == "project");
  }
  // Deep nesting and long garbage finish (no recursion, no quadratic rescans).
  std::string deep = "f(" + std::string(100000, '(') + std::string(100001, ')');
  CHECK_FALSE(lex(deep).error);
  CHECK(lex(std::string(200000, '"')).error);
  CHECK(lex("").commands.empty());
}

TEST_CASE("cmake evaluator: set, list(APPEND) and ${VAR} expansion, never guessing", "[cmake]") {
  auto v = evaluated("set(SRC a.cpp b.cu)\n"
                     "list(APPEND SRC \"c d.cu\")\n"
                     "f(${SRC})\n"
                     "f(\"${SRC}\")\n"
                     "f(${CMAKE_CURRENT_SOURCE_DIR}/k.cu ${CMAKE_CURRENT_LIST_DIR})\n"
                     "f(${UNKNOWN} ${UNKNOWN}/x.cu keep $<TARGET_FILE:t> $ENV{HOME})\n"
                     "set(N SR)\nf(${${N}C})\n"
                     "set(OPT x CACHE STRING \"doc\")\nset(P y PARENT_SCOPE)\nf(${OPT} ${P})\n"
                     "option(SRC \"\" ON)\nf(${SRC})\n"
                     "function(make name)\n  add_library(${name} SHARED ${ARGN})\nendfunction()\n",
                     dirs_at("/r/pkg"));
  REQUIRE(v.size() == 16);
  CHECK(v[2] == std::vector<std::string>{"a.cpp", "b.cu", "c d.cu"});
  CHECK(v[3] == std::vector<std::string>{"a.cpp;b.cu;c d.cu"});
  CHECK(v[4] == std::vector<std::string>{"/r/pkg/k.cu", "/r/pkg"});
  CHECK(v[5] == std::vector<std::string>{"?", "?", "keep", "?", "?"});
  CHECK(v[7] == std::vector<std::string>{"a.cpp", "b.cu", "c d.cu"});  // ${${N}C} is ${SRC}
  CHECK(v[10] == std::vector<std::string>{"?", "?"});  // a cache entry's value is the user's; PARENT_SCOPE is not ours
  CHECK(v[12] == std::vector<std::string>{"?"});
  CHECK(v[14] == std::vector<std::string>{"?", "SHARED", "?"});
}

TEST_CASE("cmake evaluator: project() and file(GLOB) against the tree", "[cmake]") {
  tpulint::testing::TempDir dir;
  dir.write("csrc/a.cu", "");
  dir.write("csrc/b.cpp", "");
  dir.write("csrc/sub/c.cu", "");
  Directories d = dirs_at(dir.path().string());
  auto v = evaluated("project(demo LANGUAGES CXX CUDA)\n"
                     "f(${PROJECT_SOURCE_DIR} ${demo_SOURCE_DIR})\n"
                     "file(GLOB KERNELS CONFIGURE_DEPENDS csrc/*.cu)\n"
                     "file(GLOB_RECURSE ALL RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/csrc/*.cu)\n"
                     "file(GLOB BAD csrc/*/*.cu)\n"
                     "file(GLOB OUT ../*.cu)\n"
                     "f(${KERNELS} | ${ALL} | ${BAD} | ${OUT})\n",
                     d);
  const std::string root = dir.path().string();
  CHECK(v[1] == std::vector<std::string>{root, root});
  CHECK(v[6] == std::vector<std::string>{root + "/csrc/a.cu", "|", "csrc/a.cu", "csrc/sub/c.cu", "|", "?", "|", "?"});
}
