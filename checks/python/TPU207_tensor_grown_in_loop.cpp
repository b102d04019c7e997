// TPU207: a tensor rebound, on every iteration of a loop, to a concatenation of its own previous
// value (`idx = torch.cat((idx, nxt), dim=1)`). User docs: docs/checks/TPU207.md (generated from
// the CheckInfo below).
#include <array>
#include <fmt/format.h>
#include <string>

#include "checks/check_def.h"
#include "checks/python/TPU2xx_helpers.h"
#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/TPU6xx_step.h"

namespace tpulint::checks {

namespace {

using python::Field;
using python::Kind;
using python::Node;
using python::PythonContext;

// The concatenations, with the keyword of their sequence argument (torch/functional.py and
// torch/_torch_docs.py, PyTorch 2.9; jax/_src/numpy/lax_numpy.py and jax/_src/lax/lax.py, jax
// 0.11). `jnp.append(arr, values)` takes the two pieces themselves ("": no sequence).
struct Concatenation {
  std::string_view name;
  std::string_view sequence_keyword;
};

constexpr auto kConcatenations = std::to_array<Concatenation>({
    {"jax.lax.concatenate", "operands"},   {"jax.numpy.append", ""},
    {"jax.numpy.column_stack", "tup"},     {"jax.numpy.concat", "arrays"},
    {"jax.numpy.concatenate", "arrays"},   {"jax.numpy.dstack", "tup"},
    {"jax.numpy.hstack", "tup"},           {"jax.numpy.row_stack", "tup"},
    {"jax.numpy.stack", "arrays"},         {"jax.numpy.vstack", "tup"},
    {"torch.cat", "tensors"},              {"torch.column_stack", "tensors"},
    {"torch.concat", "tensors"},           {"torch.concatenate", "tensors"},
    {"torch.dstack", "tensors"},           {"torch.hstack", "tensors"},
    {"torch.row_stack", "tensors"},        {"torch.stack", "tensors"},
    {"torch.vstack", "tensors"},
});

const Concatenation* find_concatenation(std::string_view qualified) {
  for (const Concatenation& c : kConcatenations)
    if (c.name == qualified) return &c;
  return nullptr;
}

// The pieces a concatenation call joins, as written: the elements of its list or tuple literal
// (`torch.cat([a, b])`), or `jnp.append`'s two arguments. Empty when they are not visible (a
// sequence held in a name, a splat).
std::vector<Node> pieces(Node call, const Concatenation& op) {
  auto args = python::call_arguments(call);
  if (args.has_splat) return {};
  if (op.sequence_keyword.empty()) {
    std::vector<Node> out;
    for (Node n : {pyapi::argument(args, 0, "arr"), pyapi::argument(args, 1, "values")})
      if (n) out.push_back(python::unparenthesized(n));
    return out;
  }
  Node sequence = python::unparenthesized(pyapi::argument(args, 0, op.sequence_keyword));
  if (!sequence || (sequence.kind() != Kind::List && sequence.kind() != Kind::Tuple)) return {};
  std::vector<Node> out;
  for (uint32_t i = 0; i < sequence.named_child_count(); ++i)
    if (Node piece = sequence.named_child(i); piece.kind() != Kind::Comment)
      out.push_back(python::unparenthesized(piece));
  return out;
}

// The concatenation `value` is when it joins `target` (by its text: `idx`, `self.buf`) with
// something else, or nullptr.
const Concatenation* grows(Node value, std::string_view target, const PythonContext& ctx) {
  value = python::unparenthesized(value);
  if (!value || value.kind() != Kind::Call) return nullptr;
  const auto& q = ctx.qualified_name(value.field(Field::Function));
  const Concatenation* op = q ? find_concatenation(*q) : nullptr;
  if (!op) return nullptr;
  auto joined = pieces(value, *op);
  if (joined.size() < 2) return nullptr;
  for (Node piece : joined)
    if (piece.text() == target) return op;
  return nullptr;
}

// True when the identifier `name` occurs in `expr`.
bool mentions(Node expr, std::string_view name) {
  const python::Tree& tree = *expr.tree();
  for (uint32_t id = expr.id(); id < tree.subtree_end(expr); ++id)
    if (Node n(&tree, id); n.kind() == Kind::Identifier && n.text() == name) return true;
  return false;
}

// True when `name` is bound by the target of a `for` loop among `loops` (a fresh value each
// iteration: `for x in xs: x = torch.cat([x, pad])`).
bool bound_by_loop(std::string_view name, std::span<const python::Frame* const> loops) {
  for (const python::Frame* loop : loops)
    if (loop->node.kind() == Kind::ForStatement)
      if (Node left = loop->node.field(Field::Left); left && mentions(left, name)) return true;
  return false;
}

// True when the local `name` starts each iteration of `loop` afresh: an assignment in the loop's
// body before `at` gives it a value that does not read `name`, and only assignments that compute
// from that value follow it (`x = f(); x = x.squeeze(0)`; `out = repeat(out, ...)` alone carries
// the previous iteration's value on), and it is not in another branch of an `if` than `at` (`if
// i == 0: out = y`, `else: out = torch.cat([out, y])` grows it from the second iteration on).
bool fresh_each_iteration(std::string_view name, Node at, Node loop, const PythonContext& ctx) {
  Node body = loop.field(Field::Body);
  if (!body) return false;
  auto in_body = [&](Node n) { return body.span().begin <= n.span().begin && n.span().end <= body.span().end; };
  Node value = dyn::last_assignment(name, at.span().begin, ctx);
  for (int hops = 0; value && in_body(value) && mentions(value, name); ++hops)
    value = hops < 8 ? dyn::last_assignment(name, value.span().begin, ctx) : Node();
  if (!value || !in_body(value)) return false;
  Node common = value.parent();
  while (common && (common.span().begin > at.span().begin || common.span().end < at.span().end))
    common = common.parent();
  return common && common.kind() != Kind::IfStatement;
}

// True when the body of `loop` runs code of the program on each iteration: it calls `self`, a
// method or submodule of `self`, or a local callable (a model, a parameter, a function of the
// file), not only library functions, tensor methods and builtins. Such a loop is what feeds the
// device once per iteration (sampling, evaluation); one that only concatenates, pads or reshapes
// is a computation that runs inside whatever step calls it.
bool runs_program_code(Node loop, const PythonContext& ctx) {
  Node body = loop.field(Field::Body);
  if (!body) return false;
  const python::Tree& tree = *body.tree();
  for (uint32_t id = body.id(); id < tree.subtree_end(body);) {
    Node n(&tree, id);
    if (n.kind() == Kind::FunctionDefinition || n.kind() == Kind::ClassDefinition || n.kind() == Kind::Lambda) {
      id = tree.subtree_end(n);
      continue;
    }
    ++id;
    if (n.kind() != Kind::Call) continue;
    Node callee = n.field(Field::Function);
    if (callee.kind() == Kind::Attribute) {
      Node object = callee.field(Field::Object);
      if (object.kind() == Kind::Identifier && object.text() == "self") return true;
      continue;
    }
    if (callee.kind() != Kind::Identifier) continue;
    if (callee.text() == "self") return true;
    if (!ctx.qualified_name(callee) && !python::is_builtin_name(callee.text())) return true;
  }
  return false;
}

class TensorGrownInLoop final : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const override {
    static constexpr Kind k[] = {Kind::Call};
    return k;
  }
  std::span<const std::string_view> callee_names() const override {
    static constexpr auto k = python::last_name_parts(kConcatenations, &Concatenation::name);
    return k;
  }

