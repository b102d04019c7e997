#include "python/python_check.h"

#include <algorithm>

namespace tpulint::python {

const ProjectIndex PythonContext::kNoProject;

PythonContext::PythonContext(const SourceFile& file, const Tree& tree, const ImportTable& imports,
                             FindingSink& sink)
    : file_(file),
      tree_(tree),
      imports_(imports),
      sink_(sink),
      qualified_slots_(tree.node_count(), kUnresolved),
      reference_slots_(tree.node_count(), kUnresolved) {}

std::span<const uint32_t> PythonContext::scope_chain(Node n) const {
  std::vector<uint32_t>& chain = scope_chain_;
  chain.clear();
  uint32_t at = n.span().begin;
  for (Node a = n.tree()->enclosing_function(n); a; a = a.tree()->enclosing_function(a)) {
    // Only the body is the function's scope: its decorators, defaults and annotations are
    // evaluated around it.
    Node body = a.field(Field::Body);
    if (body && body.span().begin <= at && at < body.span().end) chain.push_back(a.span().begin);
  }
  chain.push_back(kModuleScope);
  return chain;
}

const std::optional<std::string> PythonContext::kNoNameValue;

const std::optional<std::string>& PythonContext::remember(std::vector<uint32_t>& slots, Node n,
                                                          std::optional<std::string> name) const {
  if (!name) {
    slots[n.id()] = kNoName;
    return kNoNameValue;
  }
  slots[n.id()] = kFirstName + uint32_t(names_.size());
  return names_.emplace_back(std::move(name));
}

std::optional<std::string> PythonContext::resolve(Node expr) const {
  // Walk down the attribute chain to its root identifier, then resolve that.
  Node root = expr;
  while (root.kind() == Kind::Attribute && root.field(Field::Attribute)) root = root.field(Field::Object);
  if (root.kind() != Kind::Identifier || !imports_.may_resolve(root.text())) return std::nullopt;
  // A name no import statement binds can only come from a star import, which brings a module's
  // public names: not a builtin, nor a name the code binds itself.
  if (!imports_.binds(root.text()) && (is_builtin_name(root.text()) || bound_around(root.text(), root)))
    return std::nullopt;
  std::optional<std::string> out = imports_.resolve(root.text(), scope_chain(root));
  if (!out) return out;
  // The members, from the root outwards, without the spaces, comments or line breaks between them.
  std::vector<std::string_view>& members = members_;
  members.clear();
  for (Node a = expr; a != root; a = a.field(Field::Object)) members.push_back(a.field(Field::Attribute).text());
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    *out += '.';
    *out += *it;
  }
  return out;
}

namespace {
bool binds_identifier(Node parent, Node n);
}  // namespace

bool PythonContext::bound_around(std::string_view name, Node n) const {
  const uint32_t at = n.span().begin;
  for (Node f = n.tree()->enclosing_function(n); f; f = f.tree()->enclosing_function(f)) {
    Node body = f.field(Field::Body);
    if (body && body.span().begin <= at && at < body.span().end && names_bound_in(f).contains(name)) return true;
  }
  return names_bound_in(n.tree()->root()).contains(name);
}

const std::unordered_set<std::string_view>& PythonContext::names_bound_in(Node scope) const {
  auto [it, added] = bound_names_.try_emplace(scope.id());
  if (!added) return it->second;
  std::unordered_set<std::string_view>& names = it->second;
  const Tree& tree = *scope.tree();
  const bool function = scope.kind() == Kind::FunctionDefinition;
  for (uint32_t id = function ? scope.id() + 1 : scope.id(); id < tree.subtree_end(scope);) {
    Node n(&tree, id);
    // Nested defs and classes are scopes of their own; a lambda is walked as part of this one, so
    // its parameters count here too (a star import brings none of them either).
    if (n.kind() == Kind::FunctionDefinition || n.kind() == Kind::ClassDefinition) {
      if (Node name = n.field(Field::Name)) names.insert(name.text());  // a def or class binds its name here
      id = tree.subtree_end(n);
      continue;
    }
    ++id;
    if (n.kind() != Kind::Identifier) continue;
    Node parent = n.parent();
    if (!parent) continue;
    if (binds_identifier(parent, n) || (parent.kind() == Kind::Assignment && parent.field(Field::Left) == n) ||
        (parent.type() == "named_expression" && parent.field(Field::Name) == n))
      names.insert(n.text());
  }
  return names;
}

