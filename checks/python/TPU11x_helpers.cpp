#include "checks/python/TPU11x_helpers.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace tpulint::checks::pyhelp {

using python::Field;
using python::Kind;
using python::Node;

std::vector<Decorator> decorators_of(Node function, const python::PythonContext& ctx) {
  std::vector<Decorator> out;
  Node parent = function.parent();
  if (!parent || parent.kind() != Kind::DecoratedDefinition) return out;
  for (uint32_t i = 0; i < parent.named_child_count(); ++i) {
    Node d = parent.named_child(i);
    if (d.kind() != Kind::Decorator || d.named_child_count() == 0) continue;
    Decorator dec{d.named_child(0), Node(), ""};
    Node target = dec.expr;
    if (target.kind() == Kind::Call) {
      dec.call = target;
      target = target.field(Field::Function);
    }
    if (const auto& q = ctx.qualified_name(target)) dec.name = *q;
    out.push_back(std::move(dec));
  }
  return out;
}

KernelDsl kernel_dsl(Node function, const python::PythonContext& ctx) {
  KernelDsl dsl = KernelDsl::None;
  for (const Decorator& d : decorators_of(function, ctx)) {
    const std::string& q = d.name;
    if (q == "triton.jit" || q == "triton.autotune" || q == "triton.heuristics") return KernelDsl::Triton;
    if (q == "numba.cuda.jit") {
      Node device = d.call ? python::call_arguments(d.call).keyword("device") : Node();
      return device && device.text() == "True" ? KernelDsl::NumbaCudaDevice : KernelDsl::NumbaCuda;
    }
    if (q == "cutlass.cute.kernel") return KernelDsl::CuteKernel;
    if (q == "tilelang.jit") return KernelDsl::TileLang;
    if (q == "tilelang.language.prim_func") dsl = KernelDsl::TileLang;
  }
  if (dsl == KernelDsl::TileLang) {
    // A prim_func built inside a @tilelang.jit function is that function's kernel.
    for (const python::Frame& f : ctx.frames())
      if (f.type == python::Frame::Type::Function &&
          std::find(f.decorators.begin(), f.decorators.end(), "tilelang.jit") != f.decorators.end())
        return KernelDsl::None;
  }
  return dsl;
}

kernels::Classification classify_kernel(Node function, KernelDsl dsl, const python::PythonContext& ctx) {
  auto name_of = [](Node fn) {
    Node name = fn.field(Field::Name);
    return name ? name.text() : std::string_view();
  };
  const std::string& path = ctx.file().path();
  kernels::Classification c = kernels::classify_named(name_of(function), path);
  if (!c.op) return c;
  size_t same_op = 0;
  const python::Tree* tree = function.tree();
  for (uint32_t id = 0; id < tree->node_count(); ++id) {
    Node fn(tree, id);
    if (fn.kind() != Kind::FunctionDefinition || !fn.parent() || fn.parent().kind() != Kind::DecoratedDefinition)
      continue;
    if (kernel_dsl(fn, ctx) == dsl && kernels::classify_named(name_of(fn), path).op == c.op) ++same_op;
  }
  return kernels::from_row(*c.op, same_op);
}

std::string_view display_name(KernelDsl dsl) {
  switch (dsl) {
    case KernelDsl::Triton: return "Triton";
    case KernelDsl::NumbaCuda: case KernelDsl::NumbaCudaDevice: return "Numba CUDA";
    case KernelDsl::CuteKernel: return "CuTe DSL";
    case KernelDsl::TileLang: return "TileLang";
    case KernelDsl::None: break;
  }
  return "";
}

HoursRange tile_kernel_hours(uint32_t lines) {
  if (lines <= 15) return {4, 12};
  if (lines <= 50) return {8, 24};
  if (lines <= 150) return {16, 48};
  return {24, 80};
}

HoursRange thread_kernel_hours(uint32_t lines) {
  if (lines <= 30) return {16, 40};
  if (lines <= 100) return {24, 64};
  return {40, 120};
}

