#include "python/python_check.h"

namespace tpulint::python {

PythonContext::PythonContext(const SourceFile& file, const Tree& tree, const ImportTable& imports,
                             FindingSink& sink)
    : file_(file), tree_(tree), imports_(imports), sink_(sink) {}

std::span<const uint32_t> PythonContext::scope_chain() const {
  if (!scope_chain_) {
    scope_chain_.emplace();
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (it->type == Frame::Type::Function && contains_current(*it)) scope_chain_->push_back(it->node.span().begin);
    scope_chain_->push_back(kModuleScope);
  }
  return *scope_chain_;
}

namespace {
const std::optional<std::string> kNoName;
}  // namespace

const std::optional<std::string>& PythonContext::qualified_name(Node expr) const {
  if (!expr) return kNoName;
  for (const auto& entry : names_)
    if (entry.first == expr.id()) return entry.second;
  // Walk down the attribute chain to its root identifier, then resolve that.
  std::optional<std::string> out;
  std::vector<std::string_view> attrs;
  Node n = expr;
  while (n.kind() == Kind::Attribute) {
    Node a = n.field(Field::Attribute);
    if (!a) break;
    attrs.push_back(a.text());
    n = n.field(Field::Object);
  }
  if (n.kind() == Kind::Identifier) {
    if (auto base = imports_.resolve(n.text(), scope_chain())) {
      out = std::move(*base);
      for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
        *out += '.';
        *out += *it;
      }
    }
  }
  return names_.emplace_back(expr.id(), std::move(out)).second;
}

namespace {

// Parents under which an identifier is bound or declared, not read.
bool binds_identifier(Node parent, Node n) {
  std::string_view t = parent.type();
  if (t == "parameters" || t == "lambda_parameters" || t == "typed_parameter" || t == "list_splat_pattern" ||
      t == "dictionary_splat_pattern" || t == "global_statement" || t == "nonlocal_statement" ||
      t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "as_pattern_target" ||
      t == "keyword_pattern" || t == "delete_statement")
    return true;
  if (t == "default_parameter" || t == "typed_default_parameter") return parent.field(Field::Name) == n;
  if (t == "augmented_assignment" || t == "for_statement" || t == "for_in_clause")
    return parent.field(Field::Left) == n;
  return false;
}

bool is_whole_reference(Node n) {
  Node parent = n.parent();
  if (n.kind() == Kind::Attribute)
    return !(parent && parent.kind() == Kind::Attribute && parent.field(Field::Object) == n);
  if (n.kind() != Kind::Identifier || !parent) return false;
  switch (parent.kind()) {
    case Kind::Attribute:  // the root of a longer chain, or a member name
    case Kind::DottedName:
    case Kind::AliasedImport:
    case Kind::ImportStatement:
    case Kind::ImportFromStatement:
    case Kind::FutureImportStatement:
    case Kind::FunctionDefinition:
    case Kind::ClassDefinition:
      return false;
    case Kind::KeywordArgument:
      return !(parent.field(Field::Name) == n);
    case Kind::Assignment:
      return !(parent.field(Field::Left) == n);
    default:
      return !binds_identifier(parent, n);
  }
}

}  // namespace

const std::optional<std::string>& PythonContext::reference_name(Node n) const {
  if (!n) return kNoName;
  for (const auto& entry : references_)
    if (entry.first == n.id()) return entry.second;
  if (!is_whole_reference(n)) return references_.emplace_back(n.id(), std::nullopt).second;
  return references_.emplace_back(n.id(), qualified_name(n)).second;
}

bool PythonContext::contains_current(const Frame& f) const {
  ByteSpan s = current_.span();
  return f.body.begin <= s.begin && s.begin < f.body.end;
}

const Frame* PythonContext::enclosing_function() const {
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
    if (it->type == Frame::Type::Function && contains_current(*it)) return &*it;
  return nullptr;
}

std::vector<const Frame*> PythonContext::enclosing_loops() const {
  std::vector<const Frame*> loops;
  for (auto it = frames_.rbegin(); it != frames_.rend(); ++it) {
    if (it->type == Frame::Type::Function && contains_current(*it)) break;
    if (it->type == Frame::Type::Loop && contains_current(*it)) loops.insert(loops.begin(), &*it);
  }
  return loops;
}

Finding& PythonContext::report(Node at, std::string message, std::string hint, std::string subject) {
  return report(at.span(), std::move(message), std::move(hint), std::move(subject));
}

Finding& PythonContext::report(ByteSpan at, std::string message, std::string hint, std::string subject) {
  return sink_.add(*check_, at, std::move(message), std::move(hint), std::move(subject));
}

Node CallArguments::keyword(std::string_view name) const {
  for (const auto& [k, v] : keywords)
    if (k == name) return v;
  return Node();
}

CallArguments call_arguments(Node call) {
  CallArguments out;
  Node args = call.field(Field::Arguments);
  if (!args || args.kind() != Kind::ArgumentList) return out;
  for (uint32_t i = 0; i < args.named_child_count(); ++i) {
    Node a = args.named_child(i);
    switch (a.kind()) {
      case Kind::KeywordArgument:
        if (Node name = a.field(Field::Name)) out.keywords.emplace_back(name.text(), a.field(Field::Value));
        break;
      case Kind::Comment:
        break;
      default:
        if (a.type() == "list_splat" || a.type() == "dictionary_splat")
          out.has_splat = true;
        else
          out.positional.push_back(a);
    }
  }
  return out;
}

bool has_module_prefix(std::string_view name, std::string_view module) {
  return name.starts_with(module) && (name.size() == module.size() || name[module.size()] == '.');
}

Node chain_root(Node expr) {
  for (Node n = expr;;) {
    if (n.kind() == Kind::Attribute)
      n = n.field(Field::Object);
    else if (n.kind() == Kind::Call)
      n = n.field(Field::Function);
    else if (n.kind() == Kind::Subscript)
      n = n.field(Field::Value);
    else if (n.type() == "parenthesized_expression" && n.named_child_count() == 1)
      n = n.named_child(0);
    else
      return n;
  }
}

std::optional<std::string> string_value(Node node) {
  if (node.kind() != Kind::String) return std::nullopt;
  std::string out;
  for (uint32_t i = 0; i < node.named_child_count(); ++i) {
    Node c = node.named_child(i);
    if (c.kind() == Kind::Interpolation) break;
    if (c.kind() == Kind::StringContent) out += c.text();
  }
  return out;
}

}  // namespace tpulint::python
