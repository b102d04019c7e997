#include "checks/python/TPU2xx_helpers.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/frameworks/code_roles.h"
#include "checks/python/frameworks/torch.h"

namespace tpulint::checks::dyn {

using python::Field;
using python::Kind;

namespace {

// The method name of `recv.name(...)`, or "".
std::string_view method_name(Node call) {
  if (call.kind() != Kind::Call) return {};
  Node callee = call.field(Field::Function);
  return callee.kind() == Kind::Attribute ? callee.field(Field::Attribute).text() : std::string_view();
}

// The operator token of a binary or unary operator node.
std::string_view operator_token(Node op) {
  for (uint32_t i = 0; i < op.child_count(); ++i)
    if (!op.child(i).is_named()) return op.child(i).type();
  return {};
}

}  // namespace

Node last_assignment(std::string_view name, uint32_t before, const PythonContext& ctx) {
  return python::last_assigned_value(name, python::local_scope(ctx), before);
}

std::vector<std::string_view> comparison_operators(Node comparison) {
  std::vector<std::string_view> ops;
  for (uint32_t i = 0; i < comparison.child_count(); ++i)
    if (!comparison.child(i).is_named()) ops.push_back(comparison.child(i).type());
  return ops;
}

bool is_elementwise_comparison(Node comparison) {
  comparison = python::unparenthesized(comparison);
  if (!comparison || comparison.kind() != Kind::ComparisonOperator) return false;
  for (std::string_view op : comparison_operators(comparison))
    if (!one_of(op, {"<", ">", "<=", ">=", "==", "!="})) return false;
  for (uint32_t i = 0; i < comparison.named_child_count(); ++i) {
    Node operand = python::unparenthesized(comparison.named_child(i));
    if (operand.kind() == Kind::String || operand.kind() == Kind::None || operand.kind() == Kind::ConcatenatedString)
      return false;
  }
  return true;
}

std::vector<Node> subscript_indices(Node subscript) {
  std::vector<Node> out;
  Node value = subscript.field(Field::Value);
  for (uint32_t i = 0; i < subscript.named_child_count(); ++i) {
    Node c = subscript.named_child(i);
    if (c == value || c.kind() == Kind::Comment) continue;
    out.push_back(c);
  }
  return out;
}

bool indexes_other_library(Node value, const PythonContext& ctx, std::string_view framework) {
  value = python::unparenthesized(value);
  if (value.kind() == Kind::Attribute && one_of(python::last_name(value), {"loc", "iloc", "at", "iat"})) return true;
  Node root = python::chain_root(value);
  if (root.kind() != Kind::Identifier) return false;
  const auto& q = ctx.qualified_name(root);
  return q && !python::has_module_prefix(*q, framework);
}

namespace {

ArrayOrigin array_origin_at(Node e, const PythonContext& ctx, int hops) {
  e = python::unparenthesized(e);
  if (!e) return ArrayOrigin::Unknown;
  if (e.kind() == Kind::Identifier) {
    if (hops >= kMaxAssignmentHops) return ArrayOrigin::Unknown;
    Node value = last_assignment(e.text(), e.span().begin, ctx);
    return value ? array_origin_at(value, ctx, hops + 1) : ArrayOrigin::Unknown;
  }
  if (e.kind() == Kind::Subscript) return array_origin_at(e.field(Field::Value), ctx, hops);
  if (e.kind() == Kind::Call) {
    Node callee = e.field(Field::Function);
    if (const auto& q = ctx.qualified_name(callee))
      return *q == "torch" || q->starts_with("torch.") ? ArrayOrigin::Torch : ArrayOrigin::Other;
    if (callee.kind() != Kind::Attribute) return ArrayOrigin::Unknown;
    std::string_view method = callee.field(Field::Attribute).text();
    if (method == "numpy" || method == "astype") return ArrayOrigin::Other;
    return array_origin_at(callee.field(Field::Object), ctx, hops);
  }
  const Kind t = e.kind();
  if (t == Kind::ComparisonOperator || t == Kind::BinaryOperator || t == Kind::UnaryOperator || t == Kind::NotOperator) {
    for (uint32_t i = 0; i < e.named_child_count(); ++i)
      if (ArrayOrigin o = array_origin_at(e.named_child(i), ctx, hops); o != ArrayOrigin::Unknown) return o;
  }
  return ArrayOrigin::Unknown;
}

}  // namespace

ArrayOrigin array_origin(Node expr, const PythonContext& ctx) { return array_origin_at(expr, ctx, 0); }

bool numpy_argument(Node expr, const PythonContext& ctx) {
  Node list = expr.parent();
  if (!list || list.kind() != Kind::ArgumentList) return false;
  Node call = list.parent();
  auto q = call ? ctx.qualified_name(call.field(Field::Function)) : std::nullopt;
  return q && (q->starts_with("numpy.") || *q == "torch.from_numpy");
}

bool in_numpy_only_function(const PythonContext& ctx) {
  const python::Frame* f = ctx.enclosing_function();
  if (!f || !ctx.imports().imports("numpy")) return false;
  bool numpy = false;
  std::vector<Node> stack{f->node.field(Field::Body)};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (!n) continue;
    if (n.kind() == Kind::Identifier) {
      if (const auto& q = ctx.qualified_name(n)) {
        if (*q == "torch" || q->starts_with("torch.")) return false;
        if (*q == "numpy" || q->starts_with("numpy.")) numpy = true;
      }
      continue;
    }
    for (uint32_t i = 0; i < n.named_child_count(); ++i) stack.push_back(n.named_child(i));
  }
  return numpy;
}

