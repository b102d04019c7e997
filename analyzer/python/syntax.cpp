#include "python/syntax.h"

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
    {Kind::Comment, "comment"},
}};

constexpr std::array<std::string_view, size_t(Field::kCount)> kFieldNames = {
    "function", "arguments", "object", "attribute", "name",  "alias",      "module_name", "value", "definition",
    "body",     "condition", "consequence", "alternative", "left", "right", "parameters", "subscript"};

struct GrammarTables {
  std::vector<Kind> kinds;  // by symbol
  std::array<TSFieldId, size_t(Field::kCount)> fields{};

  GrammarTables() {
    const TSLanguage* lang = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(lang);
    kinds.assign(count, Kind::Other);
    for (uint32_t s = 0; s < count; ++s) {
      std::string_view name = ts_language_symbol_name(lang, TSSymbol(s));
      for (const auto& [kind, kind_name] : kKindNames)
        if (name == kind_name) kinds[s] = kind;
    }
    for (size_t i = 0; i < kFieldNames.size(); ++i) {
      fields[i] = ts_language_field_id_for_name(lang, kFieldNames[i].data(), uint32_t(kFieldNames[i].size()));
      if (fields[i] == 0)
        throw std::logic_error("tree-sitter-python has no field '" + std::string(kFieldNames[i]) + "'");
    }
  }
};

const GrammarTables& tables() {
  static const GrammarTables t;
  return t;
}

}  // namespace

const TSLanguage* language() { return tree_sitter_python(); }

TSFieldId field_id(Field f) { return tables().fields[size_t(f)]; }

Kind kind_of_symbol(TSSymbol symbol) {
  const auto& k = tables().kinds;
  return symbol < k.size() ? k[symbol] : Kind::Other;
}

Kind Node::kind() const {
  if (null()) return Kind::Other;
  if (ts_node_is_error(node_)) return Kind::Error;
  return kind_of_symbol(ts_node_symbol(node_));
}

Node Node::field(Field f) const { return wrap(ts_node_child_by_field_id(node_, field_id(f))); }

std::string_view Node::text() const {
  ByteSpan s = span();
  std::string_view all = tree_->text();
  if (s.begin > all.size()) return {};
  return all.substr(s.begin, s.end - s.begin);
}

Parser::Parser() : parser_(ts_parser_new()) {
  if (!ts_parser_set_language(parser_, language()))
    throw std::logic_error("tree-sitter-python's ABI does not match the tree-sitter runtime");
}

Parser::~Parser() { ts_parser_delete(parser_); }

std::string to_sexp(const Tree& tree) {
  char* s = ts_node_string(tree.root().raw());
  std::string out(s);
  free(s);
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

std::unique_ptr<Tree> Parser::parse_range(std::string_view text, uint32_t begin, uint32_t end) {
  TSRange range{point_at(text, begin), point_at(text, end), begin, end};
  ts_parser_set_included_ranges(parser_, &range, 1);
  TSTree* tree = ts_parser_parse_string(parser_, nullptr, text.data(), uint32_t(text.size()));
  ts_parser_set_included_ranges(parser_, nullptr, 0);
  if (!tree) throw std::runtime_error("the Python parser gave up on this file");
  return std::make_unique<Tree>(tree, text);
}

std::unique_ptr<Tree> Parser::parse(std::string_view text) {
  TSTree* tree = ts_parser_parse_string(parser_, nullptr, text.data(), uint32_t(text.size()));
  if (!tree) throw std::runtime_error("the Python parser gave up on this file");
  return std::make_unique<Tree>(tree, text);
}

}  // namespace tpulint::python
