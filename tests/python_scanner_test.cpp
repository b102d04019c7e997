// tree-sitter-python's external scanner as tpulint builds it (grammars/patches/): a parse steps
// the lexer a few times per byte whatever runs of comment lines and line continuations the file
// holds, and the trees are those of the unpatched scanner.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tree_sitter/api.h>

#include "repeated_text.h"
#include "python/parse_arena.h"
#include "python/syntax.h"

using namespace tpulint::python;

namespace {

using tpulint::testing::repeat;

// The characters tree-sitter's lexer stepped over or consumed to parse `text` (it logs each one).
size_t lexer_steps(const std::string& text) {
  size_t steps = 0;
  TSParser* parser = ts_parser_new();
  REQUIRE(ts_parser_set_language(parser, language()));
  TSLogger logger{&steps, [](void* payload, TSLogType type, const char* message) {
                    if (type == TSLogTypeLex && (std::strncmp(message, "skip character", 14) == 0 ||
                                                 std::strncmp(message, "consume character", 17) == 0))
                      ++*static_cast<size_t*>(payload);
                  }};
  ts_parser_set_logger(parser, logger);
  ts_tree_delete(ts_parser_parse_string(parser, nullptr, text.data(), uint32_t(text.size())));
  ts_parser_delete(parser);
  return steps;
}

std::string sexp(const std::string& text) {
  ParseArena arena;
  ParseArena::Scope memory(arena);
  Parser parser;
  return to_sexp(*parser.parse(text));
}

}  // namespace

// The scanner stepped over the rest of such a run again at each of its lines: 2,000 comment lines
// after a statement took 34 million lexer steps, 1,000 per byte of the file.
TEST_CASE("runs of comment lines and line continuations cost the parser a few lexer steps per byte",
          "[python][scanner]") {
  const std::string comment = "# commented-out code: x = torch.zeros(3)\n";
  const std::vector<std::pair<const char*, std::string>> inputs = {
      {"comments after a statement", "x = 1\n" + repeat(comment, 2000) + "y = 2\n"},
      {"comments in a block, then its code", "def f():\n    x = 1\n" + repeat("    " + comment, 2000) + "    return x\n"},
      {"comments at column 0 in a block", "def f():\n    x = 1\n" + repeat(comment, 2000) + "    return x\ny = 2\n"},
      {"comments before a block's first line", "if x:\n" + repeat(comment, 2000) + "    y = 1\n"},
      {"comments where a block is missing", "if x:\n" + repeat(comment, 2000) + "y = 1\n"},
      {"comments between blank lines", "def f():\n    x = 1\n" + repeat("\n\n" + comment, 2000) + "    return x\n"},
      {"continuations after a statement", "x = 1\n" + repeat("\\\n", 5000) + "y = 2\n"},
      {"indented continuations", "x = 1\n" + repeat("  \\\n", 5000) + "y = 2\n"},
      {"continuations after an operator", "x = 1 + \\\n" + repeat("\\\n", 5000) + "2\n"},
      {"continuations before a string", "x = 1 + \\\n" + repeat("\\\n", 5000) + "'s'\n"},
      {"continuations in brackets", "x = [\\\n" + repeat("\\\n", 5000) + "1]\n"},
      {"continuations in a block", "def f():\n    x = 1\n" + repeat("\\\n", 5000) + "    y = 1\n"},
      {"comments and continuations", "def f():\n    x = 1\n" + repeat(comment + "\\\n", 2000) + "    y = 1\n"},
  };
  for (const auto& [what, text] : inputs) {
    INFO(what << ": " << text.size() << " bytes");
    CHECK(lexer_steps(text) <= 16 * text.size());
  }
}

TEST_CASE("the scanner places comments and continuations as tree-sitter-python 0.25.0 does", "[python][scanner]") {
  // Runs long enough for what one scan found to be read back by the next ones.
  const std::string comment = "# commented-out code: x = torch.zeros(3)\n";
  std::string comments = repeat("(comment) ", 20);
  CHECK(sexp("class C:\n    def f(self):\n        x = 1\n" + repeat(comment, 20) + "        return x\n" +
             repeat(comment, 20) + "    def g(self):\n        pass\n") ==
        "(module (class_definition name: (identifier) body: (block (function_definition name: (identifier) "
        "parameters: (parameters (identifier)) body: (block (expression_statement (assignment left: (identifier) "
        "right: (integer))) " + comments + "(return_statement (identifier)))) " + comments +
        "(function_definition name: (identifier) parameters: (parameters (identifier)) body: (block "
        "(pass_statement))))))");
  CHECK(sexp("if x:\n" + repeat(comment, 20) + "    y = 1\nz = (1 +\n" + repeat("\\\n", 300) + "2)\n") ==
        "(module (if_statement condition: (identifier) " + comments +
        "consequence: (block (expression_statement (assignment left: (identifier) right: (integer))))) "
        "(expression_statement (assignment left: (identifier) right: (parenthesized_expression (binary_operator "
        "left: (integer) " + repeat("(line_continuation) ", 300) + "right: (integer))))))");
}