bool in_data_loading(const PythonContext& ctx) {
  for (const python::Frame& f : ctx.frames()) {
    if (f.type != python::Frame::Type::Function) continue;
    std::string_view name = f.node.field(Field::Name).text();
    if (pyapi::lower_equals(name, "__getitem__") || pyapi::lower_contains(name, "collate")) return true;
  }
  return false;
}

namespace {

// `mask`, `valid_mask`, `fg_masks`, `attnmask`, `mask_i`, `mask2`; not `mask_idx`, `num_mask_tokens`,
// `mask_label_symmetries` (a mask's indices, counts or properties).
bool named_like_mask(std::string_view name) {
  std::string lower = pyapi::ascii_lower(name);
  std::vector<std::string_view> words;
  for (size_t begin = 0; begin <= lower.size();) {
    size_t end = std::min(lower.find('_', begin), lower.size());
    if (end > begin) words.push_back(std::string_view(lower).substr(begin, end - begin));
    begin = end + 1;
  }
  // Skip a one-letter or numeric suffix: `mask_i`, `mask2`, `mask_2`.
  while (!words.empty() && std::isdigit(static_cast<unsigned char>(words.back().back()))) {
    words.back().remove_suffix(1);
    if (words.back().empty()) words.pop_back();
  }
  if (words.size() > 1 && words.back().size() == 1) words.pop_back();
  return !words.empty() && (words.back().ends_with("mask") || words.back().ends_with("masks"));
}

constexpr std::array<std::string_view, 22> kTorchPredicates = {
    "all",         "any",         "bool",        "eq",          "ge",          "gt",         "isclose",     "isfinite",   "isin",
    "isinf",       "isnan",       "isneginf",    "isposinf",   "isreal",      "le",         "logical_and",
    "logical_not", "logical_or",  "logical_xor", "lt",         "ne",          "signbit"};

bool is_torch_predicate_call(Node call, const PythonContext& ctx) {
  if (call.kind() != Kind::Call) return false;
  Node callee = call.field(Field::Function);
  const auto& q = ctx.qualified_name(callee);
  std::string_view name;
  if (q) {
    if (!q->starts_with("torch.") || q->find('.', 6) != std::string::npos) return false;
    name = std::string_view(*q).substr(6);
  } else if (pyapi::method_receiver_may_be(callee, ctx, "torch")) {
    name = method_name(call);
  }
  return std::find(kTorchPredicates.begin(), kTorchPredicates.end(), name) != kTorchPredicates.end();
}

bool is_torch_mask_at(Node index, const PythonContext& ctx, int hops) {
  index = python::unparenthesized(index);
  if (!index) return false;
  const Kind t = index.kind();
  if (t == Kind::ComparisonOperator) return is_elementwise_comparison(index);
  if (t == Kind::BinaryOperator) {
    if (!one_of(operator_token(index), {"&", "|", "^"})) return false;
    return is_torch_mask_at(index.field(Field::Left), ctx, hops) ||
           is_torch_mask_at(index.field(Field::Right), ctx, hops);
  }
  if (t == Kind::UnaryOperator) {
    if (operator_token(index) != "~") return false;
    Node operand = python::unparenthesized(index.named_child(0));
    return operand.kind() == Kind::Identifier || operand.kind() == Kind::Attribute ||
           is_torch_mask_at(operand, ctx, hops);
  }
  if (index.kind() == Kind::Call) return is_torch_predicate_call(index, ctx);
  if (index.kind() == Kind::Identifier) {
    if (hops < kMaxAssignmentHops) {
      if (Node value = last_assignment(index.text(), index.span().begin, ctx)) {
        if (is_torch_mask_at(value, ctx, hops + 1)) return true;
        // An assignment that computes something else decides it: `mask_ids = torch.arange(n)`.
        Node v = python::unparenthesized(value);
        if (v.kind() == Kind::Call || v.kind() == Kind::BinaryOperator || v.kind() == Kind::Integer ||
            v.kind() == Kind::List || v.kind() == Kind::Tuple)
          return false;
      }
    }
    return named_like_mask(index.text());
  }
  if (index.kind() == Kind::Attribute) return named_like_mask(index.field(Field::Attribute).text());
  return false;
}

}  // namespace

