// A thin, typed view of tree-sitter-python syntax trees: Node, Kind, Field, Parser, Tree.
// Checks speak in these, so node kinds are compared as small integers (mapped once from the
// grammar's symbol table) rather than strings, and no check touches the raw C API.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tree_sitter/api.h>

#include "core/types.h"

namespace tpulint::python {

// The node kinds checks and the frontend look at; everything else is Kind::Other.
enum class Kind : uint8_t {
  Other,
  Error,
  Module,
  Block,
  Identifier,
  Attribute,
  Call,
  ArgumentList,
  KeywordArgument,
  String,
  StringContent,
  Interpolation,
  ConditionalExpression,
  Subscript,
  ImportStatement,
  ImportFromStatement,
  FutureImportStatement,
  AliasedImport,
  DottedName,
  WildcardImport,
  RelativeImport,
  ImportPrefix,
  FunctionDefinition,
  ClassDefinition,
  DecoratedDefinition,
  Decorator,
  Lambda,
  ForStatement,
  WhileStatement,
  IfStatement,
  ElifClause,
  ElseClause,
  TryStatement,
  ExceptClause,
  FinallyClause,
  WithStatement,
  MatchStatement,
  CaseClause,
  ExpressionStatement,
  Assignment,
  AssertStatement,
  RaiseStatement,
  Comment,
  ParenthesizedExpression,
  Tuple,
  List,
  None,
  True,
  False,
  Integer,
  Float,
  ConcatenatedString,
  BinaryOperator,
  UnaryOperator,
  NotOperator,
  BooleanOperator,
  ComparisonOperator,
  Slice,
  AugmentedAssignment,
  ReturnStatement,
  DefaultParameter,
  TypedParameter,
  TypedDefaultParameter,
  ContinueStatement,
  BreakStatement,
  Pair,
  ListSplat,
  DictionarySplat,
  PatternList,
  TuplePattern,
  kCount,
};

// A set of node kinds, tested with one load: the walks ask it of every node.
class KindSet {
 public:
  constexpr KindSet() = default;
  constexpr KindSet(std::initializer_list<Kind> kinds) {
    for (Kind k : kinds) add(k);
  }
  constexpr void add(Kind k) { in_[size_t(k)] = true; }
  constexpr bool contains(Kind k) const { return in_[size_t(k)]; }

 private:
  std::array<bool, size_t(Kind::kCount)> in_{};
};

enum class Field : uint8_t {
  Function,
  Arguments,
  Object,
  Attribute,
  Name,
  Alias,
  ModuleName,
  Value,
  Definition,
  Body,
  Condition,
  Consequence,
  Alternative,
  Left,
  Right,
  Parameters,
  Subscript,
  Type,
  kCount,
};

// The grammar's field id for `f`, and the Kind of a grammar symbol: both mapped once.
TSFieldId field_id(Field f);
Kind kind_of_symbol(TSSymbol symbol);
const TSLanguage* language();

class Tree;

// A node of a Tree: an index into the tree's flat node table, so that kind, parent, children
// and fields are array lookups (tree-sitter's own parent and field queries walk the tree).
class Node {
 public:
  Node() = default;
  Node(const Tree* tree, uint32_t id) : tree_(tree), id_(id) {}

  bool null() const { return tree_ == nullptr; }
  explicit operator bool() const { return !null(); }
  Kind kind() const;
  std::string_view type() const;
  bool is_named() const;
  bool is_missing() const;
  bool has_error() const;

  Node field(Field f) const;
  Node parent() const;
  uint32_t child_count() const;
  Node child(uint32_t i) const;
  uint32_t named_child_count() const;
  Node named_child(uint32_t i) const;

  ByteSpan span() const;
  std::string_view text() const;
  uint32_t line_count() const;  // the lines the node spans, counting its first and last
  const Tree* tree() const { return tree_; }
  uint32_t id() const { return id_; }  // its index in the tree's pre-order

  friend bool operator==(const Node& a, const Node& b) { return a.tree_ == b.tree_ && a.id_ == b.id_; }

 private:
  const Tree* tree_ = nullptr;
  uint32_t id_ = 0;
};

// A parsed file. Owns the tree-sitter tree and, built once after parsing, a table of its nodes
// in pre-order; borrows the text, which must outlive it.
class Tree {
 public:
  Tree(TSTree* tree, std::string_view text);
  ~Tree() { ts_tree_delete(tree_); }  // a null tree_ (left to the arena) is not deleted

  // Leaves the tree-sitter tree to the ParseArena scope it was parsed in, which drops its memory
  // when the scope ends, instead of releasing it subtree by subtree when this Tree goes (1.7% of
  // a parse). Only for a tree parsed in this thread's current scope (std::logic_error otherwise),
  // and last: the Tree is then only good for destroying.
  void leave_to_arena();
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  Node root() const { return Node(this, 0); }
  std::string_view text() const { return text_; }
  uint32_t node_count() const { return uint32_t(nodes_.size()); }
  // One past the last descendant of `n` in pre-order: the id a walk skipping `n`'s subtree goes to.
  uint32_t subtree_end(Node n) const { return nodes_[n.id()].subtree_end; }
  // The smallest named node spanning [begin, end), or the root.
  Node named_descendant_for_span(ByteSpan span) const;
  // The root of an attribute, call and subscript chain, through parentheses: `(a.b(c)[0]).d` -> `a`.
  // Checks ask it of every link of a chain; past a few links the roots found are kept, so that a
  // chain of any length is walked about once.
  Node chain_root(Node expr) const;
  // The innermost function_definition above `n`, or a null node. Checks ask it (through the scopes
  // of names) of nodes at any depth; past a few ancestors the answers found are kept, so that
  // a nest of any depth is climbed about once.
  Node enclosing_function(Node n) const;
  TSTree* raw() const { return tree_; }

