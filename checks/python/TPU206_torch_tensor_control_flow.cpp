// TPU206: Python `if`/`while`/conditional expression on tensor values in a torch training or
// forward function. User docs: docs/checks/TPU206.md (generated from the CheckInfo below).
#include <array>
#include <fmt/format.h>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;

// torch functions whose result is a tensor that, tested by Python, gives a device-to-host read.
constexpr std::array<std::string_view, 14> kTestedOps = {"all",   "allclose", "any",  "count_nonzero", "equal",
                                                         "isfinite", "isinf", "isnan", "is_nonzero", "max",
                                                         "mean",  "min",      "norm", "sum"};
// Tensor methods that reduce to a value a condition then tests.
constexpr std::array<std::string_view, 8> kReductions = {"abs", "amax", "amin", "max", "mean", "min", "norm", "sum"};

bool named_like_loss(std::string_view name) {
  std::string lower = pyapi::ascii_lower(name);
  return lower == "loss" || lower.starts_with("loss_") || lower.ends_with("_loss");
}

// The torch op a call computes (function form, one level under torch, torch.nn.functional or
// torch.linalg), or "" when it is not one or returns a Python value (`torch.is_tensor`).
std::string torch_op(Node call, const PythonContext& ctx) {
  const auto& q = ctx.qualified_name(call.field(Field::Function));
  if (!q) return {};
  std::string_view name = *q;
  for (std::string_view prefix : {"torch.nn.functional.", "torch.linalg.", "torch."}) {
    if (!name.starts_with(prefix)) continue;
    std::string_view op = name.substr(prefix.size());
    if (op.find('.') != std::string_view::npos) return {};
    if (op.starts_with("is_") && op != "is_nonzero") return {};
    if (op.starts_with("get_") || op.starts_with("set_") || dyn::one_of(op, {"numel", "Size", "device", "finfo", "iinfo",
                                                                        "manual_seed", "load", "save", "no_grad",
                                                                        "typename", "result_type"}))
      return {};
    return std::string(op);
  }
  return {};
}

// True for an expression that holds a tensor: a torch op's result, a loss function's result, a
// reduction of a tensor, or a local name last assigned from one; a name with no deciding
// assignment counts when it is named like a loss (`loss`, `total_loss`).
bool tensor_valued(Node e, const PythonContext& ctx, int hops = 0) {
  e = python::unparenthesized(e);
  if (!e) return false;
  if (e.kind() == Kind::BinaryOperator)
    return tensor_valued(e.field(Field::Left), ctx, hops) || tensor_valued(e.field(Field::Right), ctx, hops);
  if (e.kind() == Kind::Call) {
    if (!torch_op(e, ctx).empty()) return true;
    Node callee = e.field(Field::Function);
    std::string_view name = python::last_name(callee);
    if (ctx.qualified_name(callee)) return false;
    if (name == "criterion" || name == "loss_fn" || named_like_loss(name)) return true;
    return callee.kind() == Kind::Attribute && dyn::contains(kReductions, name) &&
           pyapi::method_receiver_may_be(callee, ctx, "torch");
  }
  if (e.kind() == Kind::Identifier) {
    if (hops < 3)
      if (Node value = dyn::last_assignment(e.text(), e.span().begin, ctx)) {
        Node v = python::unparenthesized(value);
        if (tensor_valued(v, ctx, hops + 1)) return true;
        // A call, a literal or arithmetic decides; an attribute or subscript (`out.loss`) does not.
        if (v.kind() == Kind::Call || v.kind() == Kind::BinaryOperator || v.kind() == Kind::Float || v.kind() == Kind::Integer)
          return false;
      }
    return named_like_loss(e.text());
  }
  if (e.kind() == Kind::Attribute) return named_like_loss(e.field(Field::Attribute).text());
  return false;
}

// What makes `cond` a test of tensor values, or nullopt. Identity and membership tests, type and
// length checks and shape reads are Python-level and not looked into.
std::optional<std::string> tensor_test(Node cond, const PythonContext& ctx) {
  cond = python::unparenthesized(cond);
  if (!cond) return std::nullopt;
  const Kind kind = cond.kind();
  if (kind == Kind::ComparisonOperator) {
    if (!dyn::is_elementwise_comparison(cond)) return std::nullopt;
    for (uint32_t i = 0; i < cond.named_child_count(); ++i) {
      Node operand = python::unparenthesized(cond.named_child(i));
      if (auto inner = tensor_test(operand, ctx)) return inner;
      if (tensor_valued(operand, ctx)) return fmt::format("'{}' is a tensor", operand.text());
    }
    return std::nullopt;
  }
  if (kind == Kind::BooleanOperator || kind == Kind::NotOperator || kind == Kind::BinaryOperator) {
    for (uint32_t i = 0; i < cond.named_child_count(); ++i)
      if (auto inner = tensor_test(cond.named_child(i), ctx)) return inner;
    return std::nullopt;
  }
  if (cond.kind() != Kind::Call) return std::nullopt;
  Node callee = cond.field(Field::Function);
  std::string op = torch_op(cond, ctx);
  if (!op.empty() && dyn::contains(kTestedOps, op)) return fmt::format("'{}' reads tensor values", callee.text());
  if (callee.kind() == Kind::Attribute && !ctx.qualified_name(callee) &&
      pyapi::method_receiver_may_be(callee, ctx, "torch")) {
    std::string_view method = callee.field(Field::Attribute).text();
    if (method == "any" || method == "all" || method == "item")
      return fmt::format("'.{}()' reads tensor values", method);
    // `x.sum().item() > 0`, `(a == b).all()` hide under a method chain.
    return tensor_test(callee.field(Field::Object), ctx);
  }
  return std::nullopt;
}