bool is_torch_mask(Node index, const PythonContext& ctx) { return is_torch_mask_at(index, ctx, 0); }

namespace {

// torch functions and Tensor methods returning a number of dynamic-shape results, whose value
// read on the host is data dependent.
constexpr std::array<std::string_view, 6> kDynamicShapeOps = {"argwhere", "masked_select", "nonzero",
                                                             "unique", "unique_consecutive", "where"};
// Reductions (and `.long()` of one) whose 0-d result, used as a Python number, is a value read
// from the device.
constexpr std::array<std::string_view, 9> kValueReductions = {"amax", "amin",  "argmax", "count_nonzero", "max",
                                                              "min",  "prod", "sum",    "long"};

std::string fmt_method(std::string_view method) { return "'." + std::string(method) + "()'"; }

// The name of a torch op `call` calls, in function (`torch.sum(x)`) or method (`x.sum()`) form.
std::string_view torch_op_name(Node call, const PythonContext& ctx, std::string& storage) {
  if (call.kind() != Kind::Call) return {};
  Node callee = call.field(Field::Function);
  if (const auto& q = ctx.qualified_name(callee)) {
    if (!q->starts_with("torch.") || q->find('.', 6) != std::string::npos) return {};
    storage = q->substr(6);
    return storage;
  }
  if (pyapi::method_receiver_may_be(callee, ctx, "torch")) return method_name(call);
  return {};
}

// True for an expression whose result has a data-dependent length: `torch.nonzero(m)`,
// `x.unique()`, `x[mask]`.
// True for `torch.where(m)` and `nonzero(m, as_tuple=True)`: a tuple of data-dependent-length
// index tensors.
bool returns_index_tuple(Node expr, const PythonContext& ctx) {
  expr = python::unparenthesized(expr);
  std::string storage;
  std::string_view op = torch_op_name(expr, ctx, storage);
  if (op.empty()) return false;
  auto args = python::call_arguments(expr);
  if (op == "where") return args.positional.size() == 1 && args.keywords.empty();
  return op == "nonzero" && pyapi::bool_literal(args.keyword("as_tuple")) == true;
}

bool has_dynamic_length(Node expr, const PythonContext& ctx, int hops = 0) {
  expr = python::unparenthesized(expr);
  if (expr.kind() == Kind::Identifier && hops < kMaxAssignmentHops) {
    Node value = last_assignment(expr.text(), expr.span().begin, ctx);
    return value && has_dynamic_length(value, ctx, hops + 1);
  }
  if (expr.kind() == Kind::Subscript) {
    std::vector<Node> indices = subscript_indices(expr);
    for (Node index : indices)
      if (is_torch_mask(index, ctx)) return true;
    // `nonzero(m)[:, 0]` keeps the dynamic first dimension; `torch.where(m)[0]` is one of the
    // index tensors of a tuple result.
    Node value = expr.field(Field::Value);
    if (indices.empty()) return false;
    Node first = indices[0].kind() == Kind::Tuple ? indices[0].named_child(0) : indices[0];
    if (first && first.kind() == Kind::Slice) return has_dynamic_length(value, ctx, hops);
    if (first && pyapi::int_literal(first)) return returns_index_tuple(value, ctx);
    return false;
  }
  std::string storage;
  std::string_view op = torch_op_name(expr, ctx, storage);
  // `torch.where(c, a, b)` selects elementwise; only the one-argument form returns indices.
  if (op == "where") return python::call_arguments(expr).positional.size() == 1;
  return contains(kDynamicShapeOps, op);
}

std::optional<std::string> host_value_at(Node expr, const PythonContext& ctx, int hops) {
  expr = python::unparenthesized(expr);
  if (!expr) return std::nullopt;
  if (expr.kind() == Kind::BinaryOperator) {
    if (auto l = host_value_at(expr.field(Field::Left), ctx, hops)) return l;
    return host_value_at(expr.field(Field::Right), ctx, hops);
  }
  if (expr.kind() == Kind::UnaryOperator) return host_value_at(expr.named_child(0), ctx, hops);
  if (expr.kind() == Kind::Identifier) {
    if (hops >= kMaxAssignmentHops) return std::nullopt;
    Node value = last_assignment(expr.text(), expr.span().begin, ctx);
    return value ? host_value_at(value, ctx, hops + 1) : std::nullopt;
  }
  // `mask.nonzero().shape[0]`, `len(torch.unique(x))`, `x[mask].size(0)`, `keep.numel()`.
  if (expr.kind() == Kind::Subscript) {
    Node value = expr.field(Field::Value);
    // Only the first dimension is the data-dependent one (`x[mask]`, `nonzero(m)` rows).
    auto indices = subscript_indices(expr);
    if (value.kind() == Kind::Attribute && value.field(Field::Attribute).text() == "shape" && indices.size() == 1 &&
        pyapi::int_literal(indices[0]) == 0 && has_dynamic_length(value.field(Field::Object), ctx))
      return "the length of a data-dependent result";
    return std::nullopt;
  }
  if (expr.kind() != Kind::Call) return std::nullopt;
  Node callee = expr.field(Field::Function);
  auto args = python::call_arguments(expr);
  if (callee.kind() == Kind::Identifier && !ctx.qualified_name(callee)) {
    std::string_view builtin = callee.text();
    if (builtin == "len" && args.positional.size() == 1 && has_dynamic_length(args.positional[0], ctx))
      return "len() of a data-dependent result";
    // A conversion of one (`int(n)`, `round(n)`), or a bound on one (`max(int(n), 0)`, `min(n, limit)`,
    // `abs(n)`), changes with it.
    const bool conversion = (builtin == "int" || builtin == "round") && args.positional.size() == 1;
    if (conversion || builtin == "max" || builtin == "min" || builtin == "abs")
      for (Node arg : args.positional)
        if (auto inner = host_value_at(arg, ctx, hops)) return inner;
    return std::nullopt;
  }
  std::string_view method = method_name(expr);
  bool torch_receiver = callee.kind() == Kind::Attribute && !ctx.qualified_name(callee) &&
                        pyapi::method_receiver_may_be(callee, ctx, "torch");
  if (torch_receiver) {
    if (method == "item" || method == "tolist") return fmt_method(method);
    bool first_dim = args.positional.empty() || pyapi::int_literal(args.positional[0]) == 0;
    if ((method == "size" || method == "numel") && first_dim && has_dynamic_length(callee.field(Field::Object), ctx))
      return "the length of a data-dependent result";
    if (contains(kValueReductions, method) && args.positional.empty() && args.keywords.empty())
      return fmt_method(method);
    return std::nullopt;
  }
  std::string storage;
  std::string_view op = torch_op_name(expr, ctx, storage);
  if (!op.empty() && contains(kValueReductions, op) && args.positional.size() == 1 && args.keywords.empty())
    return "torch." + std::string(op) + "()";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> host_value_from_tensor(Node expr, const PythonContext& ctx) {
  return host_value_at(expr, ctx, 0);
}

std::span<const Kind> branch_kinds() {
  static constexpr Kind k[] = {Kind::IfStatement, Kind::ElifClause, Kind::WhileStatement, Kind::ConditionalExpression};
  return k;
}

Node branch_condition(Node branch) {
  return branch.kind() == Kind::ConditionalExpression ? branch.named_child(1) : branch.field(Field::Condition);
}

std::string_view branch_statement(Node branch) {
  switch (branch.kind()) {
    case Kind::WhileStatement:
      return "'while'";
    case Kind::ElifClause:
      return "'elif'";
    case Kind::ConditionalExpression:
      return "conditional expression";
    default:
      return "'if'";
  }
}

bool in_torch_step(const PythonContext& ctx) {
  if (!ctx.imports().imports("torch")) return false;
  const python::Frame* innermost = ctx.enclosing_function();
  if (!innermost) return false;
  std::span<const python::Frame> frames = ctx.frames();
  for (size_t i = 0; i < frames.size(); ++i) {
    const python::Frame& f = frames[i];
    if (f.type != python::Frame::Type::Function) continue;
    if (innermost->body.begin < f.body.begin || innermost->body.begin >= f.body.end) continue;
    for (const std::string& d : f.decorators)
      if (d == "torch.compile") return true;
    std::string name = pyapi::ascii_lower(f.node.field(Field::Name).text());
    // A unit test (`test_dropout_train_mode`) checks results on purpose; Lightning's `test_step` is a step.
    if (is_test_function(f.node.field(Field::Name).text()) && name != "test_step") return false;
    if (name == "forward" || name == "__call__" || name.find("train") != std::string::npos ||
        name.find("step") != std::string::npos || name.find("loss") != std::string::npos)
      return true;
    // Any method of a torch module runs in its forward pass, except set-up code.
    bool setup = name == "__init__" || name == "extra_repr" || name.starts_with("reset_") ||
                 name.starts_with("init") || name.starts_with("_init") || name.starts_with("load_");
    if (!setup && i > 0 && frames[i - 1].type == python::Frame::Type::Class &&
        f.node.span().begin >= frames[i - 1].body.begin && f.node.span().end <= frames[i - 1].body.end &&
        torch::derives_from_module(frames[i - 1].node, ctx))
      return true;
  }
  return false;
}

namespace {

// The keywords naming a JAX transform's static arguments.
constexpr std::array<std::string_view, 3> kStaticKeywords = {"static_argnums", "static_argnames",
                                                              "static_broadcasted_argnums"};

// A decorator's or transform call's static arguments, as parameter positions and names.
struct StaticArguments {
  std::vector<long long> positions;
  std::set<std::string> names;
  bool unknown = false;  // given by an expression this file does not spell out (`static_argnums=argnums`)
};

void collect_static(const python::CallArguments& args, std::string_view transform, StaticArguments& out) {
  if (args.has_splat) out.unknown = true;
  // vmap leaves `in_axes=None` arguments unbatched, and shard_map treats `in_specs=None` ones as
  // static: they reach the function as they were given.
  const std::string_view per_argument = transform.ends_with("vmap")        ? "in_axes"
                                        : transform.ends_with("shard_map") ? "in_specs"
                                                                           : "";
  if (!per_argument.empty())
    if (Node axes = python::unparenthesized(args.keyword(per_argument));
        axes && (axes.kind() == Kind::Tuple || axes.kind() == Kind::List)) {
      long long position = 0;  // of the entry: a comment between entries is no entry
      for (uint32_t i = 0; i < axes.named_child_count(); ++i) {
        Node entry = axes.named_child(i);
        if (entry.kind() == Kind::Comment) continue;
        if (python::is_none(entry)) out.positions.push_back(position);
        ++position;
      }
    }
  for (const auto& [key, value] : args.keywords) {
    if (!contains(kStaticKeywords, key)) continue;
    std::vector<Node> items;
    Node v = python::unparenthesized(value);
    if (v.kind() == Kind::Tuple || v.kind() == Kind::List)
      for (uint32_t i = 0; i < v.named_child_count(); ++i) items.push_back(v.named_child(i));
    else
      items.push_back(v);
    for (Node item : items) {
      if (auto n = pyapi::int_literal(item))
        out.positions.push_back(*n);
      else if (auto s = python::string_value(item))
        out.names.insert(*s);
      else if (!python::is_none(item))
        out.unknown = true;
    }
  }
}

// The names passed as positional arguments to tracing transforms in the tree being walked
// (`step` in `jax.jit(step, static_argnums=1)`), by name, in source order; and the functions handed
// to host callbacks (`callback` in `jax.debug.callback(callback, metrics)`). Built once per walk:
// searching the file for each function's name, for every function, was quadratic in its length.
struct TransformArguments {
  bool built = false;
  std::unordered_map<std::string_view, std::vector<Node>> by_name;  // views into the walked text
  std::unordered_map<std::string_view, std::vector<Node>> to_host;  // the callbacks' first arguments
};

const TransformArguments& transform_arguments(const PythonContext& ctx) {
  TransformArguments& index = ctx.file_state<TransformArguments>();
  if (!index.built) {
    index.built = true;
    const python::Tree& tree = ctx.tree();
    for (uint32_t id = 0; id < tree.node_count(); ++id) {
      Node call(&tree, id);
      if (call.kind() != Kind::Call) continue;
      Node args = call.field(Field::Arguments);
      if (!args || args.kind() != Kind::ArgumentList) continue;
      const auto& q = ctx.qualified_name(call.field(Field::Function));
      if (!q) continue;
      if (is_abstract_transform(*q)) {
        for (uint32_t i = 0; i < args.named_child_count(); ++i)
          if (Node a = args.named_child(i); a.kind() == Kind::Identifier) index.by_name[a.text()].push_back(a);
      } else if (is_host_callback(*q) && args.named_child_count() > 0) {
        if (Node a = args.named_child(0); a.kind() == Kind::Identifier) index.to_host[a.text()].push_back(a);
      }
    }
    // A call's arguments are listed when the call is met: `jax.jit(jax.vmap(f), f)` lists jit's
    // `f` before vmap's, which comes first in the source.
    for (auto& [_, refs] : index.by_name)
      std::sort(refs.begin(), refs.end(), [](Node a, Node b) { return a.span().begin < b.span().begin; });
  }
  return index;
}

const std::vector<Node>& passed_to_transforms(std::string_view name, const PythonContext& ctx) {
  const TransformArguments& index = transform_arguments(ctx);
  static const std::vector<Node> kNone;
  auto it = index.by_name.find(name);
  return it == index.by_name.end() ? kNone : it->second;
}

// The function, class or module whose scope `n` (a definition or a reference) belongs to.
Node defining_scope(Node n) {
  for (Node p = n.parent(); p; p = p.parent())
    if (p.kind() == Kind::FunctionDefinition || p.kind() == Kind::ClassDefinition || p.kind() == Kind::Module)
      return p;
  return Node();
}

// How `function` is traced: by a decorator, or by being passed by name to a transform call
// anywhere in the file (`step = jax.jit(step, static_argnums=1)`). Adds the static arguments.
// Whether `function` is handed to a host callback in its own scope: JAX calls it on the host with
// concrete values, so Python control flow in it is no trace-time error.
bool handed_to_host_callback(Node function, const PythonContext& ctx) {
  const TransformArguments& index = transform_arguments(ctx);
  auto it = index.to_host.find(function.field(Field::Name).text());
  if (it == index.to_host.end()) return false;
  return std::any_of(it->second.begin(), it->second.end(),
                     [&](Node ref) { return defining_scope(ref) == defining_scope(function); });
}

std::optional<std::string> tracing_of(Node function, const PythonContext& ctx, StaticArguments& statics) {
  std::optional<std::string> found;
  for (const python::Decorator& d : python::decorators_of(function, ctx)) {
    if (!d.qualified || !is_abstract_transform(*d.qualified)) continue;
    if (d.call) collect_static(python::call_arguments(d.call), *d.qualified, statics);
    if (!found) found = *d.qualified;
  }
  // Calls that take the function by name.
  for (Node ref : passed_to_transforms(function.field(Field::Name).text(), ctx)) {
    // The same name in another scope is another function (test files define many `f`s).
    if (defining_scope(ref) != defining_scope(function)) continue;
    // The index lists only arguments of calls whose callee resolves to a tracing transform.
    Node call = ref.parent().parent();
    const std::string& q = *ctx.qualified_name(call.field(Field::Function));
    collect_static(python::call_arguments(call), q, statics);
    if (!found) found = q;
  }
  return found;
}

// A parameter's name, and whether its default is a literal that marks a Python-level option
// (`training=False`, `mode="sum"`, `axis=None`): left at its default, it is not traced.
struct Parameter {
  std::string_view name;
  bool literal_default = false;
  bool positional = true;
  std::string_view annotation;  // `int` in `seq_id: int`; empty when there is none
};

// Equinox's filter transforms trace only the array leaves of their arguments: a parameter annotated
// as a Python scalar or string reaches the function as the Python value it was given.
bool static_under(std::string_view transform, const Parameter& p) {
  return transform.starts_with("equinox.filter_") && one_of(p.annotation, {"int", "float", "bool", "str", "complex"});
}

// `Mode.TRAIN`, `NormalizationType.NORMAL`: an enum member or class constant by the naming convention
// (an upper-case last name), which JAX cannot trace, as a string.
bool enum_member(Node value) {
  if (value.kind() != Kind::Attribute) return false;
  Node attr = value.field(Field::Attribute);
  if (!attr) return false;
  bool letter = false;
  for (char c : attr.text()) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    letter = letter || std::isupper(static_cast<unsigned char>(c));
  }
  return letter;
}

std::vector<Parameter> parameters_of(Node function) {
  std::vector<Parameter> out;
  Node params = function.field(Field::Parameters);
  if (!params) return out;
  bool keyword_only = false;
  for (uint32_t i = 0; i < params.named_child_count(); ++i) {
    Node p = params.named_child(i);
    std::string_view t = p.type();
    if (t == "keyword_separator" || t == "list_splat_pattern") keyword_only = true;
    if (t == "identifier") {
      out.push_back({p.text(), false, !keyword_only, {}});
    } else if (t == "typed_parameter") {
      Node id = p.named_child(0);
      Node type = p.field(Field::Type);
      if (id && id.kind() == Kind::Identifier)
        out.push_back({id.text(), false, !keyword_only, type ? type.text() : std::string_view()});
    } else if (t == "default_parameter" || t == "typed_default_parameter") {
      Node id = p.field(Field::Name);
      Node value = python::unparenthesized(p.field(Field::Value));
      Node type = p.field(Field::Type);
      const Kind vt = value.kind();
      bool literal = vt == Kind::True || vt == Kind::False || vt == Kind::None || vt == Kind::String ||
                     enum_member(value);
      if (id) out.push_back({id.text(), literal, !keyword_only, type ? type.text() : std::string_view()});
    }
  }
  return out;
}

}  // namespace

namespace {

bool uses_traced_at(Node e, const TracedScope& scope, const PythonContext& ctx, int hops);

// Whether `helper`, a function defined inside `outer` with no transform of its own, is only called
// there, each call passing values computed from no traced name: its parameters then hold static
// values (an axis, a block size: `_positive(ax)` for each `ax` of a static `axes`). A helper handed
// to a transform (`lax.scan(body, ...)`), or used in any other way, or not used at all, is not.
bool only_called_with_static_values(Node helper, Node outer, const TracedScope& scope, const PythonContext& ctx) {
  Node name = helper.field(Field::Name);
  if (!name) return false;
  const python::Tree* tree = outer.tree();
  // A function too large to read for each helper in it (nested functions a thousand deep) keeps the
  // helper's parameters traced, as before this reading.
  if (tree->subtree_end(outer) - outer.id() > 100000) return false;
  bool called = false;
  for (uint32_t id = outer.id() + 1; id < tree->subtree_end(outer); ++id) {
    Node n(tree, id);
    if (n.kind() != Kind::Identifier || n.text() != name.text() || n == name) continue;
    Node call = n.parent();
    if (!call || call.kind() != Kind::Call || call.field(Field::Function) != n) return false;
    const python::CallArguments args = python::call_arguments(call);
    if (args.has_splat) return false;
    for (Node a : args.positional)
      if (uses_traced_at(a, scope, ctx, 0)) return false;
    for (const auto& [keyword, a] : args.keywords)
      if (uses_traced_at(a, scope, ctx, 0)) return false;
    called = true;
  }
  return called;
}

}  // namespace

std::optional<TracedScope> jax_traced_scope(const PythonContext& ctx) {
  if (!ctx.imports().imports("jax")) return std::nullopt;
  const python::Frame* innermost = ctx.enclosing_function();
  if (!innermost) return std::nullopt;
  // The functions around the innermost one decide, and finding how each is traced searches the
  // file for its name: the last answer is kept for the next node in the same function (every
  // branch and subscript of a function asks).
  struct LastScope {
    std::optional<uint32_t> function;  // the innermost function's node id
    std::optional<TracedScope> scope;
  };
  LastScope& last = ctx.file_state<LastScope>();
  if (last.function == innermost->node.id()) return last.scope;
  last.function = innermost->node.id();
  std::optional<TracedScope>& scope = last.scope;
  scope.reset();
  Node outer;  // the function around `f`
  for (const python::Frame& f : ctx.frames()) {
    if (f.type != python::Frame::Type::Function) continue;
    if (innermost->body.begin < f.body.begin || innermost->body.begin >= f.body.end) continue;
    if (handed_to_host_callback(f.node, ctx)) {  // host code, whatever traces the functions around it
      scope.reset();
      outer = f.node;
      continue;
    }
    StaticArguments statics;
    auto transform = tracing_of(f.node, ctx, statics);
    const Node enclosing = std::exchange(outer, f.node);
    if (!transform && !scope) continue;
    if (!scope) scope = TracedScope{*transform, {}};
    if (statics.unknown) continue;  // any parameter may be static
    if (!transform && enclosing && only_called_with_static_values(f.node, enclosing, *scope, ctx)) continue;
    long long position = 0;
    for (const Parameter& p : parameters_of(f.node)) {
      long long at = p.positional ? position++ : -1;
      if (p.name == "self" || p.name == "cls" || p.literal_default || (transform && static_under(*transform, p)))
        continue;
      if (statics.names.count(std::string(p.name))) continue;
      if (at >= 0 && std::find(statics.positions.begin(), statics.positions.end(), at) != statics.positions.end())
        continue;
      scope->traced.insert(std::string(p.name));
    }
  }
  return scope;
}

namespace {

bool uses_traced_at(Node e, const TracedScope& scope, const PythonContext& ctx, int hops) {
  e = python::unparenthesized(e);
  if (!e) return false;
  const Kind t = e.kind();
  if (t == Kind::Identifier) {
    if (ctx.qualified_name(e)) return false;
    if (scope.traced.count(std::string(e.text()))) return true;
    if (hops >= kMaxAssignmentHops) return false;
    Node value = last_assignment(e.text(), e.span().begin, ctx);
    return value && uses_traced_at(value, scope, ctx, hops + 1);
  }
  if (e.kind() == Kind::Attribute) {
    if (one_of(e.field(Field::Attribute).text(),
               {"shape", "ndim", "dtype", "size", "aval", "sharding", "weak_type", "itemsize", "nbytes"}))
      return false;
    return uses_traced_at(e.field(Field::Object), scope, ctx, hops);
  }
  if (e.kind() == Kind::Call) {
    Node callee = e.field(Field::Function);
    auto args = python::call_arguments(e);
    auto any_arg = [&] {
      for (Node a : args.positional)
        if (uses_traced_at(a, scope, ctx, hops)) return true;
      for (const auto& kw : args.keywords)
        if (uses_traced_at(kw.second, scope, ctx, hops)) return true;
      return false;
    };
    if (const auto& q = ctx.qualified_name(callee)) {
      // `jnp.ndim(x)`, `np.shape(x)`, `jnp.size(x)` read static facts.
      for (std::string_view fact : {".ndim", ".shape", ".size", ".result_type", ".iscomplexobj", ".isscalar"})
        if (q->ends_with(fact)) return false;
      return any_arg();
    }
    // A method of a traced value computes on it (`x.any()`, `x.sum()`); a free function of
    // unknown meaning, a builtin inspecting types or lengths, and `x.shape`-like reads do not count,
    // nor a method no array has (`annotations.index("batch")`, `names.count(n)`: a Python
    // sequence's, whose result is a Python int).
    if (callee.kind() == Kind::Attribute) {
      if (one_of(callee.field(Field::Attribute).text(), {"index", "count"})) return false;
      return uses_traced_at(callee.field(Field::Object), scope, ctx, hops);
    }
    return false;
  }
  if (t == Kind::ComparisonOperator) {
    for (std::string_view op : comparison_operators(e))
      if (one_of(op, {"is", "is not", "in", "not in"})) return false;
    if (!is_elementwise_comparison(e)) return false;
  } else if (e.kind() == Kind::Subscript) {
    return uses_traced_at(e.field(Field::Value), scope, ctx, hops);
  } else if (t != Kind::BooleanOperator && t != Kind::BinaryOperator && t != Kind::NotOperator &&
             t != Kind::UnaryOperator && t != Kind::ConditionalExpression) {
    return false;
  }
  for (uint32_t i = 0; i < e.named_child_count(); ++i)
    if (uses_traced_at(e.named_child(i), scope, ctx, hops)) return true;
  return false;
}

constexpr std::array<std::string_view, 15> kJaxPredicates = {
    "equal",       "greater",    "greater_equal", "isclose",     "isfinite",    "isin",      "isinf",    "isnan",
    "less",        "less_equal", "logical_and",   "logical_not", "logical_or",  "logical_xor", "not_equal"};

bool is_traced_mask_at(Node e, const TracedScope& scope, const PythonContext& ctx, int hops) {
  e = python::unparenthesized(e);
  if (!e) return false;
  const Kind t = e.kind();
  if (t == Kind::ComparisonOperator) return is_elementwise_comparison(e) && uses_traced_at(e, scope, ctx, 0);
  if (t == Kind::BinaryOperator) {
    if (!one_of(operator_token(e), {"&", "|", "^"})) return false;
    return is_traced_mask_at(e.field(Field::Left), scope, ctx, hops) ||
           is_traced_mask_at(e.field(Field::Right), scope, ctx, hops);
  }
  if (t == Kind::UnaryOperator) {
    if (operator_token(e) != "~") return false;
    Node operand = python::unparenthesized(e.named_child(0));
    return operand.kind() == Kind::Identifier ? uses_traced_at(operand, scope, ctx, 0)
                                               : is_traced_mask_at(operand, scope, ctx, hops);
  }
  if (e.kind() == Kind::Call) {
    const auto& q = ctx.qualified_name(e.field(Field::Function));
    if (!q || !q->starts_with("jax.numpy.") || !contains(kJaxPredicates, std::string_view(*q).substr(10)))
      return false;
    return uses_traced_at(e, scope, ctx, 0);
  }
  if (e.kind() == Kind::Identifier) {
    if (!uses_traced_at(e, scope, ctx, 0)) return false;
    if (hops < kMaxAssignmentHops)
      if (Node value = last_assignment(e.text(), e.span().begin, ctx))
        return is_traced_mask_at(value, scope, ctx, hops + 1);
    return named_like_mask(e.text());
  }
  return false;
}

}  // namespace

bool uses_traced_value(Node expr, const TracedScope& scope, const PythonContext& ctx) {
  return uses_traced_at(expr, scope, ctx, 0);
}

bool is_traced_mask(Node expr, const TracedScope& scope, const PythonContext& ctx) {
  return is_traced_mask_at(expr, scope, ctx, 0);
}

std::string tf_op_name(Node call, const PythonContext& ctx) {
  if (call.kind() != Kind::Call) return {};
  const auto& q = ctx.qualified_name(call.field(Field::Function));
  constexpr std::string_view kTf = "tensorflow.";
  if (!q || !q->starts_with(kTf) || !ctx.imports().imports("tensorflow")) return {};
  std::string_view name = std::string_view(*q).substr(kTf.size());
  for (std::string_view compat : {"compat.v1.", "compat.v2."})
    if (name.starts_with(compat)) name.remove_prefix(compat.size());
  return std::string(name);
}

}  // namespace tpulint::checks::dyn
