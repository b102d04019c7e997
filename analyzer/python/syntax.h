// A thin, typed view of tree-sitter-python syntax trees: Node, Kind, Field, Parser, Tree.
// Checks speak in these, so node kinds are compared as small integers (mapped once from the
// grammar's symbol table) rather than strings, and no check touches the raw C API.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

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
  Comment,
  kCount,
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
  kCount,
};

class Tree;

class Node {
 public:
  Node() : node_{} {}
  Node(TSNode node, const Tree* tree) : node_(node), tree_(tree) {}

  bool null() const { return ts_node_is_null(node_); }
  explicit operator bool() const { return !null(); }
  Kind kind() const;
  std::string_view type() const { return ts_node_type(node_); }
  bool is_named() const { return ts_node_is_named(node_); }
  bool is_missing() const { return ts_node_is_missing(node_); }
  bool has_error() const { return ts_node_has_error(node_); }

  Node field(Field f) const;
  Node parent() const { return wrap(ts_node_parent(node_)); }
  uint32_t child_count() const { return ts_node_child_count(node_); }
  Node child(uint32_t i) const { return wrap(ts_node_child(node_, i)); }
  uint32_t named_child_count() const { return ts_node_named_child_count(node_); }
  Node named_child(uint32_t i) const { return wrap(ts_node_named_child(node_, i)); }

  ByteSpan span() const { return {ts_node_start_byte(node_), ts_node_end_byte(node_)}; }
  std::string_view text() const;
  TSNode raw() const { return node_; }
  const Tree* tree() const { return tree_; }

  friend bool operator==(const Node& a, const Node& b) { return ts_node_eq(a.node_, b.node_); }

 private:
  Node wrap(TSNode n) const { return Node(n, tree_); }
  TSNode node_;
  const Tree* tree_ = nullptr;
};

// A parsed file. Owns the tree-sitter tree; borrows the text, which must outlive it.
class Tree {
 public:
  Tree(TSTree* tree, std::string_view text) : tree_(tree), text_(text) {}
  ~Tree() { ts_tree_delete(tree_); }
  Tree(const Tree&) = delete;
  Tree& operator=(const Tree&) = delete;

  Node root() const { return Node(ts_tree_root_node(tree_), this); }
  std::string_view text() const { return text_; }

 private:
  TSTree* tree_;
  std::string_view text_;
};

// One per thread: tree-sitter parsers are not thread-safe.
class Parser {
 public:
  Parser();
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  // Never fails on bad syntax: errors become ERROR/MISSING nodes. Throws only if tree-sitter
  // gives up (out of memory, cancelled).
  std::unique_ptr<Tree> parse(std::string_view text);
  // Parses only text[begin, end), keeping the whole text's byte offsets in the tree.
  std::unique_ptr<Tree> parse_range(std::string_view text, uint32_t begin, uint32_t end);

 private:
  TSParser* parser_;
};

// The tree as an S-expression (`tpulint dump-tree`, for writing checks).
std::string to_sexp(const Tree& tree);

// The grammar's field id for `f`, and the Kind of a grammar symbol: both mapped once.
TSFieldId field_id(Field f);
Kind kind_of_symbol(TSSymbol symbol);
const TSLanguage* language();

}  // namespace tpulint::python
