#include "python/imports.h"

#include <algorithm>

namespace tpulint::python {

std::string package_of(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  std::string pkg(path.substr(0, slash));
  std::replace(pkg.begin(), pkg.end(), '/', '.');
  return pkg;
}

namespace {

std::string dotted(Node n) {
  // dotted_name text may contain spaces or comments between parts (`a . b`): keep identifiers.
  std::string out;
  for (uint32_t i = 0; i < n.named_child_count(); ++i) {
    Node c = n.named_child(i);
    if (c.kind() != Kind::Identifier) continue;
    if (!out.empty()) out += '.';
    out += c.text();
  }
  return out.empty() ? std::string(n.text()) : out;
}

// `from ..a.b import x` in package "p.q.r" -> "p.q.a.b"; one dot is the package itself.
std::string resolve_relative(Node relative, std::string_view package) {
  size_t dots = 0;
  std::string rest;
  for (uint32_t i = 0; i < relative.named_child_count(); ++i) {
    Node c = relative.named_child(i);
    if (c.kind() == Kind::ImportPrefix) dots = std::count(c.text().begin(), c.text().end(), '.');
    if (c.kind() == Kind::DottedName) rest = dotted(c);
  }
  std::string base(package);
  for (size_t i = 1; i < dots; ++i) {
    size_t dot = base.rfind('.');
    base = dot == std::string::npos ? "" : base.substr(0, dot);
  }
  // Above the scan root the package is unknown: keep the dots, so the name matches nothing
  // absolute (`from .flash_attn import x` is the project's module, not the library).
  if (base.empty()) return std::string(dots, '.') + rest;
  return rest.empty() ? base : base + "." + rest;
}

std::string from_module(Node stmt, std::string_view package) {
  Node m = stmt.field(Field::ModuleName);
  if (!m) return "";
  return m.kind() == Kind::RelativeImport ? resolve_relative(m, package) : dotted(m);
}

// True if a try statement has a handler that catches a failed import.
bool has_import_handler(Node try_stmt) {
  for (uint32_t i = 0; i < try_stmt.named_child_count(); ++i)
    if (Node c = try_stmt.named_child(i); c.kind() == Kind::ExceptClause && catches_import_error(c)) return true;
  return false;
}

bool is_statement_container(Kind k) {
  switch (k) {
    case Kind::Module: case Kind::Block: case Kind::FunctionDefinition: case Kind::ClassDefinition:
    case Kind::DecoratedDefinition: case Kind::IfStatement: case Kind::ElifClause: case Kind::ElseClause:
    case Kind::TryStatement: case Kind::ExceptClause: case Kind::FinallyClause: case Kind::WithStatement:
    case Kind::ForStatement: case Kind::WhileStatement: case Kind::MatchStatement: case Kind::CaseClause:
    case Kind::Error:
      return true;
    default:
      return false;
  }
}

}  // namespace

bool catches_import_error(Node except_clause) {
  if (!except_clause.field(Field::Value)) return true;  // bare `except:`
  // Every named child but the block is a caught type or the `as` name: `except (A, B)`,
  // and the unparenthesized `except A, B:` of Python 3.14, which has one value field per type.
  for (uint32_t k = 0; k < except_clause.named_child_count(); ++k) {
    Node v = except_clause.named_child(k);
    if (v.kind() == Kind::Block) continue;
    for (std::string_view name : {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
      if (v.text().find(name) != std::string_view::npos) return true;
  }
  return false;
}

bool reraises(Node except_clause) {
  for (uint32_t k = except_clause.named_child_count(); k-- > 0;) {
    Node b = except_clause.named_child(k);
    if (b.kind() != Kind::Block) continue;
    for (uint32_t i = b.named_child_count(); i-- > 0;) {
      Node last = b.named_child(i);
      if (last.kind() == Kind::Comment) continue;
      return last.kind() == Kind::RaiseStatement;
    }
  }
  return false;
}

std::vector<std::string> imported_modules(Node stmt, std::string_view package) {
  std::vector<std::string> out;
  if (stmt.kind() == Kind::ImportStatement) {
    for (uint32_t i = 0; i < stmt.named_child_count(); ++i) {
      Node c = stmt.named_child(i);
      if (c.kind() == Kind::DottedName) out.push_back(dotted(c));
      if (c.kind() == Kind::AliasedImport) out.push_back(dotted(c.field(Field::Name)));
    }
  } else if (stmt.kind() == Kind::ImportFromStatement) {
    std::string m = from_module(stmt, package);
    if (!m.empty() && m.back() != '.') out.push_back(m);
  }
  return out;
}

ImportTable ImportTable::build(std::span<const Tree* const> trees, std::string_view package) {
  ImportTable table;
  std::vector<std::string> modules;  // every module named by an import statement
  auto name_module = [&](Node statement, std::string name) {
    if (!name.starts_with('.')) table.imported_.push_back({statement.span().begin, name});
    modules.push_back(std::move(name));
  };
  struct Item {
    Node node;
    uint32_t scope;
    bool guarded;
  };
  std::vector<Item> stack;
  for (auto it = trees.rbegin(); it != trees.rend(); ++it) stack.push_back({(*it)->root(), kModuleScope, false});
  while (!stack.empty()) {
    Item item = stack.back();
    stack.pop_back();
    Node n = item.node;
    Kind kind = n.kind();
    auto bind = [&](std::string local, std::string target) {
      table.bindings_.push_back({std::move(local), std::move(target), n, item.guarded});
      table.scopes_[item.scope].names[table.bindings_.back().local] = table.bindings_.size() - 1;
      const std::string& bound = table.bindings_.back().local;
      table.bound_names_.insert(bound);
      if (!bound.empty()) {
        table.bound_lengths_ |= uint64_t(1) << length_bit(bound);
        table.bound_first_bytes_[uint8_t(bound[0]) >> 6] |= uint64_t(1) << (uint8_t(bound[0]) & 63);
      }
    };
    if ((kind == Kind::ImportStatement || kind == Kind::ImportFromStatement) && item.guarded)
      table.guarded_statements_.push_back(n.span().begin);
    if (kind == Kind::ImportStatement) {
      for (uint32_t i = 0; i < n.named_child_count(); ++i) {
        Node c = n.named_child(i);
        if (c.kind() == Kind::DottedName) {
          std::string name = dotted(c);
          name_module(n, name);
          bind(name.substr(0, name.find('.')), name.substr(0, name.find('.')));
        } else if (c.kind() == Kind::AliasedImport) {
          std::string name = dotted(c.field(Field::Name));
          name_module(n, name);
          if (Node alias = c.field(Field::Alias)) bind(std::string(alias.text()), name);
        }
      }
      continue;
    }
    if (kind == Kind::ImportFromStatement) {
      std::string module = from_module(n, package);
      if (module.empty()) continue;
      name_module(n, module);
      std::string prefix = module.back() == '.' ? module : module + ".";  // "." or ".." stay relative
      for (uint32_t i = 0; i < n.named_child_count(); ++i) {
        Node c = n.named_child(i);
        if (c == n.field(Field::ModuleName)) continue;
        if (c.kind() == Kind::WildcardImport) {
          table.scopes_[item.scope].star_modules.push_back(module);
          table.has_star_import_ = true;
        } else if (c.kind() == Kind::DottedName) {
          std::string name = dotted(c);
          name_module(n, prefix + name);
          bind(name, prefix + name);
        } else if (c.kind() == Kind::AliasedImport) {
          std::string name = dotted(c.field(Field::Name));
          name_module(n, prefix + name);
          if (Node alias = c.field(Field::Alias)) bind(std::string(alias.text()), prefix + name);
        }
      }
      continue;
    }
    if (!is_statement_container(kind)) continue;
    uint32_t scope = item.scope;
    if (kind == Kind::FunctionDefinition) scope = n.span().begin;
    Node guarded_body = kind == Kind::TryStatement && has_import_handler(n) ? n.field(Field::Body) : Node();
    // Children pushed in reverse so they are visited in source order (the later import wins).
    for (uint32_t i = n.named_child_count(); i-- > 0;) {
      Node c = n.named_child(i);
      bool guarded = item.guarded || (guarded_body && c == guarded_body);
      stack.push_back({c, scope, guarded});
    }
  }
  std::sort(table.guarded_statements_.begin(), table.guarded_statements_.end());
  std::sort(modules.begin(), modules.end());
  modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
  table.modules_ = std::move(modules);
  return table;
}

std::optional<std::string> ImportTable::resolve(std::string_view name, std::span<const uint32_t> scopes) const {
  for (uint32_t scope_id : scopes) {
    auto s = scopes_.find(scope_id);
    if (s == scopes_.end()) continue;
    if (const size_t* binding = s->second.names.find(name)) return bindings_[*binding].target;
    if (!s->second.star_modules.empty()) return s->second.star_modules.back() + "." + std::string(name);
  }
  return std::nullopt;
}

bool ImportTable::is_guarded(Node stmt) const {
  return std::binary_search(guarded_statements_.begin(), guarded_statements_.end(), stmt.span().begin);
}

bool ImportTable::imports(std::string_view module) const {
  if (std::binary_search(modules_.begin(), modules_.end(), module)) return true;
  // The names inside `module` are those from "module." on that start with it.
  std::string inside = std::string(module) + ".";
  auto it = std::lower_bound(modules_.begin(), modules_.end(), inside);
  return it != modules_.end() && it->starts_with(inside);
}

}  // namespace tpulint::python