// The condition of the `assert` statement whose first call is `call`, or a null node. The check
// is one of calls, so it meets asserts through their first call.
Node assert_condition(Node call, const PythonContext& ctx) {
  Node cond = call;
  for (int depth = 0; depth < 4; ++depth) {
    Node parent = cond.parent();
    if (!parent) return Node();
    Kind kind = parent.kind();
    if (kind == Kind::Call || kind == Kind::Attribute) {
      cond = parent;
      continue;
    }
    if (kind == Kind::AssertStatement) {
      if (parent.named_child(0) != cond) return Node();
      // Only the condition's first call reports, once per assert.
      std::vector<Node> stack{cond};
      while (!stack.empty()) {
        Node n = stack.back();
        stack.pop_back();
        if (n.kind() == Kind::Call) return n == call ? cond : Node();
        for (uint32_t i = n.named_child_count(); i-- > 0;) stack.push_back(n.named_child(i));
      }
      return Node();
    }
    if (kind != Kind::ComparisonOperator && kind != Kind::BooleanOperator && kind != Kind::NotOperator &&
        kind != Kind::ParenthesizedExpression)
      return Node();
    cond = parent;
  }
  return Node();
}

class TorchTensorControlFlow final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::IfStatement, Kind::ElifClause, Kind::WhileStatement,
                                 Kind::ConditionalExpression, Kind::Call};
    return k;
  }

  void check(Node n, python::PythonContext& ctx) const override {
    bool is_assert = n.kind() == Kind::Call;
    Node cond = is_assert ? assert_condition(n, ctx) : dyn::branch_condition(n);
    if (!cond || !dyn::in_torch_step(ctx)) return;
    auto why = tensor_test(cond, ctx);
    if (!why) return;
    if (is_assert) {
      ctx.report(cond, fmt::format("'assert' on a tensor value ({}) syncs the device on every step", *why),
                 "check it outside the step (a debug run, a logging step), or drop it in the TPU build",
                 "Python control flow on tensor values");
      return;
    }
    std::string hint = n.kind() == Kind::WhileStatement
                           ? "loop a static number of times with a mask, or use torch_xla's 'while_loop'"
                           : "compute both branches and select with 'torch.where(cond, a, b)', or move the test "
                             "out of the step";
    ctx.report(cond,
               fmt::format("{} on a tensor value ({}) syncs the device and fixes the graph to one branch",
                           dyn::branch_statement(n), *why),
               std::move(hint), "Python control flow on tensor values");
  }
};

const TorchTensorControlFlow kCheck;

}  // namespace

extern const CheckDef TPU206_torch_tensor_control_flow{
    .info = {
        .id = "TPU206",
        .name = "torch-tensor-control-flow",
        .summary = "Python if/while/assert on tensor values in a torch training or forward function",
        .languages = uint8_t(Language::Python),
        .framework = Framework::Torch,
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {0.5, 3},
        .device_code_only = true,
        .doc = {
            .what = "`if`, `elif`, `while`, conditional expressions and `assert` statements whose "
                    "condition reads tensor values, "
                    "inside a torch training or forward function: `if mask.any():`, `if loss > 0:`, "
                    "`while err.item() > tol:`, `x if torch.isnan(y).any() else z`, "
                    "`assert torch.isfinite(deltas).all()`.",
            .why = "PyTorch/XLA records operations lazily and runs them as one compiled graph. A Python "
                   "branch needs the value now: the device must run the graph so far and send the result to "
                   "the host, and what follows is traced for the branch taken, so a step whose branch "
                   "changes compiles more graphs. On every iteration that is a stall.",
            .example = "def forward(self, x, mask):\n    if mask.any():\n        x = x + self.bias\n    return x",
            .use_instead = "Compute both sides and select on the device: "
                           "`x = torch.where(mask.any(), x + self.bias, x)`. Keep losses as tensors (`loss = "
                           "torch.where(torch.isfinite(loss), loss, 0.0)`), move checks to logging steps, and use "
                           "torch_xla's `while_loop`/`fori_loop` or a static loop count with a mask for loops.",
            .effort = "Medium: 0.5-3 h, since both branches must compute valid values.",
            .heuristic = "Only inside functions named `forward`/`__call__` or whose name contains `train`, "
                         "`step` or `loss`, decorated with `torch.compile`, or methods of a torch module "
                         "subclass (of `torch.nn` or Lightning, directly or through a class of the same file) "
                         "other than set-up code (`__init__`, `reset_*`, `init*`, `load_*`), in files "
                         "that import torch (other functions may run on the host), and never in unit tests "
                         "(functions named `test_*` other than `test_step`, or `Test*`), which check values on purpose. The condition reads tensor values when it "
                         "calls `.any()`, `.all()`, `.item()` (receiver not rooted at another import), a torch "
                         "reduction or predicate (`torch.isnan`, `torch.equal`, `torch.sum`, ...), or compares "
                         "a tensor: a torch op's result, `criterion(...)`/`loss_fn(...)`, `x.sum()`, or a local "
                         "name last assigned from one; a name with no deciding assignment counts when it is "
                         "named like a loss (`loss`, `*_loss`). `is`/`in` tests, shapes and lengths are not "
                         "looked into. A tensor under another name passed in as a parameter (`if score > 0:`) "
                         "is missed; a Python float named `*_loss` with no assignment in the function is "
                         "reported.",
            .references = {"https://docs.pytorch.org/xla/master/learn/troubleshoot.html",
                           "https://docs.pytorch.org/xla/master/perf/recompilation.html",
                           "https://docs.pytorch.org/xla/master/features/scan.html"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
