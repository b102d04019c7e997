#include "checks/python/TPU11x_helpers.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>
#include <fmt/format.h>

#include "data/library_standard_ops.h"

namespace tpulint::checks::pyhelp {

using python::Field;
using python::Kind;
using python::Node;

namespace {

// A module-level statement `NAME = W1(W2(FN))` or `NAME = W(...)(FN)`: the calls that wrap the
// module's function FN, outermost first, as decorators would be listed.
struct Rebinding {
  std::string_view bound;
  std::string_view function;
  std::vector<python::Decorator> wrappers;
};
struct Rebindings {
  bool built = false;
  std::vector<Rebinding> entries;
};

// The wrapped function's name, with the wrapping calls appended to `out`; empty when `call` is no
// chain of calls of imported names ending at a plain name.
std::string_view unwrap_call(Node call, const python::PythonContext& ctx, std::vector<python::Decorator>& out) {
  for (int depth = 0; call && call.kind() == Kind::Call && depth < 4; ++depth) {
    python::CallArguments args = python::call_arguments(call);
    if (args.positional.empty()) return {};
    Node callee = call.field(Field::Function);
    python::Decorator d{.expr = callee, .call = call, .target = callee, .qualified = {}};
    if (callee.kind() == Kind::Call) d.call = callee, d.target = callee.field(Field::Function);
    d.qualified = ctx.qualified_name(d.target);
    if (!d.qualified) return {};
    out.push_back(std::move(d));
    Node inner = python::unparenthesized(args.positional[0]);
    if (inner.kind() == Kind::Identifier) return inner.text();
    call = inner;
  }
  return {};
}

const Rebindings& module_rebindings(const python::PythonContext& ctx) {
  Rebindings& index = ctx.file_state<Rebindings>();
  if (index.built) return index;
  index.built = true;
  Node root = ctx.tree().root();
  for (uint32_t i = 0; i < root.named_child_count(); ++i) {
    Node stmt = root.named_child(i);
    if (stmt.kind() != Kind::ExpressionStatement || stmt.named_child_count() != 1) continue;
    Node assign = stmt.named_child(0);
    if (assign.kind() != Kind::Assignment) continue;
    Node left = assign.field(Field::Left), right = assign.field(Field::Right);
    if (!left || left.kind() != Kind::Identifier || !right || right.kind() != Kind::Call) continue;
    Rebinding r{.bound = left.text(), .function = {}, .wrappers = {}};
    r.function = unwrap_call(right, ctx, r.wrappers);
    if (!r.function.empty()) index.entries.push_back(std::move(r));
  }
  return index;
}

bool at_module_level(Node function) {
  Node up = function.parent();
  if (up && up.kind() == Kind::DecoratedDefinition) up = up.parent();
  return up && !up.parent();
}

// The kernel language one decorator or compiling call names, None for any other.
KernelDsl dsl_of(const python::Decorator& d) {
  const std::string_view q = d.qualified ? std::string_view(*d.qualified) : std::string_view();
  if (q == "triton.jit" || q == "triton.autotune" || q == "triton.heuristics") return KernelDsl::Triton;
  if (q == "numba.cuda.jit") {
    Node device = d.call ? python::call_arguments(d.call).keyword("device") : Node();
    return device && device.text() == "True" ? KernelDsl::NumbaCudaDevice : KernelDsl::NumbaCuda;
  }
  if (q == "cutlass.cute.kernel") return KernelDsl::CuteKernel;
  if (q == "tilelang.jit") return KernelDsl::TileLang;
  if (q == "cuda.tile.kernel") return KernelDsl::CuTile;
  return KernelDsl::None;
}

// A function's decorators, then the calls that compile it where the module rebinds a name to it.
std::vector<python::Decorator> wrappers_of(Node function, const python::PythonContext& ctx) {
  std::vector<python::Decorator> out = python::decorators_of(function, ctx);
  Node name = function.field(Field::Name);
  if (!name || !at_module_level(function)) return out;
  for (const Rebinding& r : module_rebindings(ctx).entries)
    if (r.function == name.text() && r.wrappers.front().expr.span().begin >= function.span().end)
      out.insert(out.end(), r.wrappers.begin(), r.wrappers.end());
  return out;
}

// Whether a function has decorators or is compiled where the module rebinds a name to it.
bool wrapped(Node fn, const python::PythonContext& ctx) {
  if (fn.kind() != Kind::FunctionDefinition) return false;
  if (fn.parent() && fn.parent().kind() == Kind::DecoratedDefinition) return true;
  Node name = fn.field(Field::Name);
  if (!name || !at_module_level(fn)) return false;
  const std::vector<Rebinding>& entries = module_rebindings(ctx).entries;
  return std::any_of(entries.begin(), entries.end(), [&](const Rebinding& r) { return r.function == name.text(); });
}

}  // namespace

KernelDsl kernel_dsl(Node function, const python::PythonContext& ctx) {
  KernelDsl dsl = KernelDsl::None;
  for (const python::Decorator& d : wrappers_of(function, ctx)) {
    if (KernelDsl named = dsl_of(d); named != KernelDsl::None) return named;
    if (d.qualified == "tilelang.language.prim_func") dsl = KernelDsl::TileLang;
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

std::string_view rebound_name(std::string_view name, const python::PythonContext& ctx) {
  for (const Rebinding& r : module_rebindings(ctx).entries)
    if (r.bound == name) return r.function;
  return {};
}

bool defines_kernels_of(std::string_view module, const python::PythonContext& ctx) {
  const python::Tree& tree = ctx.tree();
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node fn(&tree, id);
    if (!wrapped(fn, ctx) || kernel_dsl(fn, ctx) == KernelDsl::None) continue;
    for (const python::Decorator& dec : wrappers_of(fn, ctx))
      if (dec.qualified && python::has_module_prefix(*dec.qualified, module) && *dec.qualified != module) return true;
  }
  return false;
}

namespace {

std::string_view name_of(Node fn) {
  Node name = fn.field(Field::Name);
  return name ? name.text() : std::string_view();
}

std::string_view last_component(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

bool has_word(std::string_view text, std::string_view word) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    bool before = at > 0 && ident(text[at - 1]);
    bool after = at + word.size() < text.size() && ident(text[at + word.size()]);
    if (!before && !after) return true;
  }
  return false;
}

// `acc += x`, `m = tl.maximum(m, x)`: a value carried from one iteration to the next. Pointer
// and offset advances (`x_ptr += BLOCK`, `offs += BLOCK`) carry no work.
bool carries_value(Node loop) {
  const python::Tree* tree = loop.tree();
  for (uint32_t id = loop.id() + 1; id < tree->subtree_end(loop); ++id) {
    Node n(tree, id);
    const Kind type = n.kind();
    if (type != Kind::AugmentedAssignment && type != Kind::Assignment) continue;
    Node left = n.field(Field::Left), right = n.field(Field::Right);
    if (!left || !right) continue;
    if (type == Kind::AugmentedAssignment && left.kind() == Kind::Subscript) return true;  // `pos[i] += vel[i]`, each step
    if (left.kind() != Kind::Identifier) continue;
    std::string_view target = left.text();
    if (target.find("ptr") != std::string_view::npos || target.starts_with("off")) continue;
    if (type == Kind::AugmentedAssignment || has_word(right.text(), target)) return true;
  }
  return false;
}

struct PythonBody {
  kernels::KernelShape shape;
  bool memory = false;  // loads, stores, atomics, tl.program_id, element writes: a kernel, not a value helper
};

// The shape of a Triton, CuTe, Numba, TileLang or cuTile function from its syntax tree.
PythonBody python_body(Node fn) {
  PythonBody b;
  kernels::KernelShape& k = b.shape;
  k.lines = fn.line_count();
  const python::Tree* tree = fn.tree();
  for (uint32_t id = fn.id() + 1; id < tree->subtree_end(fn); ++id) {
    Node n(tree, id);
    if (!n.is_named()) continue;
    std::string_view type = n.type();
    if (type.ends_with("_statement")) {
      bool docstring = type == "expression_statement" && n.named_child_count() == 1 &&
                       n.named_child(0).kind() == Kind::String;
      if (!docstring) ++k.statements;
      if ((type == "for_statement" && carries_value(n)) || type == "while_statement") ++k.open_loops;
      continue;
    }
    if (type == "assignment" || type == "augmented_assignment") {
      Node left = n.field(Field::Left);
      if (left && left.kind() == Kind::Subscript) {
        ++k.stores;
        b.memory = true;
      }
      continue;
    }
    if (n.kind() != Kind::Call) continue;
    Node callee = n.field(Field::Function);
    if (!callee) continue;
    std::string_view text = callee.text(), last = last_component(text);
    if (last == "dot" || last == "dot_scaled" || last == "gemm" || last == "mma" || last.starts_with("mma_") ||
        last.ends_with("_mma") || text.find("wgmma") != std::string_view::npos)
      k.matmul = true;
    if (text.find("atomic") != std::string_view::npos) {
      k.block_level = true;
      b.memory = true;
    }
    bool stores = last.find("store") != std::string_view::npos || last == "copy";  // tl.store, desc.store, cute.copy
    if (stores || last.find("load") != std::string_view::npos || last == "program_id") b.memory = true;
    if (stores) ++k.stores;
    // Inline PTX is block-level code, but for the math approximations (`sin.approx.f32`,
    // `tanh.approx.f32`, `ex2.approx`): those are jnp.sin, jnp.tanh, jnp.exp2.
    bool approx_math = last == "inline_asm_elementwise" && n.text().find(".approx") != std::string_view::npos;
    if ((last == "inline_asm_elementwise" && !approx_math) || last == "cumsum" || last == "cumprod" || last == "associative_scan" ||
        last == "sort" || last == "histogram" || last == "debug_barrier" || last == "syncthreads" ||
        last == "barrier" || last == "syncwarp" || text.find("shared") != std::string_view::npos ||
        text.find("shfl") != std::string_view::npos)
      k.block_level = true;
  }
  return b;
}

bool calls(Node fn, std::string_view callee_name) {
  const python::Tree* tree = fn.tree();
  for (uint32_t id = fn.id() + 1; id < tree->subtree_end(fn); ++id) {
    Node n(tree, id);
    if (n.kind() != Kind::Call) continue;
    Node callee = n.field(Field::Function);
    if (callee && last_component(callee.text()) == callee_name) return true;
  }
  return false;
}

kernels::Classification classify(Node function, KernelDsl dsl, const python::PythonContext& ctx, int depth);

// A Triton helper takes values and returns values (no loads, stores or program ids): it is
// compiled into the kernels that call it, and ported with them, at no cost of its own. An
// elementwise one (`softplus`, `sin_approx`) is trivial; any other takes the class of the
// file's kernels that call it (novel when one of them is), or novel when none of them does.
kernels::Classification classify_helper(Node function, const PythonBody& body, const python::PythonContext& ctx,
                                        int depth) {
  kernels::KernelShape own = body.shape;
  own.stores = 1;  // it returns its value
  if (kernels::trivial_shape(own)) return {kernels::Kind::Trivial, nullptr, {}, true};
  kernels::Classification joined{kernels::Kind::Trivial, nullptr, {}, true};
  bool any = false;
  const python::Tree* tree = function.tree();
  std::string_view name = name_of(function);
  for (uint32_t id = 0; id < tree->node_count() && depth < 3; ++id) {
    Node fn(tree, id);
    if (fn == function || !wrapped(fn, ctx) || kernel_dsl(fn, ctx) != KernelDsl::Triton || !calls(fn, name)) continue;
    kernels::Classification c = classify(fn, KernelDsl::Triton, ctx, depth + 1);
    any = true;
    if (c.kind == kernels::Kind::Novel || (c.kind == kernels::Kind::Standard && joined.kind == kernels::Kind::Trivial))
      joined = {c.kind, c.op, {}, true};
    if (c.kind == kernels::Kind::Novel) break;
  }
  if (!any) joined = {kernels::Kind::Novel, nullptr, {}, true};
  return joined;
}

// The names a function calls: `f` of `f(x)` and of `mod.f(x)`.
std::vector<std::string_view> callee_names(Node fn) {
  std::vector<std::string_view> out;
  const python::Tree* tree = fn.tree();
  for (uint32_t id = fn.id() + 1; id < tree->subtree_end(fn); ++id) {
    Node n(tree, id);
    if (n.kind() != Kind::Call) continue;
    if (Node callee = n.field(Field::Function)) out.push_back(last_component(callee.text()));
  }
  return out;
}

std::vector<Node> wrapped_functions(const python::PythonContext& ctx) {
  std::vector<Node> out;
  const python::Tree* tree = &ctx.tree();
  for (uint32_t id = 0; id < tree->node_count(); ++id)
    if (Node fn(tree, id); wrapped(fn, ctx)) out.push_back(fn);
  return out;
}

// The function's shape with what the file's decorated functions it calls do (a kernel calling a
// scan helper scans): their matmuls, block-level operations and value-carrying loops.
PythonBody python_body_with_callees(Node function, const std::vector<Node>& defined) {
  PythonBody body = python_body(function);
  std::vector<Node> todo{function};
  std::vector<uint32_t> seen{function.id()};
  while (!todo.empty() && seen.size() < 16) {
    Node caller = todo.back();
    todo.pop_back();
    std::vector<std::string_view> names = callee_names(caller);
    for (Node fn : defined) {
      if (std::find(seen.begin(), seen.end(), fn.id()) != seen.end() ||
          std::find(names.begin(), names.end(), name_of(fn)) == names.end())
        continue;
      seen.push_back(fn.id());
      todo.push_back(fn);
      kernels::KernelShape callee = python_body(fn).shape;
      body.shape.matmul = body.shape.matmul || callee.matmul;
      body.shape.block_level = body.shape.block_level || callee.block_level;
      body.shape.open_loops += callee.open_loops;
    }
  }
  return body;
}

kernels::Classification classify(Node function, KernelDsl dsl, const python::PythonContext& ctx, int depth) {
  const std::string& path = ctx.file().path();
  const std::vector<Node> defined = wrapped_functions(ctx);
  PythonBody body = python_body_with_callees(function, defined);
  kernels::Classification c = kernels::classify_shaped(name_of(function), path, body.shape);
  if (c.kind == kernels::Kind::Novel && !body.memory && dsl == KernelDsl::Triton)
    return classify_helper(function, body, ctx, depth);
  if (!c.op || depth > 0) return c;
  // The op's hours are shared by the file's kernels of the same language that are that op.
  size_t same_op = 0;
  const kernels::StandardOp* file_op = kernels::op_of_file(path);
  for (Node fn : defined) {
    if (kernel_dsl(fn, ctx) != dsl) continue;
    // The name decides first; the shape only matters for a kernel that would take the file's op.
    if (const kernels::StandardOp* named = kernels::op_named(name_of(fn)); named || file_op != c.op) {
      if (named == c.op) ++same_op;
      continue;
    }
    if (kernels::classify_shaped(name_of(fn), path, python_body_with_callees(fn, defined).shape).op == c.op) ++same_op;
  }
  return kernels::from_row(*c.op, same_op);
}

}  // namespace

kernels::Classification classify_kernel(Node function, KernelDsl dsl, const python::PythonContext& ctx) {
  return classify(function, dsl, ctx, 0);
}

std::string_view display_name(KernelDsl dsl) {
  switch (dsl) {
    case KernelDsl::Triton: return "Triton";
    case KernelDsl::NumbaCuda: case KernelDsl::NumbaCudaDevice: return "Numba CUDA";
    case KernelDsl::CuteKernel: return "CuTe DSL";
    case KernelDsl::TileLang: return "TileLang";
    case KernelDsl::CuTile: return "cuTile";
    case KernelDsl::None: break;
  }
  return "";
}

HoursRange novel_kernel_hours(KernelDsl dsl, uint32_t lines) {
  if (dsl != KernelDsl::Triton && dsl != KernelDsl::TileLang && dsl != KernelDsl::CuTile)
    return kernels::novel_kernel_hours(lines);
  if (lines <= 15) return {4, 12};
  if (lines <= 50) return {8, 24};
  if (lines <= 150) return {16, 48};
  return {24, 80};
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

std::vector<Node> assigned_values(std::string_view name, const python::PythonContext& ctx) {
  Node scope = python::local_scope(ctx);
  std::vector<Node> out = python::assigned_values(name, scope);
  if (out.empty() && scope != ctx.tree().root()) out = python::assigned_values(name, ctx.tree().root());
  return out;
}

std::vector<Node> alternatives(Node expr) {
  // A worklist, not recursion: a chain of `a if c else b if d else ...` is as long as the input.
  std::vector<Node> out, pending{expr};
  while (!pending.empty()) {
    Node e = python::unparenthesized(pending.back());
    pending.pop_back();
    if (e && e.kind() == Kind::ConditionalExpression && e.named_child_count() == 3) {
      pending.push_back(e.named_child(2));
      pending.push_back(e.named_child(0));
    } else if (e) {
      out.push_back(e);
    }
  }
  return out;
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
      if (c.kind() == Kind::ExceptClause && python::catches_import_error(c) && !python::reraises(c)) return true;
    }
  }
  return false;
}

