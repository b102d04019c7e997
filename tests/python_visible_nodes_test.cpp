// tpulint_visible_nodes reads tree-sitter's internal subtrees; it must list exactly what a
// TSTreeCursor walk from the root reports (order, span, parent, extent of each subtree, symbol,
// field, flags), on every Python fixture, on inputs chosen for tree-sitter's aliases, extras and
// error recovery, and on thousands of damaged copies of the fixtures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "python/syntax.h"
#include "python/visible_nodes.h"

using namespace tpulint::python;

namespace {

// The cursor's view, in the walk's order.
std::vector<TpulintVisibleNode> cursor_walk(const TSTree* tree) {
  std::vector<TpulintVisibleNode> out;
  std::vector<uint32_t> open;  // ids of the current node's ancestors
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    uint8_t flags = (ts_node_is_named(n) ? TPULINT_VISIBLE_NAMED : 0) | (ts_node_is_missing(n) ? TPULINT_VISIBLE_MISSING : 0) |
                    (ts_node_has_error(n) ? TPULINT_VISIBLE_HAS_ERROR : 0) | (ts_node_is_error(n) ? TPULINT_VISIBLE_ERROR : 0);
    out.push_back(TpulintVisibleNode{ts_node_start_byte(n), ts_node_end_byte(n), open.empty() ? UINT32_MAX : open.back(), 0,
                                     ts_node_symbol(n), ts_tree_cursor_current_field_id(&cursor), flags});
    open.push_back(uint32_t(out.size() - 1));
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    for (;;) {
      out[open.back()].subtree_end = uint32_t(out.size());
      open.pop_back();
      if (ts_tree_cursor_goto_next_sibling(&cursor)) break;
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return out;
      }
    }
  }
}

struct Comparison {
  size_t inputs = 0, nodes = 0, with_errors = 0, mismatches = 0;
  std::string first_mismatch;

  void compare(const std::string& text, Parser& parser) {
    auto tree = parser.parse(text);
    std::vector<TpulintVisibleNode> expected = cursor_walk(tree->raw());
    std::vector<TpulintVisibleNode> listed(expected.size());
    size_t count = tpulint_visible_nodes(tree->raw(), listed.data(), listed.size());
    ++inputs;
    nodes += expected.size();
    if (ts_node_has_error(ts_tree_root_node(tree->raw()))) ++with_errors;
    std::string what;
    if (count != expected.size()) {
      what = "count " + std::to_string(count) + " against " + std::to_string(expected.size());
    } else {
      for (size_t i = 0; i < count && what.empty(); ++i) {
        const TpulintVisibleNode &a = listed[i], &e = expected[i];
        if (a.start_byte != e.start_byte || a.end_byte != e.end_byte) what = "span";
        else if (a.parent != e.parent) what = "parent";
        else if (a.subtree_end != e.subtree_end) what = "subtree end";
        else if (a.symbol != e.symbol) what = "symbol";
        else if (a.field != e.field) what = "field";
        else if (a.flags != e.flags) what = "flags";
        if (!what.empty())
          what += " of node " + std::to_string(i) + " at byte " + std::to_string(e.start_byte) + " (" +
                  ts_language_symbol_name(language(), e.symbol) + ")";
      }
    }
    if (!what.empty() && !mismatches++) first_mismatch = what + " in:\n" + text.substr(0, 2000);
  }
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> python_fixtures() {
  std::vector<std::string> texts;
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TPULINT_SOURCE_DIR "/fixtures"))
    if (entry.path().extension() == ".py") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());  // the damaged copies below are the same on every run
  for (const auto& p : paths) texts.push_back(read_file(p));
  return texts;
}

}  // namespace

TEST_CASE("the visible-node walk lists what a tree-sitter cursor visits, on every Python fixture", "[python][syntax]") {
  Parser parser;
  Comparison result;
  for (const std::string& text : python_fixtures()) result.compare(text, parser);
  INFO(result.first_mismatch);
  CHECK(result.inputs > 100);
  CHECK(result.nodes > 100000);
  CHECK(result.mismatches == 0);
}