 private:
  friend class Node;
  static constexpr uint32_t kNone = UINT32_MAX;
  enum Flag : uint8_t { kNamed = 1, kMissing = 2, kHasError = 4 };
  struct Record {
    uint32_t begin, end;      // bytes
    uint32_t parent;          // kNone for the root
    uint32_t subtree_end;     // see subtree_end()
    uint32_t children;        // first index in children_
    uint32_t child_count;
    uint32_t named_children;  // first index in named_children_
    uint32_t named_child_count;
    TSSymbol symbol;
    uint8_t field;            // the Field this node fills in its parent, plus 1; 0 for none
    Kind kind;
    uint8_t flags;
  };
  void index();

  TSTree* tree_;
  std::string_view text_;
  std::vector<Record> nodes_;
  // Memos of chain_root() and enclosing_function(), by node: the node found, kNone for a null
  // node, kUnknown if not asked yet.
  static constexpr uint32_t kUnknown = UINT32_MAX - 1;
  mutable std::vector<uint32_t> chain_roots_;
  mutable std::vector<uint32_t> enclosing_functions_;
  std::vector<uint32_t> children_;        // each node's children, contiguous
  std::vector<uint32_t> named_children_;  // each node's named children, contiguous
};

// Node's accessors are inline: checks call them for nearly every node.
inline Kind Node::kind() const { return null() ? Kind::Other : tree_->nodes_[id_].kind; }
inline bool Node::is_named() const { return !null() && (tree_->nodes_[id_].flags & Tree::kNamed); }
inline bool Node::is_missing() const { return !null() && (tree_->nodes_[id_].flags & Tree::kMissing); }
inline bool Node::has_error() const { return !null() && (tree_->nodes_[id_].flags & Tree::kHasError); }

inline Node Node::parent() const {
  if (null() || tree_->nodes_[id_].parent == Tree::kNone) return {};
  return Node(tree_, tree_->nodes_[id_].parent);
}

inline uint32_t Node::child_count() const { return null() ? 0 : tree_->nodes_[id_].child_count; }

inline Node Node::child(uint32_t i) const {
  if (i >= child_count()) return {};
  return Node(tree_, tree_->children_[tree_->nodes_[id_].children + i]);
}

inline uint32_t Node::named_child_count() const { return null() ? 0 : tree_->nodes_[id_].named_child_count; }

inline Node Node::named_child(uint32_t i) const {
  if (i >= named_child_count()) return {};
  return Node(tree_, tree_->named_children_[tree_->nodes_[id_].named_children + i]);
}

inline ByteSpan Node::span() const {
  if (null()) return {0, 0};
  const Tree::Record& r = tree_->nodes_[id_];
  return {r.begin, r.end};
}

// An ERROR node has no fields, as ts_node_child_by_field_id says: its children may carry the field
// they had in a hidden node that error recovery kept (a cursor still names it), which means
// nothing once the statement around them failed.
inline Node Node::field(Field f) const {
  if (null()) return {};
  const Tree::Record& r = tree_->nodes_[id_];
  if (r.kind == Kind::Error) return {};
  const uint8_t slot = uint8_t(size_t(f) + 1);
  for (uint32_t k = 0; k < r.child_count; ++k) {
    uint32_t c = tree_->children_[r.children + k];
    if (tree_->nodes_[c].field == slot) return Node(tree_, c);
  }
  return {};
}

// One per thread: tree-sitter parsers are not thread-safe. Made inside a ParseArena::Scope
// (python/parse_arena.h), as the analyzer makes them, a parser and its trees live in the arena and
// must be destroyed before the scope ends.
class Parser {
 public:
  Parser();
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  // Never fails on bad syntax: errors become ERROR/MISSING nodes. Throws only if tree-sitter
  // gives up (out of memory, cancelled). The parser reads `parsed`, `text` with some bytes
  // turned into spaces (python/literal_data.h); the tree's text is `text`.
  std::unique_ptr<Tree> parse(std::string_view text, std::string_view parsed);
  std::unique_ptr<Tree> parse(std::string_view text) { return parse(text, text); }
  // Parses only parsed[begin, end), keeping the whole text's byte offsets in the tree.
  std::unique_ptr<Tree> parse_range(std::string_view text, std::string_view parsed, uint32_t begin, uint32_t end);
  std::unique_ptr<Tree> parse_range(std::string_view text, uint32_t begin, uint32_t end) {
    return parse_range(text, text, begin, end);
  }

 private:
  TSParser* parser_;
};

// The tree as an S-expression (`tpulint dump-tree`, for writing checks).
std::string to_sexp(const Tree& tree);


}  // namespace tpulint::python
