#include "python/syntax.h"

#include "python/parse_arena.h"
#include "python/visible_nodes.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>
#include <vector>

extern "C" const TSLanguage* tree_sitter_python(void);

namespace tpulint::python {

namespace {

constexpr std::array<std::pair<Kind, std::string_view>, size_t(Kind::kCount) - 1> kKindNames = {{
    {Kind::Error, "ERROR"},
    {Kind::Module, "module"},
    {Kind::Block, "block"},
    {Kind::Identifier, "identifier"},
    {Kind::Attribute, "attribute"},
    {Kind::Call, "call"},
    {Kind::ArgumentList, "argument_list"},
    {Kind::KeywordArgument, "keyword_argument"},
    {Kind::String, "string"},
    {Kind::StringContent, "string_content"},
    {Kind::Interpolation, "interpolation"},
    {Kind::ConditionalExpression, "conditional_expression"},
    {Kind::Subscript, "subscript"},
    {Kind::ImportStatement, "import_statement"},
    {Kind::ImportFromStatement, "import_from_statement"},
    {Kind::FutureImportStatement, "future_import_statement"},
    {Kind::AliasedImport, "aliased_import"},
    {Kind::DottedName, "dotted_name"},
    {Kind::WildcardImport, "wildcard_import"},
    {Kind::RelativeImport, "relative_import"},
    {Kind::ImportPrefix, "import_prefix"},
    {Kind::FunctionDefinition, "function_definition"},
    {Kind::ClassDefinition, "class_definition"},
    {Kind::DecoratedDefinition, "decorated_definition"},
    {Kind::Decorator, "decorator"},
    {Kind::Lambda, "lambda"},
    {Kind::ForStatement, "for_statement"},
    {Kind::WhileStatement, "while_statement"},
    {Kind::IfStatement, "if_statement"},
    {Kind::ElifClause, "elif_clause"},
    {Kind::ElseClause, "else_clause"},
    {Kind::TryStatement, "try_statement"},
    {Kind::ExceptClause, "except_clause"},
    {Kind::FinallyClause, "finally_clause"},
    {Kind::WithStatement, "with_statement"},
    {Kind::MatchStatement, "match_statement"},
    {Kind::CaseClause, "case_clause"},
    {Kind::ExpressionStatement, "expression_statement"},
    {Kind::Assignment, "assignment"},
    {Kind::AssertStatement, "assert_statement"},
    {Kind::RaiseStatement, "raise_statement"},
    {Kind::Comment, "comment"},
    {Kind::ParenthesizedExpression, "parenthesized_expression"},
    {Kind::Tuple, "tuple"},
    {Kind::List, "list"},
    {Kind::None, "none"},
    {Kind::True, "true"},
    {Kind::False, "false"},
    {Kind::Integer, "integer"},
    {Kind::Float, "float"},
    {Kind::ConcatenatedString, "concatenated_string"},
    {Kind::BinaryOperator, "binary_operator"},
    {Kind::UnaryOperator, "unary_operator"},
    {Kind::NotOperator, "not_operator"},
    {Kind::BooleanOperator, "boolean_operator"},
    {Kind::ComparisonOperator, "comparison_operator"},
    {Kind::Slice, "slice"},
    {Kind::AugmentedAssignment, "augmented_assignment"},
    {Kind::ReturnStatement, "return_statement"},
    {Kind::DefaultParameter, "default_parameter"},
    {Kind::TypedParameter, "typed_parameter"},
    {Kind::TypedDefaultParameter, "typed_default_parameter"},
    {Kind::ContinueStatement, "continue_statement"},
    {Kind::BreakStatement, "break_statement"},
    {Kind::Pair, "pair"},
    {Kind::ListSplat, "list_splat"},
    {Kind::DictionarySplat, "dictionary_splat"},
    {Kind::PatternList, "pattern_list"},
    {Kind::TuplePattern, "tuple_pattern"},
}};

constexpr std::array<std::string_view, size_t(Field::kCount)> kFieldNames = {
    "function", "arguments", "object", "attribute", "name",  "alias",      "module_name", "value", "definition",
    "body",     "condition", "consequence", "alternative", "left", "right", "parameters", "subscript", "type"};

struct GrammarTables {
  std::vector<Kind> kinds;               // by symbol
  std::vector<std::string_view> names;   // by symbol: the grammar's static strings
  std::array<TSFieldId, size_t(Field::kCount)> fields{};
  std::vector<uint8_t> field_slots;  // by grammar field id: 1 + the Field, or 0 for one we do not name

