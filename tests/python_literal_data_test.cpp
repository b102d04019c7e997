// Literal data (python/literal_data.h): which runs the parser reads as spaces, and that the tree
// it then builds is the file's own tree less the nodes inside those runs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <tree_sitter/api.h>

#include "repeated_text.h"
#include "python/literal_data.h"
#include "python/parse_arena.h"
#include "python/syntax.h"

namespace fs = std::filesystem;
using namespace tpulint;
using namespace tpulint::python;

namespace {

// The blanked text of each run, as the parser reads it.
std::vector<std::string> runs(const std::string& text, uint32_t min_run) {
  std::vector<std::string> out;
  for (ByteSpan s : literal_data(text, min_run)) out.push_back(text.substr(s.begin, s.end - s.begin));
  return out;
}

// Each node as "field:type begin end", in a cursor's pre-order, but those inside `spans`.
std::vector<std::string> nodes_outside(const Tree& tree, const std::vector<ByteSpan>& spans) {
  std::vector<std::string> out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree.raw()));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&cursor);
    uint32_t begin = ts_node_start_byte(n), end = ts_node_end_byte(n);
    bool inside = false;
    for (ByteSpan s : spans) inside = inside || (begin >= s.begin && end <= s.end && begin < s.end);
    if (!inside) {
      const char* field = ts_tree_cursor_current_field_name(&cursor);
      out.push_back(std::string(field ? field : "") + ":" + ts_node_type(n) + " " + std::to_string(begin) + " " +
                    std::to_string(end));
    }
    if (ts_tree_cursor_goto_first_child(&cursor)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&cursor))
      if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return out;
      }
  }
}

using tpulint::testing::repeat;

}  // namespace

TEST_CASE("literal data: runs of literal elements, from past the first element's comma", "[python][literal_data]") {
  CHECK(runs("x = [1, 2, 3]\n", 3) == std::vector<std::string>{" 2, 3"});
  CHECK(runs("x = (1, -2.5e-3, 0x1F,)\n", 3) == std::vector<std::string>{" -2.5e-3, 0x1F,"});
  CHECK(runs("f(a, 1, 2, 3, b=4)\n", 3) == std::vector<std::string>{" 2, 3,"});
  CHECK(runs("d = {'a': 1, \"b\": None, r'\\'c': ..., b'd' 'e': True}\n", 4) ==
        std::vector<std::string>{" \"b\": None, r'\\'c': ..., b'd' 'e': True"});
  CHECK(runs("x = [1, 2,  # a comment with ] and 'quotes'\n     3, '''a\n,b''', 4]\n", 5) ==
        std::vector<std::string>{" 2,  # a comment with ] and 'quotes'\n     3, '''a\n,b''', 4"});
  // Nested brackets of literals are literal elements; a run inside a run is blanked with it.
  CHECK(runs("m = [[1, 2], [3, 4], [5, 6]]\n", 2) == std::vector<std::string>{" 2", " [3, 4], [5, 6]"});
  // Names, calls, f-strings and comprehensions end a run; what their brackets hold may be one.
  CHECK(runs("x = [1, 2, y, 3, 4, f'{z}', 5, g(6, 7)]\n", 2) == std::vector<std::string>{" 2,", " 4,", " 7"});
  CHECK(runs("x = [1 for _ in range(3)], [2, 3]\n", 2) == std::vector<std::string>{" 3"});
  CHECK(runs("x = [1, 2]\n", 3).empty());
  CHECK(runs("x = 1, 2, 3\n", 2).empty());  // outside brackets
  CHECK(literal_data("x = [" + repeat("1, ", kLiteralDataRun - 1) + "]\n").empty());
  CHECK(literal_data("x = [" + repeat("1, ", kLiteralDataRun) + "]\n").size() == 1);
}

TEST_CASE("literal data: f-strings, escapes and continuations are stepped over as tree-sitter does",
          "[python][literal_data]") {
  // Replacement fields hold code with brackets, strings (the same quote too), commas and format
  // specs with fields of their own; none of it ends or joins the list around.
  std::string fstrings = "x = [1, f'{a[1, 2]}', f\"{b:{w},.{p}}\", f'{c!r:>{n}}', f'{d, e}', F'{f\"{g}\"}', 2, 3]\n";
  CHECK(runs(fstrings, 2) == std::vector<std::string>{" 2", " 3"});
  CHECK(runs("x = [1, '\\', ]', \"\\\"\", 2]\n", 4) == std::vector<std::string>{" '\\', ]', \"\\\"\", 2"});
  CHECK(runs("x = [1, \\\n 2, rb'\\\\', 3]\n", 4) == std::vector<std::string>{" \\\n 2, rb'\\\\', 3"});
  // What does not scan as Python leaves the whole text to the parser.
  for (const std::string& broken : {"x = [1, 2, 3\n", "x = [1, 2, 3)]\n", "x = [1, 'a, 2, 3]\n", "x = [1, 2, 3] \\ y\n",
                                    "x = [1, 2, 3, f'{a'\n", "x = [1, 2, 3, f'{a:1'\n", "x = [1, 2, 3]]\n"}) {
    INFO(broken);
    CHECK(runs(broken, 2).empty());
  }
  // f-strings nested deeper than the scan goes.
  std::string deep = "x = [1, 2, " + repeat("f'{", 100) + "1" + repeat("}'", 100) + "]\n";
  CHECK(runs(deep, 2).empty());
}

TEST_CASE("literal data: the parser's tree is the file's less the nodes in the runs", "[python][literal_data]") {
  // Every Python fixture, with runs as short as two elements, and a data file: nothing outside a
  // run changes (type, field, span), and a tuple stays a tuple.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(TPULINT_SOURCE_DIR) / "fixtures")) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.emplace_back(entry.path().string(), text.str());
  }
  files.emplace_back("data", "import torch\nT = (" + repeat("(1.5, -2, 'a', b\"\\x00\", None), ", 50) +
                                 ")\nD = {" + repeat("'k': [1, 2, {'x': (3,)}], ", 50) + "}\nidx = torch.nonzero(m)\n");
  size_t spans = 0;
  ParseArena arena;
  for (const auto& [path, text] : files) {
    INFO(path);
    std::vector<ByteSpan> data = literal_data(text, 2);
    if (data.empty()) continue;
    spans += data.size();
    std::string blanked = blank(text, data);
    REQUIRE(blanked.size() == text.size());
    ParseArena::Scope memory(arena);
    Parser parser;
    auto original = parser.parse(text);
    auto parsed = parser.parse(text, blanked);
    if (original->root().has_error()) continue;
    CHECK(parsed->text() == text);
    CHECK(nodes_outside(*parsed, data) == nodes_outside(*original, data));
  }
  CHECK(spans > 100);
}