TEST_CASE("the visible-node walk agrees with the cursor on aliases, comments and broken code", "[python][syntax]") {
  // Each names what it is there for: the grammar's aliases (as_pattern_target, format_expression,
  // block, identifier from a keyword, list_splat, parenthesized_expression), comments (extras)
  // between a node and its fields, and the ERROR and MISSING nodes of error recovery.
  const std::vector<std::string> inputs = {
      "",
      "# only a comment\n",
      "\xEF\xBB\xBFx = 1\r\ny = 2\r\n",
      "with open(p) as f, lock as (a, b):\n    pass\n",
      "s = f'{x!r:>{width}} and {y=}' f\"{'nested'}\"\n",
      "print = 3\nexec = print\nmatch = type = 1\n",
      "match command:\n    case [x, *rest] if x:\n        pass\n    case {'k': v, **kw}:\n        pass\n    case _:\n        pass\n",
      "def f(a,  # why\n      b=2, *args, c, **kw) -> int:  # returns\n    # body\n    return (a  # inner\n            + b)\n",
      "x = [*a, *b]\ny = (yield)\nz = (lambda: (x := 1))()\n",
      "@decorator  # note\n@other(1)\nclass C(Base, metaclass=M):\n    async def g(self):\n        async with a as b:\n            await b\n",
      "def f(:\n    x = [1, 2\nclass C(\n    @dec\n    def g(self): return self.x[\n",
      "print 'old'\nexec 'code'\nexcept A, B:\n  pass\n",
      "if x:\n\tpass\n        else:\n  y = (\n",
      "x = 1 +\n",
      "def f(a, b\n",
      "a[1:2, ::3, ...] = b if c else d\n",
      "type Alias[T] = list[T]\n",
      std::string(2000, '(') + std::string(2000, ')') + "\n",
      std::string(500, '[') + "\n",
  };
  Parser parser;
  Comparison result;
  for (const std::string& text : inputs) result.compare(text, parser);
  INFO(result.first_mismatch);
  CHECK(result.inputs == inputs.size());
  CHECK(result.with_errors >= 5);
  CHECK(result.mismatches == 0);
}

TEST_CASE("the visible-node walk agrees with the cursor on damaged copies of the fixtures", "[python][syntax]") {
  // Bytes deleted, inserted and swapped at random (a fixed seed): most copies do not parse
  // cleanly, which exercises the error recovery's trees.
  std::vector<std::string> fixtures = python_fixtures();
  REQUIRE(!fixtures.empty());
  std::mt19937 random(20261201);
  const std::string alphabet = "()[]{}:,.=\n\t #'\"\\@*+-x0";
  Parser parser;
  Comparison result;
  for (int copy = 0; copy < 1500; ++copy) {
    std::string text = fixtures[random() % fixtures.size()];
    int edits = 1 + int(random() % 8);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t at = random() % text.size();
      switch (random() % 3) {
        case 0: text.erase(at, 1 + random() % 20); break;
        case 1: text.insert(at, 1, alphabet[random() % alphabet.size()]); break;
        default: text[at] = alphabet[random() % alphabet.size()]; break;
      }
    }
    result.compare(text, parser);
  }
  INFO(result.first_mismatch);
  CHECK(result.inputs == 1500);
  CHECK(result.with_errors > 1000);
  CHECK(result.mismatches == 0);
}

TEST_CASE("the visible-node walk reports its count when the buffer is too small, and writes no further",
          "[python][syntax]") {
  const std::string text = "import torch\ny = torch.nonzero(x)\n";
  Parser parser;
  auto tree = parser.parse(text);
  size_t count = tpulint_visible_nodes(tree->raw(), nullptr, 0);
  CHECK(count == cursor_walk(tree->raw()).size());
  REQUIRE(count > 4);

  const TpulintVisibleNode canary{7, 7, 7, 7, 7, 7, 7};
  std::vector<TpulintVisibleNode> buffer(count, canary);
  CHECK(tpulint_visible_nodes(tree->raw(), buffer.data(), 3) == count);
  CHECK(buffer[0].start_byte == 0);
  CHECK(buffer[0].parent == UINT32_MAX);
  for (size_t i = 3; i < count; ++i) CHECK(buffer[i].start_byte == 7);
  // The node table of a Tree is the full list.
  CHECK(tree->node_count() == count);
}
