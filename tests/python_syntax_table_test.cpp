// python::Tree's node table must describe exactly the tree tree-sitter built: for every node of
// every Python fixture (and of broken and re-parsed inputs), its kind, type, span, flags, parent,
// children, named children and fields are compared with tree-sitter's own API.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "python/syntax.h"

using namespace tpulint;
using namespace tpulint::python;

namespace {

// The number of nodes that differ from tree-sitter's view; `compared` counts those visited.
struct Comparison {
  size_t compared = 0;
  size_t mismatches = 0;
  std::string first_mismatch;

  void expect(bool same, const Node& n, std::string_view what) {
    if (same) return;
    if (!mismatches++)
      first_mismatch = std::string(what) + " at byte " + std::to_string(n.span().begin) + " (" + std::string(n.type()) + ")";
  }
};

// Walks tree-sitter's nodes and the table's side by side (an explicit stack: no recursion).
void compare(const Tree& tree, Comparison& out) {
  std::vector<std::pair<TSNode, Node>> stack{{ts_tree_root_node(tree.raw()), tree.root()}};
  while (!stack.empty()) {
    auto [ts, node] = stack.back();
    stack.pop_back();
    ++out.compared;
    out.expect(node.span().begin == ts_node_start_byte(ts) && node.span().end == ts_node_end_byte(ts), node, "span");
    out.expect(node.type() == ts_node_type(ts), node, "type");
    out.expect((node.kind() == Kind::Error) == ts_node_is_error(ts), node, "error kind");
    out.expect(ts_node_is_error(ts) || node.kind() == kind_of_symbol(ts_node_symbol(ts)), node, "kind");
    out.expect(node.is_named() == ts_node_is_named(ts), node, "named");
    out.expect(node.is_missing() == ts_node_is_missing(ts), node, "missing");
    out.expect(node.has_error() == ts_node_has_error(ts), node, "has_error");
    TSNode ts_parent = ts_node_parent(ts);
    out.expect(ts_node_is_null(ts_parent) ? !node.parent()
                                          : node.parent() && node.parent().span().begin == ts_node_start_byte(ts_parent) &&
                                                node.parent().type() == ts_node_type(ts_parent),
               node, "parent");
    out.expect(node.child_count() == ts_node_child_count(ts), node, "child count");
    out.expect(node.named_child_count() == ts_node_named_child_count(ts), node, "named child count");
    for (uint32_t i = 0; i < ts_node_named_child_count(ts); ++i) {
      TSNode c = ts_node_named_child(ts, i);
      Node n = node.named_child(i);
      out.expect(n && n.span().begin == ts_node_start_byte(c) && n.type() == ts_node_type(c), node, "named child");
    }
    for (size_t f = 0; f < size_t(Field::kCount); ++f) {
      TSNode c = ts_node_child_by_field_id(ts, field_id(Field(f)));
      Node n = node.field(Field(f));
      out.expect(ts_node_is_null(c) ? !n : n && n.span().begin == ts_node_start_byte(c) && n.type() == ts_node_type(c),
                 node, "field");
    }
    uint32_t count = std::min(ts_node_child_count(ts), node.child_count());
    for (uint32_t i = count; i-- > 0;) stack.push_back({ts_node_child(ts, i), node.child(i)});
  }
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("the node table agrees with tree-sitter on every node of every Python fixture", "[python][syntax]") {
  Parser parser;
  Comparison result;
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TPULINT_SOURCE_DIR "/fixtures")) {
    if (entry.path().extension() != ".py") continue;
    std::string text = read_file(entry.path());
    auto tree = parser.parse(text);
    compare(*tree, result);
    ++files;
  }
  INFO(result.first_mismatch);
  CHECK(files > 100);
  CHECK(result.compared > 50000);
  CHECK(result.mismatches == 0);
}

TEST_CASE("the node table agrees with tree-sitter on broken input and on a re-parsed range", "[python][syntax]") {
  const std::string broken =
      "def f(:\n    x = [1, 2\nclass C(\n    @dec\n    def g(self): return self.x[\n"
      "y = torch.nonzero(x)\nprint 'old'\nlambda: (yield)\nexcept A, B:\n  pass\n";
  Parser parser;
  Comparison result;
  auto tree = parser.parse(broken);
  compare(*tree, result);
  size_t start = broken.find("y = ");
  auto range = parser.parse_range(broken, uint32_t(start), uint32_t(broken.size()));
  compare(*range, result);
  INFO(result.first_mismatch);
  CHECK(result.compared > 40);
  CHECK(result.mismatches == 0);
}

TEST_CASE("named_descendant_for_span finds the smallest named node holding the span", "[python][syntax]") {
  const std::string text = "import torch\ny = torch.nonzero(x)\n";
  auto tree = Parser().parse(text);
  size_t at = text.find("nonzero");
  Node n = tree->named_descendant_for_span({uint32_t(at), uint32_t(at + 7)});
  CHECK(n.kind() == Kind::Identifier);
  CHECK(n.text() == "nonzero");
  CHECK(n.parent().kind() == Kind::Attribute);
  at = text.find("torch.nonzero(x)");
  Node call = tree->named_descendant_for_span({uint32_t(at), uint32_t(at + 16)});
  CHECK(call.kind() == Kind::Call);
  CHECK(tree->named_descendant_for_span({0, uint32_t(text.size())}) == tree->root());
}