  void check(Node call, PythonContext& ctx) const override {
    Node assignment = call.parent();
    if (!assignment || assignment.kind() != Kind::Assignment || !(assignment.field(Field::Right) == call)) return;
    Node target = assignment.field(Field::Left);
    if (target.kind() != Kind::Identifier && target.kind() != Kind::Attribute) return;
    const Concatenation* op = grows(call, target.text(), ctx);
    if (!op) return;
    auto loops = ctx.enclosing_loops();
    if (loops.empty()) return;
    // Inside a forward, a compiled or a step function the loop is unrolled into the one graph the
    // step traces: the shapes differ from iteration to iteration but not from step to step.
    step::Step step = step::enclosing_step(call, ctx);
    if (step.kind == step::StepKind::ModelForward || step.kind == step::StepKind::CompiledFunction ||
        step.kind == step::StepKind::StepFunction)
      return;
    // The loop whose iterations run apart: the innermost one, or the training loop around it (a
    // loop nested in a training step is unrolled into that step's graph).
    Node per_iteration = step.kind == step::StepKind::TrainingLoop ? step.node : loops.back()->node;
    size_t first = 0;
    while (first < loops.size() && !(loops[first]->node == per_iteration)) ++first;
    std::span<const python::Frame* const> inner(loops.data() + (first < loops.size() ? first : 0),
                                                 loops.data() + loops.size());
    if (target.kind() == Kind::Identifier &&
        (bound_by_loop(target.text(), inner) || fresh_each_iteration(target.text(), call, per_iteration, ctx)))
      return;
    if (step.kind != step::StepKind::TrainingLoop && !runs_program_code(per_iteration, ctx)) return;
    bool jax = op->name.starts_with("jax.");
    ctx.report(call,
               fmt::format("'{}' grows by '{}' on every iteration of the loop: a new shape each iteration means {}",
                           target.text(), op->name,
                           jax ? "a retrace and compilation (JAX) each step"
                               : "an XLA recompilation (PyTorch/XLA) each step"),
               jax ? "preallocate the array at its final size and write each step's piece with "
                     "'jax.lax.dynamic_update_slice' (or 'x.at[i].set'), or collect the pieces in a list and "
                     "concatenate once after the loop"
                   : "preallocate the tensor at its final size and write each step's piece in place ('index_copy_', "
                     "or a slice assignment 'buf[:, t] = nxt'), or collect the pieces in a list and concatenate "
                     "once after the loop",
               "tensor grown in a loop");
  }
};

const TensorGrownInLoop kCheck;

// The documented list of concatenations comes from the table the check reads.
std::string concatenation_list() {
  std::string out;
  for (const Concatenation& c : kConcatenations) {
    if (!out.empty()) out += ", ";
    out += fmt::format("`{}`", c.name);
  }
  return out;
}

const std::string kWhat =
    "Inside a `for` or `while` loop, a name or attribute rebound to a concatenation that includes its own "
    "previous value: `idx = torch.cat((idx, idx_next), dim=1)`, `self.buf = torch.cat([self.buf, x])`, "
    "`out = jnp.concatenate([out, y])`. The concatenations: " +
    concatenation_list() +
    ". NumPy's run on the host and are not reported, nor a concatenation of fresh values (`y = torch.cat([a, "
    "b])`), nor a list that is appended to in the loop and concatenated once after it.";

}  // namespace

