#include "python/star_expressions.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "python/syntax.h"

namespace tpulint::python {

namespace {

// Tokens after which a `*` starts an element of an expression list, not a product.
constexpr std::array<std::string_view, 19> kBeforeStar = {
    ",", "=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=", ">>=", "<<=",
    "return", "yield", "in", "["};

// Whether `token` starts an operand that is not a name: only such a star expression is unread.
// `*not x` and `*lambda: x` are not Python, and are left to stay errors.
bool starts_unnamed_operand(Node token) {
  std::string_view text = token.text();
  if (token.type() == "string_start") return true;
  if (text == "None" || text == "True" || text == "False" || text == "await") return true;
  return !text.empty() && std::string_view("([{-+~.0123456789\"'").find(text.front()) != std::string_view::npos;
}

uint32_t line_begin(std::string_view text, uint32_t at) {
  const size_t newline = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  return newline == std::string_view::npos ? 0 : uint32_t(newline + 1);
}

uint32_t line_end(std::string_view text, uint32_t at) {
  const size_t newline = text.find('\n', at);
  return newline == std::string_view::npos ? uint32_t(text.size()) : uint32_t(newline);
}

bool is_error(Node n) { return n.kind() == Kind::Error || n.is_missing(); }

}  // namespace

size_t syntax_error_count(const Tree& tree) {
  size_t count = 0;
  if (!tree.root().has_error()) return 0;
  for (uint32_t id = 0; id < tree.node_count(); ++id) count += is_error(Node(&tree, id));
  return count;
}

std::vector<ByteSpan> unread_star_expressions(const Tree& tree) {
  if (!tree.root().has_error()) return {};
  const std::string_view text = tree.text();
  // The lines of the errors: a star the grammar could not read may sit before its ERROR node
  // (`a[*(b)]` keeps the `*` in a list_splat and puts `(b)` in the ERROR).
  std::vector<ByteSpan> lines;
  std::vector<Node> leaves;  // in text order: pre-order visits leaves left to right
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node n(&tree, id);
    if (is_error(n)) lines.push_back({line_begin(text, n.span().begin), line_end(text, n.span().end)});
    if (n.child_count() == 0 && n.span().end > n.span().begin) leaves.push_back(n);
  }
  // Nested ERROR nodes give overlapping lines: merged into ascending disjoint ranges, walked
  // beside the leaves, so that a file of garbage costs one pass.
  std::sort(lines.begin(), lines.end(), [](ByteSpan a, ByteSpan b) { return a.begin < b.begin; });
  std::vector<ByteSpan> merged;
  for (ByteSpan l : lines) {
    if (!merged.empty() && l.begin <= merged.back().end) merged.back().end = std::max(merged.back().end, l.end);
    else merged.push_back(l);
  }
  std::vector<ByteSpan> stars;
  auto range = merged.begin();
  for (size_t i = 1; i + 1 < leaves.size(); ++i) {
    Node star = leaves[i];
    if (star.type() != "*") continue;
    while (range != merged.end() && range->end <= star.span().begin) ++range;
    if (range == merged.end()) break;
    if (star.span().begin < range->begin) continue;
    const std::string_view before = leaves[i - 1].type();
    if (std::find(kBeforeStar.begin(), kBeforeStar.end(), before) == kBeforeStar.end()) continue;
    if (starts_unnamed_operand(leaves[i + 1])) stars.push_back(star.span());
  }
  return stars;
}

}  // namespace tpulint::python