std::string function_display_name(Node function, const python::PythonContext& ctx) {
  Node name = function.field(Field::Name);
  std::string out = name ? std::string(name.text()) : "";
  std::span<const python::Frame> frames = ctx.frames();
  if (!frames.empty() && frames.back().type == python::Frame::Type::Class) {
    ByteSpan body = frames.back().body, at = function.span();
    if (body.begin <= at.begin && at.end <= body.end)
      if (Node cls = frames.back().node.field(Field::Name)) out = std::string(cls.text()) + "." + out;
  }
  return out;
}

std::vector<std::string> string_literals(Node expr) {
  std::vector<std::string> out;
  std::vector<Node> stack{expr};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (!n) continue;
    if (n.kind() == Kind::String) {
      if (auto s = python::string_value(n)) out.push_back(std::move(*s));
      continue;
    }
    if (n.kind() == Kind::Lambda || n.kind() == Kind::FunctionDefinition) continue;
    for (uint32_t i = n.named_child_count(); i-- > 0;) stack.push_back(n.named_child(i));
  }
  return out;
}

Node current_scope_body(const python::PythonContext& ctx) {
  if (const python::Frame* f = ctx.enclosing_function()) return f->node.field(Field::Body);
  return ctx.tree().root();
}

namespace {

void collect_assignments(Node scope, std::string_view name, std::vector<Node>& out) {
  std::vector<Node> stack{scope};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    Kind k = n.kind();
    if (n != scope && (k == Kind::FunctionDefinition || k == Kind::ClassDefinition || k == Kind::Lambda)) continue;
    if (k == Kind::Assignment) {
      Node left = n.field(Field::Left);
      Node right = n.field(Field::Right);
      if (left && right && left.kind() == Kind::Identifier && left.text() == name) out.push_back(right);
      // `a = b = value`: the inner assignment is the right-hand side; keep walking into it.
      if (right && right.kind() == Kind::Assignment) stack.push_back(right);
      continue;
    }
    // Statements only: expressions hold no plain assignment worth following.
    if (k == Kind::Call || k == Kind::String || k == Kind::Attribute || k == Kind::Identifier) continue;
    for (uint32_t i = n.named_child_count(); i-- > 0;) stack.push_back(n.named_child(i));
  }
}

}  // namespace

std::vector<Node> assigned_values(std::string_view name, const python::PythonContext& ctx) {
  std::vector<Node> out;
  Node scope = current_scope_body(ctx);
  collect_assignments(scope, name, out);
  if (out.empty() && scope != ctx.tree().root()) collect_assignments(ctx.tree().root(), name, out);
  return out;
}

std::vector<Node> alternatives(Node expr) {
  if (expr.kind() == Kind::ConditionalExpression && expr.named_child_count() == 3)
    return {expr.named_child(0), expr.named_child(2)};
  return {expr};
}

std::vector<std::string> resolved_names(Node expr, const python::PythonContext& ctx) {
  if (const auto& q = ctx.qualified_name(expr)) return {*q};
  std::vector<std::string> out;
  if (expr.kind() != Kind::Identifier) return out;
  for (Node value : assigned_values(expr.text(), ctx)) {
    for (Node alt : alternatives(value)) {
      const auto& q = ctx.qualified_name(alt);
      if (q && std::find(out.begin(), out.end(), *q) == out.end()) out.push_back(*q);
    }
  }
  return out;
}

std::vector<std::string_view> from_import_names(Node stmt) {
  std::vector<std::string_view> out;
  Node module_name = stmt.field(Field::ModuleName);
  for (uint32_t i = 0; i < stmt.named_child_count(); ++i) {
    Node c = stmt.named_child(i);
    if (c == module_name) continue;
    Node name = c.kind() == Kind::AliasedImport ? c.field(Field::Name) : c;
    if (name && name.kind() == Kind::DottedName) out.push_back(name.text());
  }
  return out;
}

void mark_optional(Finding& f) {
  f.severity = Severity::Warning;
  f.effort = EffortClass::Low;
  f.hours = {0.25, 1};
}