extern const CheckDef TPU207_tensor_grown_in_loop{
    .info = {
        .id = "TPU207",
        .name = "tensor-grown-in-loop",
        .summary = "a tensor grown by concatenation on every loop iteration (a new shape, a recompilation, each step)",
        .languages = uint8_t(Language::Python),
        .severity = Severity::Warning,
        .effort = EffortClass::Medium,
        .hours = {1, 3},
        .device_code_only = true,
        .outside_hot_path_only = true,
        .doc = {
            .what = kWhat,
            .why = "XLA compiles a graph for each set of input shapes. A tensor that gains a row or a token on "
                   "every iteration has a new shape each time, so each iteration that runs on the device (a "
                   "sampling step, a training step) compiles a new graph: PyTorch/XLA recompiles, and JAX "
                   "retraces and recompiles every op or jitted function the tensor reaches. The compilations "
                   "cost far more than the step, and a growth across training steps never stops compiling. "
                   "Autoregressive sampling (`idx = torch.cat((idx, idx_next), dim=1)` in nanoGPT's "
                   "`generate`) is the common case.",
            .example = "for _ in range(max_new_tokens):\n    logits = model(idx)\n"
                       "    idx_next = torch.multinomial(F.softmax(logits[:, -1], dim=-1), 1)\n"
                       "    idx = torch.cat((idx, idx_next), dim=1)",
            .use_instead = "Preallocate at the final size and write in place, so that every iteration sees the "
                           "same shapes: `buf = torch.zeros(b, t0 + n, dtype=idx.dtype, device=idx.device)`, "
                           "then `buf[:, t] = idx_next[:, 0]` (or `index_copy_`) with a mask or position for the "
                           "filled part; in JAX, `jax.lax.dynamic_update_slice` or `buf.at[:, t].set(...)`, "
                           "inside a `lax.fori_loop`/`lax.scan`. When nothing in the loop reads the growing "
                           "tensor, collect the pieces in a list and concatenate once after the loop.",
            .effort = "Medium: 1-3 h, to size the buffer, keep a position or mask of the filled part, and make "
                      "what reads the tensor (attention over the filled part) work on the fixed size.",
            .heuristic = "The concatenation's pieces must be written out (a list or tuple literal, or "
                         "`jnp.append`'s two arguments) and one of them must be the assigned name itself, as "
                         "written (`x`, `self.buf`; not `x[:, 1:]`, which keeps a window, nor `x.detach()`). It "
                         "must be carried from the previous iteration: a local name that a `for` binds, or that "
                         "the loop assigns afresh before the concatenation (a value that does not read it, "
                         "followed only by assignments computing from it, not in another branch of an `if`), is "
                         "not reported. The loop must feed the device once per iteration: a training loop, or "
                         "a loop whose body calls the program's own code (`self(...)`, `self.net(...)`, a "
                         "model, a parameter or a function of the file; not only library functions, tensor "
                         "methods and builtins). A loop that only pads or reshapes (`for _ in range(n): x = "
                         "torch.cat([x, pad])`) runs inside whatever step calls it, and is not reported. A loop "
                         "in the hot path (a model's `forward` and what it calls, a compiled or step function) "
                         "is unrolled into one graph that is the same on every step, and is not reported; a "
                         "loop nested in a training loop counts the training loop's iterations. Growth between "
                         "calls outside any loop (a KV cache grown once per `forward`, whisper's "
                         "`tokens = torch.cat([tokens, next_tokens])` in a decoder's `update` that its caller "
                         "loops over) is missed. Findings in host, one-time and evaluation code are discounted.",
            .references = {"https://docs.pytorch.org/xla/master/perf/recompilation.html",
                           "https://docs.jax.dev/en/latest/jit-compilation.html",
                           "https://github.com/karpathy/nanoGPT/blob/master/model.py"},
        },
    },
    .python = &kCheck,
};

}  // namespace tpulint::checks