  GrammarTables() {
    const TSLanguage* lang = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(lang);
    kinds.assign(count, Kind::Other);
    names.assign(count, std::string_view());
    for (uint32_t s = 0; s < count; ++s) {
      std::string_view name = ts_language_symbol_name(lang, TSSymbol(s));
      names[s] = name;
      for (const auto& [kind, kind_name] : kKindNames)
        if (name == kind_name) kinds[s] = kind;
    }
    for (const auto& [kind, kind_name] : kKindNames)  // an error node is no symbol of the table
      if (kind != Kind::Error && std::find(kinds.begin(), kinds.end(), kind) == kinds.end())
        throw std::logic_error("tree-sitter-python has no node type '" + std::string(kind_name) + "'");
    for (size_t i = 0; i < kFieldNames.size(); ++i) {
      fields[i] = ts_language_field_id_for_name(lang, kFieldNames[i].data(), uint32_t(kFieldNames[i].size()));
      if (fields[i] == 0)
        throw std::logic_error("tree-sitter-python has no field '" + std::string(kFieldNames[i]) + "'");
    }
    field_slots.assign(ts_language_field_count(lang) + 1, 0);
    for (size_t i = 0; i < fields.size(); ++i) field_slots[fields[i]] = uint8_t(i + 1);
  }
};

const GrammarTables& tables() {
  static const GrammarTables t;
  return t;
}

}  // namespace

const TSLanguage* language() { return tree_sitter_python(); }

TSFieldId field_id(Field f) { return tables().fields[size_t(f)]; }

uint8_t field_slot(TSFieldId id) {
  const auto& slots = tables().field_slots;
  return id < slots.size() ? slots[id] : 0;
}

Kind kind_of_symbol(TSSymbol symbol) {
  const auto& k = tables().kinds;
  return symbol < k.size() ? k[symbol] : Kind::Other;
}

Tree::Tree(TSTree* tree, std::string_view text) : tree_(tree), text_(text) { index(); }

void Tree::leave_to_arena() {
  if (!ParseArena::released_with_scope(tree_)) throw std::logic_error("the tree was not parsed in this thread's ParseArena scope");
  tree_ = nullptr;
}

// The visible nodes are listed in pre-order with their parent and field (visible_nodes.c); the
// children lists are then filled in id order, which keeps each list in source order.
void Tree::index() {
  // Sized once: tree-sitter keeps the count of visible nodes.
  std::vector<TpulintVisibleNode> visible(ts_node_descendant_count(ts_tree_root_node(tree_)));
  for (;;) {
    size_t count = tpulint_visible_nodes(tree_, visible.data(), visible.size());
    if (count == SIZE_MAX) throw std::bad_alloc();
    bool complete = count <= visible.size();
    visible.resize(count);
    if (complete) break;
  }
  nodes_.reserve(visible.size());
  for (const TpulintVisibleNode& v : visible) {
    uint8_t flags = ((v.flags & TPULINT_VISIBLE_NAMED) ? kNamed : 0) | ((v.flags & TPULINT_VISIBLE_MISSING) ? kMissing : 0) |
                    ((v.flags & TPULINT_VISIBLE_HAS_ERROR) ? kHasError : 0);
    nodes_.push_back(Record{v.start_byte, v.end_byte, v.parent == UINT32_MAX ? kNone : v.parent, v.subtree_end, 0, 0,
                            0, 0, v.symbol, field_slot(v.field),
                            (v.flags & TPULINT_VISIBLE_ERROR) ? Kind::Error : kind_of_symbol(v.symbol), flags});
  }

  for (uint32_t i = 1; i < nodes_.size(); ++i) {
    Record& p = nodes_[nodes_[i].parent];
    ++p.child_count;
    if (nodes_[i].flags & kNamed) ++p.named_child_count;
  }
  uint32_t all = 0, named = 0;
  for (Record& r : nodes_) {
    r.children = all;
    r.named_children = named;
    all += r.child_count;
    named += r.named_child_count;
    r.child_count = r.named_child_count = 0;  // refilled below as positions
  }
  children_.resize(all);
  named_children_.resize(named);
  for (uint32_t i = 1; i < nodes_.size(); ++i) {
    Record& p = nodes_[nodes_[i].parent];
    children_[p.children + p.child_count++] = i;
    if (nodes_[i].flags & kNamed) named_children_[p.named_children + p.named_child_count++] = i;
  }
}

Node Tree::named_descendant_for_span(ByteSpan span) const {
  uint32_t at = 0, named = 0;
  for (;;) {
    // Siblings are in source order and do not overlap, so their ends ascend: the only child that
    // can hold the span is the first one, not empty, that ends at or after it (a binary search:
    // a node can have a great many children).
    const Record& r = nodes_[at];
    const uint32_t* first = children_.data() + r.children;
    const uint32_t* last = first + r.child_count;
    const uint32_t* c = std::partition_point(first, last, [&](uint32_t id) { return nodes_[id].end < span.end; });
    while (c != last && nodes_[*c].end == nodes_[*c].begin) ++c;
    if (c == last || nodes_[*c].begin > span.begin) return Node(this, named);
    at = *c;
    if (nodes_[at].flags & kNamed) named = at;
  }
}

namespace {
// Whether `n` is a link of a chain; if so, `next` is the next link towards the root, which a
// link broken by a syntax error can lack (the chain's root is then a null node).
bool chain_link(Node n, Node& next) {
  if (n.kind() == Kind::Attribute) next = n.field(Field::Object);
  else if (n.kind() == Kind::Call) next = n.field(Field::Function);
  else if (n.kind() == Kind::Subscript) next = n.field(Field::Value);
  else if (n.kind() == Kind::ParenthesizedExpression && n.named_child_count() == 1) next = n.named_child(0);
  else return false;
  return true;
}
}  // namespace

Node Tree::chain_root(Node expr) const {
  constexpr int kShortChain = 16;  // walked without the memo
  Node n = expr, next;
  for (int links = 0; links < kShortChain; ++links) {
    if (!chain_link(n, next)) return n;
    if (!next) return {};
    n = next;
  }
  if (chain_roots_.empty()) chain_roots_.assign(nodes_.size(), kUnknown);
  std::vector<uint32_t> path;
  uint32_t root = kUnknown;
  for (n = expr; (root = chain_roots_[n.id()]) == kUnknown;) {
    path.push_back(n.id());
    if (!chain_link(n, next)) {
      root = n.id();
      break;
    }
    if (!next) {
      root = kNone;
      break;
    }
    n = next;
  }
  for (uint32_t id : path) chain_roots_[id] = root;
  return root == kNone ? Node() : Node(this, root);
}

Node Tree::enclosing_function(Node n) const {
  constexpr int kShortClimb = 32;  // climbed without the memo
  Node a = n.parent();
  for (int steps = 0; a && steps < kShortClimb; ++steps, a = a.parent())
    if (a.kind() == Kind::FunctionDefinition) return a;
  if (!a) return {};
  if (enclosing_functions_.empty()) enclosing_functions_.assign(nodes_.size(), kUnknown);
  std::vector<uint32_t> path;  // ancestors of n that are no function: a holds for each of them
  for (a = n.parent(); a && a.kind() != Kind::FunctionDefinition && enclosing_functions_[a.id()] == kUnknown; a = a.parent())
    path.push_back(a.id());
  uint32_t found = !a ? kNone : a.kind() == Kind::FunctionDefinition ? a.id() : enclosing_functions_[a.id()];
  for (uint32_t id : path) enclosing_functions_[id] = found;
  return found == kNone ? Node() : Node(this, found);
}

std::string_view Node::type() const {
  if (null()) return {};
  // A table lookup: checks compare types of many nodes, and the C API's name needs a strlen.
  const auto& names = tables().names;
  TSSymbol symbol = tree_->nodes_[id_].symbol;
  // The builtin error symbols sit outside the table.
  return symbol < names.size() ? names[symbol] : std::string_view(ts_language_symbol_name(language(), symbol));
}

std::string_view Node::text() const {
  if (null()) return {};
  ByteSpan s = span();
  std::string_view all = tree_->text();
  if (s.begin > all.size()) return {};
  return all.substr(s.begin, s.end - s.begin);
}

uint32_t Node::line_count() const {
  std::string_view t = text();
  return uint32_t(std::count(t.begin(), t.end(), '\n')) + 1;
}

Parser::Parser() : parser_(ts_parser_new()) {
  if (!ts_parser_set_language(parser_, language()))
    throw std::logic_error("tree-sitter-python's ABI does not match the tree-sitter runtime");
}

Parser::~Parser() { ts_parser_delete(parser_); }

std::string to_sexp(const Tree& tree) {
  char* s = ts_node_string(ts_tree_root_node(tree.raw()));
  std::string out(s);
  free_tree_sitter_block(s);
  return out;
}

namespace {
TSPoint point_at(std::string_view text, uint32_t offset) {
  TSPoint p{0, 0};
  uint32_t line_start = 0;
  for (uint32_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++p.row;
      line_start = i + 1;
    }
  p.column = offset - line_start;
  return p;
}
}  // namespace

std::unique_ptr<Tree> Parser::parse_range(std::string_view text, std::string_view parsed, uint32_t begin, uint32_t end) {
  TSRange range{point_at(parsed, begin), point_at(parsed, end), begin, end};
  ts_parser_set_included_ranges(parser_, &range, 1);
  TSTree* tree = ts_parser_parse_string(parser_, nullptr, parsed.data(), uint32_t(parsed.size()));
  ts_parser_set_included_ranges(parser_, nullptr, 0);
  if (!tree) throw std::runtime_error("the Python parser gave up on this file");
  return std::make_unique<Tree>(tree, text);
}

std::unique_ptr<Tree> Parser::parse(std::string_view text, std::string_view parsed) {
  TSTree* tree = ts_parser_parse_string(parser_, nullptr, parsed.data(), uint32_t(parsed.size()));
  if (!tree) throw std::runtime_error("the Python parser gave up on this file");
  return std::make_unique<Tree>(tree, text);
}

}  // namespace tpulint::python