namespace {

bool catches_import_error(Node except_clause) {
  if (!except_clause.field(Field::Value)) return true;  // bare `except:`
  for (uint32_t k = 0; k < except_clause.named_child_count(); ++k) {
    Node v = except_clause.named_child(k);
    if (v.kind() == Kind::Block) continue;
    for (std::string_view name : {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})
      if (v.text().find(name) != std::string_view::npos) return true;
  }
  return false;
}

// True if the handler's block ends with `raise`: the failed import still fails.
bool reraises(Node except_clause) {
  for (uint32_t k = except_clause.named_child_count(); k-- > 0;) {
    Node b = except_clause.named_child(k);
    if (b.kind() != Kind::Block) continue;
    for (uint32_t i = b.named_child_count(); i-- > 0;) {
      Node last = b.named_child(i);
      if (last.kind() == Kind::Comment) continue;
      return last.type() == "raise_statement";
    }
  }
  return false;
}

}  // namespace

ImportSummary summarize_imports(Node stmt, const python::PythonContext& ctx, const std::function<bool(Node)>& same) {
  ImportSummary out{true, is_optional_import(stmt, ctx)};
  std::vector<uint32_t> seen{stmt.span().begin};
  for (const python::ImportBinding& b : ctx.imports().bindings()) {
    uint32_t at = b.statement.span().begin;
    if (std::find(seen.begin(), seen.end(), at) != seen.end()) continue;
    seen.push_back(at);
    if (!same(b.statement)) continue;
    if (at < stmt.span().begin) out.first = false;
    if (!is_optional_import(b.statement, ctx)) out.optional = false;
  }
  return out;
}

bool is_optional_import(Node stmt, const python::PythonContext& ctx) {
  if (!ctx.imports().is_guarded(stmt)) return false;
  Node child = stmt;
  for (Node n = stmt.parent(); n; child = n, n = n.parent()) {
    if (n.kind() != Kind::TryStatement || child != n.field(Field::Body)) continue;
    for (uint32_t i = 0; i < n.named_child_count(); ++i) {
      Node c = n.named_child(i);
      if (c.kind() == Kind::ExceptClause && catches_import_error(c) && !reraises(c)) return true;
    }
  }
  return false;
}

namespace {

std::filesystem::path scan_root(const SourceFile& file) {
  std::filesystem::path root = file.absolute_path().parent_path();
  for (char c : file.path())
    if (c == '/') root = root.parent_path();
  return root;
}

}  // namespace

ProjectModule project_module(std::string_view module, const SourceFile& file) {
  namespace fs = std::filesystem;
  if (module.empty() || module.front() == '.') return ProjectModule::None;
  fs::path rel;
  for (size_t begin = 0; begin <= module.size();) {
    size_t dot = std::min(module.find('.', begin), module.size());
    rel /= std::string(module.substr(begin, dot - begin));
    begin = dot + 1;
  }
  std::error_code ec;
  auto kind_in = [&](const fs::path& dir) {
    if (fs::is_regular_file(dir / fs::path(rel.string() + ".py"), ec)) return ProjectModule::File;
    if (fs::is_regular_file(dir / rel / "__init__.py", ec)) return ProjectModule::Package;
    return ProjectModule::None;
  };
  ProjectModule k = kind_in(scan_root(file));
  if (k == ProjectModule::None && module.find('.') == std::string_view::npos)
    k = kind_in(file.absolute_path().parent_path());
  return k;
}

bool is_first_party(std::string_view top, const python::PythonContext& ctx) {
  namespace fs = std::filesystem;
  if (top.empty() || top.front() == '.' || top.find('.') != std::string_view::npos) return false;
  if (ctx.project().is_own_module(top)) return true;
  // A module beside the importing file counts too: scripts import their siblings
  // (`import flash_attn_interface` in a directory that holds flash_attn_interface.py).
  const SourceFile& file = ctx.file();
  if (is_python_module_in_project(top, file)) return true;
  std::error_code ec;
  fs::path root = scan_root(file);
  return root.filename() == std::string(top) && fs::is_regular_file(root / "__init__.py", ec);
}

std::string_view top_level(std::string_view dotted) { return dotted.substr(0, dotted.find('.')); }


}  // namespace tpulint::checks::pyhelp