TEST_CASE("named_descendant_for_span agrees with a child-by-child descent on every fixture", "[python][syntax]") {
  // It searches each node's children by binary search (a module or list can have a great many:
  // a search per name was quadratic in them); the first child holding the span, in order, is the one.
  auto linear = [](const Tree& tree, ByteSpan span) {
    Node at = tree.root(), named = tree.root();
    for (bool descended = true; descended;) {
      descended = false;
      for (uint32_t k = 0; k < at.child_count(); ++k) {
        Node c = at.child(k);
        if (c.span().begin <= span.begin && span.end <= c.span().end && c.span().end > c.span().begin) {
          at = c;
          if (c.is_named()) named = c;
          descended = true;
          break;
        }
      }
    }
    return named;
  };
  std::vector<std::string> texts = {"def f(:\n    x = [1, 2\nclass C(\n    y = torch.nonzero(x)\nprint 'old'\n"};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TPULINT_SOURCE_DIR "/fixtures"))
    if (entry.path().extension() == ".py") texts.push_back(read_file(entry.path()));
  size_t compared = 0;
  Parser parser;
  for (const std::string& text : texts) {
    auto tree = parser.parse(text);
    auto size = uint32_t(text.size());
    for (uint32_t begin = 0; begin <= size; begin += 1 + begin % 7)
      for (uint32_t length : {0u, 1u, 3u, 10u})
        if (begin + length <= size) {
          ByteSpan span{begin, begin + length};
          INFO(begin << " " << length);
          REQUIRE(tree->named_descendant_for_span(span) == linear(*tree, span));
          ++compared;
        }
  }
  CHECK(compared > 10000);
}

TEST_CASE("chain_root and enclosing_function agree with a plain walk, on every fixture and on long chains",
          "[python][syntax]") {
  // Both keep what they find past a few links or ancestors (a check asks them of every link of a
  // chain, or of every node of a deep nest); the answers must be a plain walk's, asked in any order.
  size_t long_chains = 0;  // walks of more links than are walked without keeping the answers
  auto chain_root = [&](Node n) {
    for (int links = 0;; ++links) {
      if (n.kind() == Kind::Attribute) n = n.field(Field::Object);
      else if (n.kind() == Kind::Call) n = n.field(Field::Function);
      else if (n.kind() == Kind::Subscript) n = n.field(Field::Value);
      else if (n.type() == "parenthesized_expression" && n.named_child_count() == 1) n = n.named_child(0);
      else {
        long_chains += links > 16;
        return n;
      }
    }
  };
  auto enclosing_function = [](Node n) {
    for (Node a = n.parent(); a; a = a.parent())
      if (a.kind() == Kind::FunctionDefinition) return a;
    return Node();
  };
  std::string chain = "x = (a", nest = "y = 1\n";
  for (int i = 0; i < 300; ++i) {
    chain += i % 3 == 0 ? ".b" : i % 3 == 1 ? "(c)[0]" : ")";
    if (i % 3 == 2) chain.insert(4, "(");
    nest += std::string(size_t(i % 40) * 4, ' ') + (i % 40 == 39 ? "z = (((1)))\n" : "def f():\n");
  }
  std::vector<std::string> texts = {chain + "\n", nest + std::string(160, ' ') + "pass\n"};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TPULINT_SOURCE_DIR "/fixtures"))
    if (entry.path().extension() == ".py") texts.push_back(read_file(entry.path()));
  Parser parser;
  for (const std::string& text : texts) {
    auto tree = parser.parse(text);
    // Innermost nodes first, then outermost: memos filled from both ends.
    for (bool reverse : {true, false})
      for (uint32_t k = 0; k < tree->node_count(); ++k) {
        Node n(tree.get(), reverse ? tree->node_count() - 1 - k : k);
        REQUIRE(tree->chain_root(n) == chain_root(n));
        REQUIRE(tree->enclosing_function(n) == enclosing_function(n));
      }
  }
  CHECK(long_chains > 100);
}

TEST_CASE("a walk by ids visits nodes in source order and subtree_end skips exactly a subtree", "[python][syntax]") {
  const std::string text = "def f(a):\n    return g(a, b)\nx = 1\n";
  auto tree = Parser().parse(text);
  uint32_t last_begin = 0;
  for (uint32_t id = 0; id < tree->node_count(); ++id) {
    Node n(tree.get(), id);
    CHECK(n.span().begin >= last_begin);
    last_begin = n.span().begin;
    // Every node between n and its subtree end is a descendant of n.
    for (uint32_t d = id + 1; d < tree->subtree_end(n); ++d) {
      Node a = Node(tree.get(), d).parent();
      while (a && !(a == n)) a = a.parent();
      CHECK(a == n);
    }
  }
  Node function = tree->root().named_child(0);
  REQUIRE(function.kind() == Kind::FunctionDefinition);
  CHECK(Node(tree.get(), tree->subtree_end(function)).span().begin == text.find("x = 1"));
}