namespace {

std::filesystem::path scan_root(const SourceFile& file) { return scan_root_of(file.absolute_path(), file.path()); }

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

std::vector<NamedReference> called_or_subclassed(Node call_or_class) {
  auto is_name = [](Node n) { return n && (n.kind() == Kind::Identifier || n.kind() == Kind::Attribute); };
  std::vector<NamedReference> out;
  if (call_or_class.kind() == Kind::Call) {
    if (Node callee = call_or_class.field(Field::Function); is_name(callee)) out.push_back({callee, ""});
    return out;
  }
  for (uint32_t i = 0; i < call_or_class.named_child_count(); ++i) {
    Node bases = call_or_class.named_child(i);
    if (bases.kind() != Kind::ArgumentList) continue;
    for (uint32_t k = 0; k < bases.named_child_count(); ++k)
      if (Node base = bases.named_child(k); is_name(base)) out.push_back({base, "the base class "});
  }
  return out;
}

bool api_names(std::string_view api, std::string_view q) {
  if (api.ends_with('*')) return q.starts_with(api.substr(0, api.size() - 1));
  if (q == api) return true;
  size_t dot = api.rfind('.'), qdot = q.rfind('.');
  if (dot == std::string_view::npos || qdot == std::string_view::npos) return false;
  std::string_view parent = api.substr(0, dot + 1);  // "flash_attn."
  std::string_view q_parent = q.substr(0, qdot + 1);
  return q_parent.size() > parent.size() && q_parent.starts_with(parent) &&
         q_parent.substr(parent.size(), q_parent.size() - parent.size() - 1).find('.') == std::string_view::npos &&
         q.substr(qdot) == api.substr(dot);
}

void report_library_standard_op(Node ref, std::string_view kind, std::string_view role, python::PythonContext& ctx) {
  static const std::vector<std::string_view> kPackages =
      top_level_packages(data::kLibraryStandardOps, &data::LibraryStandardOpsRow::api);
  const auto& q = ctx.qualified_name(ref);
  if (!q || !in_packages(kPackages, *q)) return;
  const data::LibraryStandardOpsRow* row = nullptr;
  for (const auto& r : data::kLibraryStandardOps)
    if (r.kind == kind && api_names(r.api, *q)) row = &r;
  if (!row || is_first_party(top_level(row->api), ctx)) return;
  const kernels::StandardOp* op = kernels::op_row(row->op);
  if (!op) return;
  Finding& f = ctx.report(ref, fmt::format("{}'{}' runs a C++/CUDA kernel that PyTorch/XLA does not lower (the CPU "
                                           "runs it, every step): {}, a standard op with a TPU replacement: use {}",
                                           role, *q, op->title, op->use));
  kernels::apply_standard_op_use(f, *op, row->op);
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
