#include "checks/python/TPU6xx_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <cctype>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "checks/python/TPU3xx_4xx_common.h"
#include "checks/python/frameworks/code_roles.h"
#include "checks/python/frameworks/torch.h"
#include "python/semantic.h"

namespace tpulint::checks::step {

using python::Field;
using python::Frame;

namespace {

std::string lower(std::string_view s) { return pyapi::ascii_lower(s); }

bool contains(ByteSpan outer, ByteSpan inner) { return outer.begin <= inner.begin && inner.end <= outer.end; }

// The compilers whose functions are traced once and run as one device program per step.
Compiler compiler_of(std::string_view qualified) {
  if (is_compiler("jax", qualified)) return Compiler::Jax;
  if (is_compiler("tf", qualified)) return Compiler::Tf;
  if (is_compiler("torch", qualified)) return Compiler::Torch;
  return Compiler::None;
}

// A receiver named like an optimizer, a grad scaler or a DeepSpeed engine: `optimizer`, `opt`,
// `self.optim`, `optimizers[0]`, `d_opt`, `scaler`, `model_engine`.
bool optimizer_like(std::string_view name) {
  std::string n = lower(name);
  return n.find("optim") != std::string::npos || n.find("scaler") != std::string::npos ||
         n.find("engine") != std::string::npos || n == "opt" || n.starts_with("opt_") || n.ends_with("_opt");
}

// Function names that by convention run one step (PyTorch Lightning, Keras, Flax, HF Trainer).
bool step_function_name(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kNames = {"eval_step",    "predict_step", "test_step",
                                                              "train_step",   "training_step", "validation_step"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end() || name.ends_with("_train_step") ||
         name.starts_with("train_step_");
}

// The qualified name of `expr` resolved in the given scopes (innermost first, module last), for
// the file index, which is built away from the walk's current node. The attribute chain after
// the root name is taken as written (chains with spaces or comments inside do not resolve).
std::optional<std::string> qualified_in(Node expr, std::span<const uint32_t> scopes, const python::ImportTable& imports) {
  Node root = expr;
  while (root.kind() == Kind::Attribute) root = root.field(Field::Object);
  if (root.kind() != Kind::Identifier) return std::nullopt;
  std::string_view suffix = expr.text().substr(root.text().size());
  if (suffix.find_first_of(" \t\n\\#") != std::string_view::npos) return std::nullopt;
  auto base = imports.resolve(root.text(), scopes);
  if (!base) return std::nullopt;
  return *base + std::string(suffix);
}

enum class Marker : uint8_t { None, Backward, Update };

// A call that runs a backward pass (`loss.backward()`, `accelerator.backward(loss)`) or a parameter
// update (`optimizer.step()`, `scaler.step(opt)`, `xm.optimizer_step(opt)`,
// `state.apply_gradients(grads=g)`, `optax.apply_updates(p, u)`, `opt.minimize(loss)`).
Marker step_marker(Node call, const std::optional<std::string>& qualified_callee) {
  if (qualified_callee && *qualified_callee == "optax.apply_updates") return Marker::Update;
  Node callee = call.field(Field::Function);
  if (callee.kind() != Kind::Attribute) return Marker::None;
  std::string_view method = callee.field(Field::Attribute).text();
  if (method == "backward" || method == "manual_backward") return Marker::Backward;
  if (method == "optimizer_step" || method == "apply_gradients") return Marker::Update;
  if ((method == "step" || method == "minimize") && optimizer_like(python::chain_last_name(callee.field(Field::Object))))
    return Marker::Update;
  return Marker::None;
}

// What the file says about steps, gathered in one walk the first time a check asks. Names are
// views of the file's text, which outlives the walk the index is read in.
struct FileIndex {
  std::unordered_set<std::string_view> compiled_functions;  // names passed to a compiler
  std::unordered_map<std::string_view, Compiler> compiled_by;
  // Names bound to a JAX or TF compiled callable (`p_step = jax.pmap(...)`, `@jax.jit def step`), or
  // passed to one: calling one runs a whole step on the device. A `torch.compile`d module is not
  // one: calling it is a forward pass, as in any evaluation loop.
  std::unordered_set<std::string_view> step_callables;
  std::unordered_set<std::string_view> step_functions;  // defs that update parameters outside loops, or named so
  std::unordered_set<uint32_t> step_function_starts;
  // Functions that run a training loop (`train_one_epoch`): a loop calling one runs per epoch.
  std::unordered_set<std::string_view> epoch_functions;
  struct LoopStep {
    bool step = false;
    std::string_view calls;  // the step function or compiled callable it calls, when no marker decided
  };
  std::unordered_map<uint32_t, LoopStep> training_loops;  // loop start byte -> what it is (memo)
  // Per function body (or module), the assignments of each name: `name = right` (whole) or a
  // tuple target `a, name = right`. Built on the first question about a name there.
  struct Binding {
    Node right;
    bool whole;
  };
  using Bindings = std::unordered_map<std::string_view, std::vector<Binding>>;
  std::unordered_map<uint32_t, Bindings> bindings;
  std::vector<std::string_view> classifying;  // names whose values are being classified (cycle guard)
  std::map<std::pair<uint32_t, std::string>, bool> scope_calls;  // (scope start, method or "time.") -> calls it
  std::unordered_set<std::string_view> dataloader_names;  // names assigned a torch DataLoader(...)
  bool device_loader = false;                            // MpDeviceLoader/ParallelLoader is called
};

void index_compile_call(Node call, Compiler c, std::span<const uint32_t> scopes, const python::ImportTable& imports,
                        FileIndex& idx) {
  auto args = python::call_arguments(call);
  if (!args.positional.empty()) {
    Node fn = args.positional[0];
    // jax.jit(partial(step, cfg)) compiles `step`.
    if (fn.kind() == Kind::Call && fn.field(Field::Function)) {
      auto q = qualified_in(fn.field(Field::Function), scopes, imports);
      if (q && *q == "functools.partial") {
        auto inner = python::call_arguments(fn);
        fn = inner.positional.empty() ? Node() : inner.positional[0];
      }
    }
    if (fn && (fn.kind() == Kind::Identifier || fn.kind() == Kind::Attribute)) {
      std::string_view name = python::chain_last_name(fn);
      idx.compiled_functions.insert(name);
      idx.compiled_by.emplace(name, c);
      if (c != Compiler::Torch) idx.step_callables.insert(name);
    }
  }
  Node parent = call.parent();
  if (parent && parent.kind() == Kind::Assignment && parent.field(Field::Right) == call) {
    Node left = parent.field(Field::Left);
    if (left.kind() == Kind::Identifier || left.kind() == Kind::Attribute)
      if (c != Compiler::Torch) idx.step_callables.insert(python::chain_last_name(left));
  }
}

// The last names of the callees whose qualified name the index asks about: compilers, optax's
// update and the data loaders. A callee `a.b.name` keeps its last name when resolved; a bare name
// may be an import alias (`from jax import jit as J`), or resolve through a star import as itself.
bool indexed_callee_name(std::string_view name) {
  static constexpr std::array<std::string_view, 11> kNames = {
      "DataLoader", "MpDeviceLoader", "ParallelLoader", "apply_updates", "compile", "filter_jit",
      "filter_pmap", "function",      "jit",            "pjit",          "pmap"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

FileIndex build_index(const PythonContext& ctx) {
  FileIndex idx;
  const python::ImportTable& imports = ctx.imports();
  struct Function {
    uint32_t start;
    int parent;
    std::string_view name;
  };
  std::vector<Function> functions;
  // The function and loop a node is in, for the nodes before `end` (a subtree's end in the
  // tree's pre-order node table, which the walk follows).
  struct Context {
    uint32_t end;
    int function;  // index into functions, -1 at module level
    bool in_loop;  // inside a loop of that function
  };
  const python::Tree& tree = ctx.tree();
  std::vector<Context> contexts{{tree.node_count(), -1, false}};
  std::vector<std::pair<int, std::string_view>> loop_calls;  // (function, callee name) of calls in loops
  std::vector<uint32_t> scopes;
  auto scopes_of = [&](int f) -> std::span<const uint32_t> {
    scopes.clear();
    for (; f >= 0; f = functions[size_t(f)].parent) scopes.push_back(functions[size_t(f)].start);
    scopes.push_back(python::kModuleScope);
    return scopes;
  };
  // The kinds the walk acts on: it passes over the others with one test.
  constexpr python::KindSet kIndexed = {Kind::FunctionDefinition, Kind::ForStatement, Kind::WhileStatement, Kind::Call};
  for (uint32_t id = 0; id < tree.node_count(); ++id) {
    Node n(&tree, id);
    if (!kIndexed.contains(n.kind()) || !n.is_named()) continue;
    while (id >= contexts.back().end) contexts.pop_back();
    int function = contexts.back().function;
    bool in_loop = contexts.back().in_loop;
    switch (n.kind()) {
      case Kind::FunctionDefinition: {
        std::string_view name = n.field(Field::Name).text();
        Node parent = n.parent();
        if (parent && parent.kind() == Kind::DecoratedDefinition) {
          for (uint32_t i = 0; i < parent.named_child_count(); ++i) {
            Node d = parent.named_child(i);
            if (d.kind() != Kind::Decorator || d.named_child_count() == 0) continue;
            Node e = d.named_child(0);
            if (e.kind() == Kind::Call) {
              auto args = python::call_arguments(e);
              auto q = qualified_in(e.field(Field::Function), scopes_of(function), imports);
              e = q && *q == "functools.partial" && !args.positional.empty() ? args.positional[0] : e.field(Field::Function);
            }
            auto q = qualified_in(e, scopes_of(function), imports);
            if (Compiler c = q ? compiler_of(*q) : Compiler::None; c != Compiler::None) {
              if (c != Compiler::Torch) idx.step_callables.insert(name);
              idx.compiled_by.emplace(name, c);
            }
          }
        }
        if (step_function_name(name)) idx.step_functions.insert(name);
        functions.push_back({n.span().begin, function, name});
        contexts.push_back({tree.subtree_end(n), int(functions.size() - 1), false});
        break;
      }
      case Kind::ForStatement:
      case Kind::WhileStatement:
        contexts.push_back({tree.subtree_end(n), function, true});
        break;
      case Kind::Call: {
        Node callee = n.field(Field::Function);
        std::optional<std::string> q;
        if (callee.kind() == Kind::Attribute ? indexed_callee_name(callee.field(Field::Attribute).text())
                                             : callee.kind() == Kind::Identifier &&
                                                   (indexed_callee_name(callee.text()) ||
                                                    imports.binds(callee.text())))
          q = qualified_in(callee, scopes_of(function), imports);
        if (Compiler c = q ? compiler_of(*q) : Compiler::None; c != Compiler::None)
          index_compile_call(n, c, scopes_of(function), imports, idx);
        // A function that updates parameters once per call is a step; one that only runs a
        // backward pass may be a test or a gradient check, run once.
        if (function >= 0 && !in_loop && step_marker(n, q) == Marker::Update &&
            !functions[size_t(function)].name.starts_with("test")) {
          idx.step_function_starts.insert(functions[size_t(function)].start);
          idx.step_functions.insert(functions[size_t(function)].name);
        }
        // In a loop, a marker or a call of a would-be step makes the function run a training loop.
        if (function >= 0 && in_loop) {
          if (step_marker(n, q) != Marker::None)
            idx.epoch_functions.insert(functions[size_t(function)].name);
          else
            loop_calls.emplace_back(function, python::chain_last_name(callee));
        }
        if (q && (q->ends_with("parallel_loader.MpDeviceLoader") || q->ends_with("parallel_loader.ParallelLoader")))
          idx.device_loader = true;
        if (q && (*q == "torch.utils.data.DataLoader" || *q == "torch.utils.data.dataloader.DataLoader")) {
          Node parent = n.parent();
          if (parent && parent.kind() == Kind::Assignment && parent.field(Field::Right) == n)
            idx.dataloader_names.insert(python::chain_last_name(parent.field(Field::Left)));
        }
        break;
      }
      default:
        break;
    }
  }
  for (const auto& [f, callee] : loop_calls)
    if (idx.step_callables.count(callee) || idx.step_functions.count(callee))
      idx.epoch_functions.insert(functions[size_t(f)].name);
  return idx;
}

FileIndex& file_index(const PythonContext& ctx) {
  std::optional<FileIndex>& index = ctx.file_state<std::optional<FileIndex>>();
  if (!index) index = build_index(ctx);
  return *index;
}

std::string_view function_name(Node def) { return def.field(Field::Name).text(); }

// A call of a step function or a JAX/TF compiled callable of this file: `train_step(batch)`, `self.p_step(s, b)`.
bool calls_step(Node call, const FileIndex& idx) {
  std::string_view name = python::chain_last_name(call.field(Field::Function));
  return idx.step_callables.count(name) || idx.step_functions.count(name);
}

// A call of a function of this file by its name, `run_epoch(...)` or `self.run_epoch(...)`; not a
// method of another object (`model.train()` is not the file's `def train`).
bool calls_own_function(Node call) {
  Node callee = call.field(Field::Function);
  if (callee.kind() == Kind::Identifier) return true;
  Node object = callee.kind() == Kind::Attribute ? callee.field(Field::Object) : Node();
  return object && object.kind() == Kind::Identifier && object.text() == "self";
}

const FileIndex::LoopStep& loop_step(Node loop, const PythonContext& ctx, FileIndex& idx) {
  auto [it, inserted] = idx.training_loops.try_emplace(loop.span().begin);
  FileIndex::LoopStep& out = it->second;
  if (!inserted) return out;
  // In a unit test, a loop that only runs backward passes checks gradients over a list of cases.
  const Frame* fn = ctx.enclosing_function();
  bool in_test = fn && function_name(fn->node).starts_with("test");
  std::vector<Node> stack{loop.field(Field::Body)};
  bool marker = false;
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (!n) continue;
    Kind k = n.kind();
    // A nested loop's steps are its own: an epoch loop around a batch loop runs its own body (an
    // epoch summary) once per epoch.
    if (k == Kind::FunctionDefinition || k == Kind::ClassDefinition || k == Kind::Lambda ||
        k == Kind::ForStatement || k == Kind::WhileStatement)
      continue;
    if (k == Kind::Call) {
      std::string_view callee = python::chain_last_name(n.field(Field::Function));
      // A call of a function that runs a training loop makes this an epoch loop, whatever else it calls.
      if (calls_own_function(n) && idx.epoch_functions.count(callee)) return out = {};
      // step_marker asks the qualified name only whether it is optax.apply_updates: an attribute
      // call by another name needs no resolving.
      static const std::optional<std::string> kUnresolved;
      Node function = n.field(Field::Function);
      bool may_be_update =
          function.kind() != Kind::Attribute || function.field(Field::Attribute).text() == "apply_updates";
      Marker m = step_marker(n, may_be_update ? ctx.qualified_name(function) : kUnresolved);
      if (m == Marker::Update || (m == Marker::Backward && !in_test)) marker = true;
      if (calls_step(n, idx) && out.calls.empty()) out.calls = callee;
    }
    for (uint32_t i = 0; i < n.named_child_count(); ++i) stack.push_back(n.named_child(i));
  }
  out.step = marker || !out.calls.empty();
  if (marker) out.calls = {};
  return out;
}

Compiler compiled(const Frame& f, const FileIndex& idx) {
  for (const std::string& d : f.decorators)
    if (Compiler c = compiler_of(d); c != Compiler::None) return c;
  auto it = idx.compiled_by.find(function_name(f.node));
  return it != idx.compiled_by.end() && idx.compiled_functions.count(it->first) ? it->second : Compiler::None;
}


// Calls whose function arguments run outside the step: the fix for a sync, not a sync.
bool defers(Node call) {
  std::string_view name = python::chain_last_name(call.field(Field::Function));
  return name == "add_step_closure" || name == "callback" || name.ends_with("_callback");
}

}  // namespace


bool uses_device_loader(const PythonContext& ctx) { return file_index(ctx).device_loader; }

bool names_dataloader(std::string_view name, const PythonContext& ctx) {
  return file_index(ctx).dataloader_names.count(name) > 0;
}

std::optional<std::string> explicit_qualified_name(Node expr, const PythonContext& ctx) {
  const auto& q = ctx.qualified_name(expr);
  if (!q) return q;
  Node root = expr;
  while (root.kind() == Kind::Attribute) root = root.field(Field::Object);
  if (root.kind() == Kind::Identifier && !ctx.imports().binds(root.text())) return std::nullopt;
  return q;
}

bool receiver_may_be(Node callee, const PythonContext& ctx, std::string_view framework) {
  if (callee.kind() != Kind::Attribute) return false;
  Node root = python::chain_root(callee.field(Field::Object));
  if (root.kind() == Kind::Identifier && ctx.qualified_name(root) && !ctx.imports().binds(root.text())) {
    Node receiver = callee.field(Field::Object);
    bool own = receiver.kind() == Kind::Identifier && (receiver.text() == "self" || receiver.text() == "cls");
    return !own && ctx.imports().imports(framework);
  }
  return pyapi::method_receiver_may_be(callee, ctx, framework);
}

namespace {

// Whether `scope` (outside nested definitions) has a call that `matches`, memoized under `key`.
template <class Match>
bool scope_has_call(Node scope, const std::string& key, const PythonContext& ctx, const Match& matches) {
  auto [it, inserted] = file_index(ctx).scope_calls.try_emplace({scope.span().begin, key}, false);
  if (!inserted) return it->second;
  std::vector<Node> stack{scope};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (n.kind() == Kind::FunctionDefinition || n.kind() == Kind::ClassDefinition) continue;
    if (n.kind() == Kind::Call && matches(n)) return it->second = true;
    for (uint32_t i = 0; i < n.named_child_count(); ++i) stack.push_back(n.named_child(i));
  }
  return false;
}

}  // namespace

bool scope_calls_method(Node scope, std::string_view method, const PythonContext& ctx) {
  return scope_has_call(scope, std::string(method), ctx, [&](Node call) {
    Node f = call.field(Field::Function);
    return f.kind() == Kind::Attribute && f.field(Field::Attribute).text() == method;
  });
}

bool scope_reads_clock(Node scope, const PythonContext& ctx) {
  return scope_has_call(scope, "time.", ctx, [&](Node call) {
    const auto& q = ctx.qualified_name(call.field(Field::Function));
    return q && (q->starts_with("time.") || q->starts_with("timeit."));
  });
}

bool in_unit_test(const PythonContext& ctx) {
  if (is_test_module(ctx.file().path())) return true;
  for (const Frame& f : ctx.frames())
    if (f.type != Frame::Type::Loop && is_test_function(f.node.field(Field::Name).text())) return true;
  return false;
}

bool says_train(std::string_view text) { return lower(text).find("train") != std::string::npos; }

bool is_torch_dataloader(Node call, const PythonContext& ctx) {
  const auto& q = ctx.qualified_name(call.field(Field::Function));
  return q && (*q == "torch.utils.data.DataLoader" || *q == "torch.utils.data.dataloader.DataLoader");
}

namespace {

const FileIndex::Bindings& scope_bindings(Node scope, const PythonContext& ctx);

// Walks the method chain `expr` down to its root, and from a root name into the values assigned
// to it in the enclosing function (or module), asking `pred` of every call met. Each name is
// followed once (`ds = ds.map(f)` repeated N times costs N, not N to the power of the depth).
template <class Pred>
bool chain_any(Node expr, const PythonContext& ctx, const Pred& pred, std::unordered_set<std::string>& followed) {
  for (Node n = expr; n;) {
    switch (n.kind()) {
      case Kind::Call:
        if (pred(n)) return true;
        n = n.field(Field::Function);
        break;
      case Kind::Attribute:
        n = n.field(Field::Object);
        break;
      case Kind::Subscript:
        n = n.field(Field::Value);
        break;
      case Kind::Identifier: {
        std::string name(n.text());
        if (!followed.insert(name).second) return false;
        const Frame* fn = ctx.enclosing_function();
        const FileIndex::Bindings& all = scope_bindings(fn ? fn->node.field(Field::Body) : ctx.tree().root(), ctx);
        auto found = all.find(name);
        if (found == all.end()) return false;
        for (const FileIndex::Binding& b : found->second)
          if (b.whole && !contains(b.right.span(), expr.span()) && chain_any(b.right, ctx, pred, followed))
            return true;
        return false;
      }
      default:
        return false;
    }
  }
  return false;
}

}  // namespace

bool is_tf_data_batch(Node call, const PythonContext& ctx) {
  Node callee = call.field(Field::Function);
  if (callee.kind() != Kind::Attribute) return false;
  std::string_view m = callee.field(Field::Attribute).text();
  if ((m != "batch" && m != "padded_batch") || !ctx.imports().imports("tensorflow")) return false;
  std::unordered_set<std::string> followed;
  return chain_any(callee.field(Field::Object), ctx, [&](Node c) {
    const auto& q = ctx.qualified_name(c.field(Field::Function));
    return q && (q->starts_with("tensorflow.data.") || q->starts_with("tensorflow_datasets."));
  }, followed);
}

bool chain_calls_method(Node expr, std::string_view method, const PythonContext& ctx) {
  std::unordered_set<std::string> followed;
  return chain_any(expr, ctx, [&](Node c) {
    Node f = c.field(Field::Function);
    return f.kind() == Kind::Attribute && f.field(Field::Attribute).text() == method;
  }, followed);
}

std::span<const Kind> DataLoaderCheck::kinds() const {
  static constexpr Kind k[] = {Kind::Call};
  return k;
}

std::span<const std::string_view> DataLoaderCheck::callee_names() const {
  static constexpr std::string_view k[] = {"DataLoader"};
  return k;
}

void DataLoaderCheck::check(Node n, PythonContext& ctx) const {
  if (is_torch_dataloader(n, ctx)) check_loader(n, python::call_arguments(n), ctx);
}

std::span<const Kind> StepCallCheck::kinds() const {
  static constexpr Kind k[] = {Kind::Call};
  return k;
}

void StepCallCheck::check(Node n, PythonContext& ctx) const { check_call(n, ctx); }

Step enclosing_step(Node n, const PythonContext& ctx) {
  FileIndex& idx = file_index(ctx);
  std::span<const Frame> frames = ctx.frames();
  Step found;
  bool plain_function_seen = false;
  for (size_t i = frames.size(); i-- > 0;) {
    const Frame& f = frames[i];
    if (!contains(f.body, n.span())) continue;
    if (f.type == Frame::Type::Loop) {
      if (!plain_function_seen) {
        if (const FileIndex::LoopStep& ls = loop_step(f.node, ctx, idx); ls.step) {
          found = {StepKind::TrainingLoop, Compiler::None, f.node, false, {}};
          found.loop_calls = ls.calls;
          break;
        }
      }
      continue;
    }
    if (f.type != Frame::Type::Function) continue;
    if (Compiler c = compiled(f, idx); c != Compiler::None) {
      found = {StepKind::CompiledFunction, c, f.node, false, {}};
      break;
    }
    if (plain_function_seen) continue;
    if (idx.step_function_starts.count(f.node.span().begin) || step_function_name(function_name(f.node))) {
      found = {StepKind::StepFunction, Compiler::None, f.node, false, {}};
      break;
    }
    if (function_name(f.node) == "forward" && i > 0 && frames[i - 1].type == Frame::Type::Class &&
        contains(frames[i - 1].body, f.node.span()) &&
        torch::derives_from_module(frames[i - 1].node, ctx)) {
      found = {StepKind::ModelForward, Compiler::None, f.node, false, {}};
      break;
    }
    plain_function_seen = true;
  }
  if (!found) return found;
  // Between the node and its step: a periodic guard, or a deferred closure.
  Node child = n;
  for (Node p = n.parent(); p && !(p == found.node); child = p, p = p.parent()) {
    if ((p.kind() == Kind::IfStatement || p.kind() == Kind::ElifClause) && p.field(Field::Consequence) == child &&
        python::is_periodic_condition(p.field(Field::Condition)))
      found.periodic = true;
    if (p.kind() == Kind::ArgumentList) {
      Node call = p.parent();
      if (call && call.kind() == Kind::Call && defers(call)) return Step{};
    }
  }
  return found;
}

std::string describe(const Step& s) {
  switch (s.kind) {
    case StepKind::TrainingLoop:
      return s.loop_calls.empty() ? "a training loop" : fmt::format("a loop that calls the step '{}'", s.loop_calls);
    case StepKind::StepFunction:
      return fmt::format("the step function '{}'", function_name(s.node));
    case StepKind::CompiledFunction: {
      std::string_view by = s.compiler == Compiler::Jax ? "JAX" : s.compiler == Compiler::Tf ? "tf.function" : "torch.compile";
      return fmt::format("'{}' (compiled by {})", function_name(s.node), by);
    }
    case StepKind::ModelForward:
      return "'forward' of a torch module";
    case StepKind::None:
      break;
  }
  return {};
}

namespace {

// Tensor methods that return a tensor (a reduction, a cast, an elementwise op, a view).
bool tensor_method(std::string_view m) {
  static constexpr std::array<std::string_view, 44> kMethods = {
      "abs",     "add",      "all",    "amax",    "amin",      "any",     "argmax",  "argmin",    "bfloat16",
      "clamp",   "clone",    "count_nonzero", "cumsum", "detach", "div",   "dot",     "double",    "eq",
      "exp",     "flatten",  "float",  "ge",      "gt",        "half",    "le",      "log",       "logsumexp",
      "lt",      "max",      "mean",   "min",     "mul",       "ne",      "norm",    "pow",       "prod",
      "reshape", "sigmoid",  "sqrt",   "square",  "squeeze",   "std",     "sum",     "var"};
  return std::find(kMethods.begin(), kMethods.end(), m) != kMethods.end();
}

// Methods and builtins whose result is a host value (what a sync returns, or metadata).
bool host_method(std::string_view m) {
  return m == "item" || m == "tolist" || m == "numpy" || m == "cpu" || m == "size" || m == "dim" ||
         m == "numel" || m == "__len__";
}
bool host_builtin(std::string_view f) {
  return f == "float" || f == "int" || f == "bool" || f == "len" || f == "round" || f == "str";
}
bool host_attribute(std::string_view a) {
  return a == "shape" || a == "dtype" || a == "ndim" || a == "device" || a == "is_cuda" || a == "requires_grad";
}

bool loss_like(std::string_view name) {
  std::string n = lower(name);
  return n.find("loss") != std::string::npos || n.find("criterion") != std::string::npos;
}

// A torch/JAX/TF function that returns tensors: torch.norm, F.cross_entropy, jnp.mean, tf.reduce_sum.
bool tensor_function(std::string_view q) {
  for (std::string_view p : {"torch.nn.functional.", "torch.linalg.", "torch.special.", "jax.numpy.", "jax.lax.",
                             "jax.nn.", "tensorflow.math.", "tensorflow.nn.", "tensorflow.keras.losses."})
    if (q.starts_with(p)) return true;
  if (q.starts_with("tensorflow.reduce_")) return true;
  if (q.starts_with("optax.")) return loss_like(q) || q.find("entropy") != std::string_view::npos;
  if (!q.starts_with("torch.")) return false;
  std::string_view name = q.substr(6);
  if (name.find('.') != std::string_view::npos) return false;  // torch.cuda.*, torch.distributed.*
  return !(name.starts_with("is_") || name.starts_with("get_") || name.starts_with("set_") || name == "device" ||
           name == "Size" || name == "load" || name == "save" || name == "manual_seed" || name == "no_grad" ||
           name == "finfo" || name == "iinfo" || name == "numel" || name == "dtype");
}

enum class Value : uint8_t { Unknown, Host, Tensor };

Value classify(Node e, const PythonContext& ctx, const Step& in, bool params_traced, int depth);

bool receiver_may_be_tensor(Node callee, const PythonContext& ctx) {
  return receiver_may_be(callee, ctx, "torch") || receiver_may_be(callee, ctx, "jax") ||
         receiver_may_be(callee, ctx, "tensorflow");
}

Value classify_call(Node call, const PythonContext& ctx) {
  Node callee = call.field(Field::Function);
  if (auto q = explicit_qualified_name(callee, ctx)) {
    if (tensor_function(*q)) return Value::Tensor;
    return *q == "jax.device_get" || q->starts_with("numpy.") || q->starts_with("math.") ? Value::Host : Value::Unknown;
  }
  if (callee.kind() == Kind::Identifier && host_builtin(callee.text())) return Value::Host;
  // A transformed function's result: `jax.grad(f)(p)`, `jax.vmap(f)(x)`, `jax.value_and_grad(f)(p)`.
  if (callee.kind() == Kind::Call) {
    const auto& inner = ctx.qualified_name(callee.field(Field::Function));
    if (inner && inner->starts_with("jax.")) return Value::Tensor;
  }
  // What a compiled callable of this file returns lives on the device: `state, metrics = p_step(...)`.
  const FileIndex& idx = file_index(ctx);
  std::string_view callee_name = python::chain_last_name(callee);
  if (idx.step_callables.count(callee_name)) return Value::Tensor;
  if (callee.kind() == Kind::Attribute) {
    std::string_view m = callee.field(Field::Attribute).text();
    if (host_method(m)) return Value::Host;
    if (tensor_method(m) && receiver_may_be_tensor(callee, ctx)) return Value::Tensor;
  }
  return loss_like(python::chain_last_name(callee)) ? Value::Tensor : Value::Unknown;
}

// Is `name` a parameter of the function `def`?
bool is_parameter(Node def, std::string_view name) {
  Node params = def.field(Field::Parameters);
  for (uint32_t i = 0; params && i < params.named_child_count(); ++i) {
    Node p = params.named_child(i);
    Node id = p.kind() == Kind::Identifier ? p : p.field(Field::Name);
    if (!id && p.named_child_count() > 0) id = p.named_child(0);
    if (id && id.kind() == Kind::Identifier && id.text() == name) return true;
  }
  return false;
}

const FileIndex::Bindings& scope_bindings(Node scope, const PythonContext& ctx) {
  FileIndex& idx = file_index(ctx);
  auto [it, inserted] = idx.bindings.try_emplace(scope.span().begin);
  if (!inserted) return it->second;
  std::vector<Node> stack{scope};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    Kind k = n.kind();
    if (k == Kind::FunctionDefinition || k == Kind::ClassDefinition) continue;
    if (k == Kind::Assignment || n.kind() == Kind::AugmentedAssignment) {
      Node left = n.field(Field::Left), right = n.field(Field::Right);
      if (right && left.kind() == Kind::Identifier) {
        it->second[left.text()].push_back({right, true});
      } else if (right && (left.kind() == Kind::PatternList || left.kind() == Kind::TuplePattern)) {
        for (uint32_t i = 0; i < left.named_child_count(); ++i)
          if (left.named_child(i).kind() == Kind::Identifier)
            it->second[left.named_child(i).text()].push_back({right, false});
      }
    }
    for (uint32_t i = 0; i < n.named_child_count(); ++i) stack.push_back(n.named_child(i));
  }
  return it->second;
}

Value classify_name(Node id, const PythonContext& ctx, const Step& in, bool params_traced, int depth) {
  std::string_view name = id.text();
  const Frame* fn = ctx.enclosing_function();
  Node scope = fn ? fn->node.field(Field::Body) : ctx.tree().root();
  bool host = false, tensor = false;
  const FileIndex::Bindings& all = scope_bindings(scope, ctx);
  // `total = total * 2`: a name's value in terms of itself adds nothing, and following it again
  // for every assignment would cost the square of their number.
  std::vector<std::string_view>& classifying = file_index(ctx).classifying;
  if (std::find(classifying.begin(), classifying.end(), name) != classifying.end()) return Value::Unknown;
  if (auto found = all.find(name); found != all.end()) {
    classifying.emplace_back(name);
    for (const FileIndex::Binding& b : found->second) {
      if (contains(b.right.span(), id.span())) continue;  // `x = x + 1` does not define x by itself
      // A tuple target takes a tensor from a call that returns several (`state, metrics = step(...)`).
      Value v = b.whole ? classify(b.right, ctx, in, params_traced, depth + 1)
                        : (b.right.kind() == Kind::Call ? classify_call(b.right, ctx) : Value::Unknown);
      if (v == Value::Host) host = true;
      if (v == Value::Tensor) tensor = true;
    }
    classifying.pop_back();
  }
  if (host) return Value::Host;
  if (tensor || loss_like(name)) return Value::Tensor;
  if (params_traced && in.kind == StepKind::CompiledFunction && fn && is_parameter(fn->node, name)) return Value::Tensor;
  return Value::Unknown;
}

Value classify(Node e, const PythonContext& ctx, const Step& in, bool params_traced, int depth) {
  if (!e || depth > 3) return Value::Unknown;
  switch (e.kind()) {
    case Kind::Call:
      return classify_call(e, ctx);
    case Kind::Identifier:
      return classify_name(e, ctx, in, params_traced, depth);
    case Kind::Attribute: {
      std::string_view a = e.field(Field::Attribute).text();
      if (host_attribute(a)) return Value::Host;
      if (a == "loss" || a == "logits") return Value::Tensor;
      if (explicit_qualified_name(e, ctx)) return Value::Unknown;
      Node object = e.field(Field::Object);
      if (object.kind() == Kind::Identifier && (object.text() == "self" || object.text() == "args")) return Value::Unknown;
      return classify(object, ctx, in, params_traced, depth + 1);
    }
    case Kind::Subscript:
      return classify(e.field(Field::Value), ctx, in, params_traced, depth + 1);
    case Kind::String:
    case Kind::Integer:
    case Kind::Float:
    case Kind::True:
    case Kind::False:
    case Kind::None:
      return Value::Host;
    case Kind::ParenthesizedExpression:
      return e.named_child_count() == 1 ? classify(e.named_child(0), ctx, in, params_traced, depth) : Value::Unknown;
    case Kind::BinaryOperator:
    case Kind::UnaryOperator: {
      // A tensor operand makes a tensor; only host operands make a host value (`x * 2` is as unknown as x).
      bool all_host = true;
      for (uint32_t i = 0; i < e.named_child_count(); ++i) {
        Value v = classify(e.named_child(i), ctx, in, params_traced, depth + 1);
        if (v == Value::Tensor) return Value::Tensor;
        if (v != Value::Host) all_host = false;
      }
      return all_host ? Value::Host : Value::Unknown;
    }
    default:
      return Value::Unknown;
  }
}

}  // namespace

bool is_function_parameter(Node def, std::string_view name) { return is_parameter(def, name); }

bool tensor_valued(Node e, const PythonContext& ctx, const Step& in, bool params_traced) {
  return classify(e, ctx, in, params_traced, 0) == Value::Tensor;
}

}  // namespace tpulint::checks::step
