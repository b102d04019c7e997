#include "checks/python/TPU3xx_4xx_common.h"

#include <charconv>

namespace tpulint::checks::pyapi {

using python::Field;

namespace {

bool is_statement_boundary(Node n) {
  switch (n.kind()) {
    case Kind::Block:
    case Kind::Module:
    case Kind::FunctionDefinition:
    case Kind::ClassDefinition:
    case Kind::Lambda:
      return true;
    default:
      return false;
  }
}

// +1 when `cond` is true only where CUDA is present, -1 when it is true only where it is
// absent, 0 when it says nothing about CUDA.
int cuda_test(Node cond, const PythonContext& ctx) {
  if (!cond) return 0;
  const Kind t = cond.kind();
  if (t == Kind::ParenthesizedExpression && cond.named_child_count() == 1) return cuda_test(cond.named_child(0), ctx);
  if (t == Kind::NotOperator) return -cuda_test(cond.named_child(0), ctx);
  if (t == Kind::BooleanOperator) {
    // `a and b` holds only where both hold; `a or b` tells nothing reliable.
    bool is_and = false;
    for (uint32_t i = 0; i < cond.child_count(); ++i)
      if (!cond.child(i).is_named() && cond.child(i).type() == "and") is_and = true;
    if (!is_and) return 0;
    for (uint32_t i = 0; i < cond.named_child_count(); ++i)
      if (cuda_test(cond.named_child(i), ctx) > 0) return 1;
    return 0;
  }
  if (cond.kind() == Kind::Call) {
    const auto& q = ctx.qualified_name(cond.field(Field::Function));
    return q && (*q == "torch.cuda.is_available" || *q == "torch.cuda.is_initialized") ? 1 : 0;
  }
  if (cond.kind() == Kind::Attribute || cond.kind() == Kind::Identifier) {
    // A flag named for the GPU: `x.is_cuda`, `has_gpu`, `args.use_cuda`, `cuda_available`.
    std::string name = ascii_lower(cond.kind() == Kind::Attribute ? cond.field(Field::Attribute).text() : cond.text());
    return name.find("cuda") != std::string::npos || name.find("gpu") != std::string::npos ? 1 : 0;
  }
  if (t == Kind::ComparisonOperator) {
    // `x.device.type == "cuda"`, `"cuda" in str(device)`, `torch.cuda.device_count() > 0`.
    bool negated = false, mentions_cuda = false;
    for (uint32_t i = 0; i < cond.child_count(); ++i) {
      Node c = cond.child(i);
      if (!c.is_named()) {
        if (c.type() == "!=" || c.type() == "not in" || c.type() == "is not") negated = true;
        continue;
      }
      // The NCCL backend implies CUDA: `dist.get_backend() == "nccl"`, `== dist.Backend.NCCL`.
      if (auto s = python::string_value(c); s && (is_device_string(*s, "cuda") || *s == "nccl"))
        mentions_cuda = true;
      if (c.kind() == Kind::Attribute && c.field(Field::Attribute).text() == "NCCL") mentions_cuda = true;
      if (c.kind() == Kind::Call) {
        const auto& q = ctx.qualified_name(c.field(Field::Function));
        if (q && *q == "torch.cuda.device_count") mentions_cuda = true;
      }
    }
    if (!mentions_cuda) return 0;
    return negated ? -1 : 1;
  }
  return 0;
}

// True when the expression `e` contains a call of `qualified`.
bool calls(Node e, std::string_view qualified, const PythonContext& ctx) {
  if (!e) return false;
  if (e.kind() == Kind::Call) {
    const auto& q = ctx.qualified_name(e.field(Field::Function));
    if (q && *q == qualified) return true;
  }
  for (uint32_t i = 0; i < e.named_child_count(); ++i)
    if (calls(e.named_child(i), qualified, ctx)) return true;
  return false;
}

}  // namespace

bool may_resolve_to(Node expr, std::string_view target, const PythonContext& ctx) {
  std::string_view last = target.substr(target.rfind('.') + 1);
  if (expr.kind() == Kind::Attribute) return expr.field(Field::Attribute).text() == last;
  if (expr.kind() != Kind::Identifier) return false;
  return expr.text() == last || ctx.imports().may_resolve(expr.text());
}

Node through_choices(Node n) {
  for (Node p = n.parent(); p && (p.kind() == Kind::ConditionalExpression || p.kind() == Kind::ParenthesizedExpression);
       p = p.parent())
    n = p;
  return n;
}

Node call_of(Node callee, const PythonContext& ctx) {
  Node parent = callee.parent();
  if (parent && parent.kind() == Kind::Call && parent.field(Field::Function) == callee) return parent;
  return Node();
}

bool in_test(Node n, const PythonContext& ctx) {
  Node child = n;
  for (Node p = n.parent(); p && !is_statement_boundary(p); child = p, p = p.parent()) {
    std::string_view t = p.type();
    if (t == "comparison_operator" || t == "except_clause" || t == "type") return true;
    if (p.kind() == Kind::Call) {
      if (p.field(Field::Function) == child) continue;  // the callee itself
      Node callee = p.field(Field::Function);
      std::string_view name = callee.kind() == Kind::Identifier ? callee.text() : std::string_view();
      return name == "isinstance" || name == "issubclass";
    }
  }
  return false;
}

bool in_dict_entry(Node n, const PythonContext& ctx) {
  Node p = n.parent();
  while (p && (p.kind() == Kind::ConditionalExpression || p.kind() == Kind::ParenthesizedExpression)) p = p.parent();
  return p && p.kind() == Kind::Pair;
}

bool method_receiver_may_be(Node callee, const PythonContext& ctx, std::string_view framework) {
  if (callee.kind() != Kind::Attribute || !ctx.imports().imports(framework)) return false;
  Node receiver = callee.field(Field::Object);
  if (receiver.kind() == Kind::Identifier && (receiver.text() == "self" || receiver.text() == "cls")) return false;
  Node root = python::chain_root(receiver);
  if (root.kind() == Kind::Identifier) {
    const auto& q = ctx.qualified_name(root);
    if (q && !python::has_module_prefix(*q, framework)) return false;
  }
  return true;
}

std::optional<std::string> string_literal(Node n) {
  if (!n) return std::nullopt;
  return python::string_value(n);
}

std::optional<long long> int_literal(Node n) {
  if (!n) return std::nullopt;
  bool negative = false;
  if (n.kind() == Kind::UnaryOperator && n.named_child_count() == 1 && n.child(0).type() == "-") {
    negative = true;
    n = n.named_child(0);
  }
  if (n.kind() != Kind::Integer) return std::nullopt;
  std::string_view text = n.text();
  long long v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return negative ? -v : v;
}

std::optional<bool> bool_literal(Node n) {
  if (!n) return std::nullopt;
  if (n.kind() == Kind::True) return true;
  if (n.kind() == Kind::False) return false;
  return std::nullopt;
}


namespace {
// std::tolower in the "C" locale, which tpulint never changes, without the call per character.
char lower_char(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }
}  // namespace

bool is_device_string(std::string_view s, std::string_view type) {
  return s.starts_with(type) && (s.size() == type.size() || s[type.size()] == ':');
}

bool lower_equals(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (lower_char(text[i]) != lower[i]) return false;
  return true;
}

bool lower_contains(std::string_view text, std::string_view lower) {
  if (lower.size() > text.size()) return false;
  for (size_t at = 0; at + lower.size() <= text.size(); ++at)
    if (lower_equals(text.substr(at, lower.size()), lower)) return true;
  return false;
}

bool passes_keyword(Node call, std::initializer_list<std::string_view> names) {
  Node args = call.field(Field::Arguments);
  if (!args || args.kind() != Kind::ArgumentList) return false;
  for (uint32_t i = 0; i < args.named_child_count(); ++i) {
    Node a = args.named_child(i);
    if (a.kind() != Kind::KeywordArgument) continue;
    if (Node k = a.field(Field::Name); k && std::find(names.begin(), names.end(), k.text()) != names.end())
      return true;
  }
  return false;
}

Node argument(const python::CallArguments& args, size_t pos, std::string_view keyword) {
  if (Node k = args.keyword(keyword)) return k;
  return pos < args.positional.size() ? args.positional[pos] : Node();
}

bool cuda_guarded(Node n, const PythonContext& ctx) {
  Node child = n;
  for (Node p = n.parent(); p; child = p, p = p.parent()) {
    if (p.kind() == Kind::FunctionDefinition || p.kind() == Kind::ClassDefinition || p.kind() == Kind::Lambda)
      return false;
    if (p.kind() == Kind::IfStatement || p.kind() == Kind::ElifClause) {
      int test = cuda_test(p.field(Field::Condition), ctx);
      if (p.field(Field::Consequence) == child && test > 0) return true;
      if (child.kind() == Kind::ElseClause && test < 0) return true;
    } else if (p.kind() == Kind::ForStatement && p.field(Field::Body) == child) {
      // `for i in range(torch.cuda.device_count()):` runs its body zero times without CUDA.
      if (calls(p.field(Field::Right), "torch.cuda.device_count", ctx)) return true;
    } else if (p.kind() == Kind::BooleanOperator && p.named_child_count() == 2 && p.named_child(1) == child) {
      // `torch.cuda.is_available() and torch.cuda.is_bf16_supported()`: the right side is skipped.
      bool is_and = false;
      for (uint32_t i = 0; i < p.child_count(); ++i)
        if (!p.child(i).is_named() && p.child(i).type() == "and") is_and = true;
      if (is_and && cuda_test(p.named_child(0), ctx) > 0) return true;
    } else if (p.kind() == Kind::ConditionalExpression && p.named_child_count() == 3) {
      int test = cuda_test(p.named_child(1), ctx);
      if (p.named_child(0) == child && test > 0) return true;
      if (p.named_child(2) == child && test < 0) return true;
    }
  }
  return false;
}

void ReferenceCheck::check_reference(Node n, const std::string& qualified, PythonContext& ctx) const {
  auto m = match(qualified, n, ctx);
  if (!m) return;
  Node call = m->at_call ? call_of(n, ctx) : Node();
  Finding& f = ctx.report(call ? call : n, std::move(m->message), std::move(m->hint), qualified);
  if (m->severity) f.severity = *m->severity;
}

void soften_if_cuda_guarded(Finding& f, Node n, const PythonContext& ctx) {
  if (!cuda_guarded(n, ctx)) return;
  f.severity = Severity::Warning;
  f.message = InternedString(f.message.str() + " (it runs only where CUDA is present: a TPU host skips it)");
}

ByteSpan from_method_name(Node call) {
  Node callee = call.field(Field::Function);
  if (callee.kind() == Kind::Attribute) return {callee.field(Field::Attribute).span().begin, call.span().end};
  return call.span();
}

}  // namespace tpulint::checks::pyapi