bool is_builtin_name(std::string_view name) {
  static constexpr auto kBuiltins = std::to_array<std::string_view>({
      "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Ellipsis", "EOFError", "Exception",
      "False", "FileNotFoundError", "ImportError", "IndexError", "KeyError", "KeyboardInterrupt", "LookupError",
      "MemoryError", "ModuleNotFoundError", "NameError", "None", "NotImplemented", "NotImplementedError",
      "OSError", "OverflowError", "RecursionError", "RuntimeError", "RuntimeWarning", "StopIteration", "True",
      "TypeError", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "__import__", "__name__", "abs",
      "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr", "classmethod",
      "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec", "filter", "float",
      "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id", "input", "int",
      "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview", "min", "next",
      "object", "oct", "open", "ord", "pow", "print", "property", "range", "repr", "reversed", "round",
      "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip",
  });
  return std::find(kBuiltins.begin(), kBuiltins.end(), name) != kBuiltins.end();
}

const std::optional<std::string>& PythonContext::resolve_qualified_name(Node expr) const {
  if (!expr) return kNoNameValue;
  // A node of another tree (a re-parsed piece of the file) is resolved, not remembered.
  if (expr.tree() != &tree_) return names_.emplace_back(resolve(expr));
  return remember(qualified_slots_, expr, resolve(expr));  // qualified_name found no slot
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

const std::optional<std::string>& PythonContext::resolve_reference(Node n) const {
  if (!n) return kNoNameValue;
  if (n.tree() != &tree_) return is_whole_reference(n) ? qualified_name(n) : kNoNameValue;
  // An identifier that no import can bind names nothing, whatever its place: most are locals,
  // and this test is cheaper than finding out whether the identifier is read.
  if ((n.kind() == Kind::Identifier && !imports_.may_resolve(n.text())) || !is_whole_reference(n)) {
    reference_slots_[n.id()] = kNoName;
    return kNoNameValue;
  }
  const std::optional<std::string>& name = qualified_name(n);
  reference_slots_[n.id()] = qualified_slots_[n.id()];
  return name;
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

Finding& PythonContext::report(Node at, std::string_view message, std::string_view hint, std::string_view subject) {
  return report(at.span(), message, hint, subject);
}

Finding& PythonContext::report(ByteSpan at, std::string_view message, std::string_view hint, std::string_view subject) {
  return sink_.add(*check_, at, message, hint, subject);
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
        if (a.kind() == Kind::ListSplat || a.kind() == Kind::DictionarySplat)
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

Node chain_root(Node expr) { return expr ? expr.tree()->chain_root(expr) : expr; }

Node unparenthesized(Node n) {
  while (n.kind() == Kind::ParenthesizedExpression && n.named_child_count() == 1) n = n.named_child(0);
  return n;
}

std::string_view last_name(Node n) {
  n = unparenthesized(n);
  if (n.kind() == Kind::Identifier) return n.text();
  if (n.kind() == Kind::Attribute) return n.field(Field::Attribute).text();
  return {};
}

std::string_view chain_last_name(Node n) {
  for (;;) {
    switch (n.kind()) {
      case Kind::Identifier:
        return n.text();
      case Kind::Attribute:
        return n.field(Field::Attribute).text();
      case Kind::Subscript:
        n = n.field(Field::Value);
        break;
      case Kind::Call:
        n = n.field(Field::Function);
        break;
      default:
        return {};
    }
  }
}

bool is_none(Node n) { return n.kind() == Kind::None; }

Node local_scope(const PythonContext& ctx) {
  if (const Frame* f = ctx.enclosing_function()) return f->node.field(Field::Body);
  return ctx.tree().root();
}

namespace {

// A node whose named children may be statements, or the assignment an expression statement is.
bool holds_statements(Kind k) {
  switch (k) {
    case Kind::Module:
    case Kind::Block:
    case Kind::ExpressionStatement:
    case Kind::IfStatement:
    case Kind::ElifClause:
    case Kind::ElseClause:
    case Kind::ForStatement:
    case Kind::WhileStatement:
    case Kind::TryStatement:
    case Kind::ExceptClause:
    case Kind::FinallyClause:
    case Kind::WithStatement:
    case Kind::MatchStatement:
    case Kind::CaseClause:
      return true;
    default:
      return false;
  }
}

// Calls `found(value)` for each plain assignment to `name` in `scope` that starts before byte
// `before`, in source order; with `added`, each `name += value` instead.
template <class Found>
void for_each_assignment(std::string_view name, Node scope, uint32_t before, Found found, bool added = false) {
  // Kept from call to call (`found` asks nothing that walks again): checks ask for many names.
  thread_local std::vector<Node> stack;
  stack.assign(1, scope);
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (!n || n.span().begin >= before) continue;
    const Kind k = n.kind();
    if (n != scope && (k == Kind::FunctionDefinition || k == Kind::ClassDefinition || k == Kind::Lambda)) continue;
    if (k == Kind::AugmentedAssignment) {
      Node left = n.field(Field::Left), right = n.field(Field::Right);
      if (added && left && right && left.kind() == Kind::Identifier && left.text() == name) {
        std::string_view between = n.text().substr(left.span().end - n.span().begin, right.span().begin - left.span().end);
        if (between.find("+=") != std::string_view::npos) found(n, right);
      }
      continue;
    }
    if (k == Kind::Assignment) {
      Node left = n.field(Field::Left), right = n.field(Field::Right);
      if (!added && right && left.kind() == Kind::Identifier && left.text() == name) found(n, right);
      if (right.kind() == Kind::Assignment) stack.push_back(right);
      continue;
    }
    // Statements only: expressions hold no plain assignment, and one can be as large as the file
    // (walking each of a 20,000-operand expression's names' scopes through it was quadratic).
    if (n != scope && !holds_statements(k)) continue;
    for (uint32_t i = n.named_child_count(); i-- > 0;) stack.push_back(n.named_child(i));
  }
}

}  // namespace

std::vector<Node> assigned_values(std::string_view name, Node scope) {
  std::vector<Node> out;
  for_each_assignment(name, scope, UINT32_MAX, [&](Node, Node value) { out.push_back(value); });
  return out;
}

std::vector<Node> added_values(std::string_view name, Node scope) {
  std::vector<Node> out;
  for_each_assignment(name, scope, UINT32_MAX, [&](Node, Node value) { out.push_back(value); }, true);
  return out;
}

Node last_assigned_value(std::string_view name, Node scope, uint32_t before) {
  Node last;
  for_each_assignment(name, scope, before, [&](Node assignment, Node value) {
    if (assignment.span().end <= before) last = value;
  });
  return last;
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

std::optional<std::string> whole_string_value(Node node) {
  if (!node || node.kind() != Kind::String) return std::nullopt;
  for (uint32_t i = 0; i < node.named_child_count(); ++i)
    if (node.named_child(i).kind() == Kind::Interpolation) return std::nullopt;
  return string_value(node);
}

std::vector<Decorator> decorators_of(Node function, const PythonContext& ctx) {
  std::vector<Decorator> out;
  Node parent = function.parent();
  if (parent.kind() != Kind::DecoratedDefinition) return out;
  for (uint32_t i = 0; i < parent.named_child_count(); ++i) {
    Node d = parent.named_child(i);
    if (d.kind() != Kind::Decorator || d.named_child_count() == 0) continue;
    Decorator dec{.expr = d.named_child(0), .target = d.named_child(0)};
    if (dec.expr.kind() == Kind::Call) {
      dec.call = dec.expr;
      dec.target = dec.call.field(Field::Function);
      if (const auto& q = ctx.qualified_name(dec.target); q && *q == "functools.partial") {
        CallArguments args = call_arguments(dec.call);
        if (!args.positional.empty()) dec.target = args.positional[0];
      }
    }
    dec.qualified = ctx.qualified_name(dec.target);
    out.push_back(std::move(dec));
  }
  return out;
}

std::vector<std::string> decorator_names(Node function, const PythonContext& ctx) {
  std::vector<std::string> names;
  for (Decorator& d : decorators_of(function, ctx))
    names.push_back(d.qualified ? std::move(*d.qualified) : std::string(d.target.text()));
  return names;
}

}  // namespace tpulint::python
