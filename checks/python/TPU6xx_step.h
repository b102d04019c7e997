// Helpers shared by the TPU6xx checks (host-device syncs and input-pipeline stalls): whether a
// node runs once per training or inference step, and whether an expression holds a device
// tensor. Both are heuristics; each check's doc states them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "checks/check_def.h"

namespace tpulint::checks::step {

using python::Kind;
using python::Node;
using python::PythonContext;

// What makes the code around a node run once per step.
enum class StepKind : uint8_t {
  None,
  TrainingLoop,      // a for/while loop whose body runs a backward pass, an optimizer step, or a step function
  StepFunction,      // a function that runs an optimizer step (outside its loops), or is named like one
  CompiledFunction,  // a function decorated with or passed to jax.jit/pmap, tf.function or torch.compile
  ModelForward,      // `forward` of a torch.nn.Module subclass
};

// Who compiles a CompiledFunction.
enum class Compiler : uint8_t { None, Jax, Tf, Torch };

struct Step {
  StepKind kind = StepKind::None;
  Compiler compiler = Compiler::None;
  Node node;              // the loop or the function_definition
  // Under an `if` that holds once every N steps or at one step: its condition uses `%`
  // (`if step % 100 == 0:`), passes a step counter or a period to a call (`if u.itstime(step,
  // log_every):`, `if divisible_by(i, validate_every):`) or compares one for equality (`if iteration == 0:`).
  bool periodic = false;
  std::string loop_calls;  // TrainingLoop found by its call of a step function or compiled callable
  explicit operator bool() const { return kind != StepKind::None; }
};

// The step `n` runs in, or a Step with kind None. The file index it reads (step-function names,
// compiled names) is built once per tree walked, on the first question. The innermost frame decides: a training loop,
// or a step, compiled or forward function; a plain function stops the search, except that a
// function nested in a compiled one is traced with it. Code in an argument of
// `xm.add_step_closure(...)` runs after the step and is not in it.
Step enclosing_step(Node n, const PythonContext& ctx);

// "a training loop", "a loop that calls the step 'p_step'", "the step function 'train_step'",
// "'f' (compiled by JAX)", "'forward' of a torch module": for messages.
std::string describe(const Step& s);

// Is `name` a parameter of the function definition `def`?
bool is_function_parameter(python::Node def, std::string_view name);

// The tensor-value heuristic (TPU603/TPU604): true when `e` likely holds a device tensor:
// - a call of a torch/jax.numpy/tf function that returns tensors (`torch.norm(g)`, `F.mse_loss(a, b)`),
//   the result of a JAX-transformed function (`jax.grad(f)(p)`), a tensor method that returns a
//   tensor (`x.sum()`, `loss.detach()`, `y.mean(dim=0)`), a call of a
//   loss (a callee named like `criterion` or `*loss*`), or of a JAX/TF compiled callable of the file;
// - a name bound in the enclosing function (or the module) only to such values, or named like a
//   loss (`loss`, `train_loss`) and never bound to a host value (`.item()`, `float(...)`, a literal);
// - with `params_traced`, inside a compiled function, also a parameter of that function (a traced value);
// - an attribute or subscript of such a value (`out.logits`, `losses[0]`), except `.shape`,
//   `.dtype`, `.ndim`, `.device`, which are host metadata.
bool tensor_valued(Node e, const PythonContext& ctx, const Step& in, bool params_traced = false);

// A check called on calls, which asks about steps: it hands every call to `check_call`.
class StepCallCheck : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const final;
  void check(Node n, PythonContext& ctx) const final;

 protected:
  virtual void check_call(Node call, PythonContext& ctx) const = 0;
};

// True when `call` constructs a torch DataLoader (`torch.utils.data.DataLoader` under any alias).
bool is_torch_dataloader(Node call, const PythonContext& ctx);

// File facts for TPU609 (from the file index): whether a
// torch_xla device loader (`MpDeviceLoader`, `ParallelLoader`) is constructed anywhere in the file,
// and whether `name` is assigned a torch DataLoader somewhere in it (`train_loader`, `self.loader`).
bool uses_device_loader(const PythonContext& ctx);
bool names_dataloader(std::string_view name, const PythonContext& ctx);

// A check called on every construction of a torch DataLoader, with its arguments.
class DataLoaderCheck : public python::PythonCheck {
 public:
  std::span<const Kind> kinds() const final;
  std::span<const std::string_view> callee_names() const final;
  void check(Node n, PythonContext& ctx) const final;

 protected:
  virtual void check_loader(Node call, const python::CallArguments& args, PythonContext& ctx) const = 0;
};

// DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn,
// pin_memory, drop_last, ...): the positions of the arguments the TPU6xx checks read.
inline constexpr size_t kLoaderShuffle = 2, kLoaderSampler = 3, kLoaderBatchSampler = 4, kLoaderNumWorkers = 5,
                        kLoaderDropLast = 8;

// True when `call` is `.batch(...)` or `.padded_batch(...)` on a tf.data dataset: a method chain
// rooted at a `tf.data`/`tfds` call, directly or through names assigned in the same function
// (`ds = tf.data.TFRecordDataset(f); ds = ds.map(parse); ds = ds.batch(32)`).
bool is_tf_data_batch(Node call, const PythonContext& ctx);

// True when the method chain `expr` (or a name it starts from, through its assignments in the
// enclosing function) calls a method named `method`: `ds.shuffle(1000).map(f)` has "shuffle".
bool chain_calls_method(Node expr, std::string_view method, const PythonContext& ctx);

// Memoized per file index: whether the function body or module
// `scope` calls, outside nested definitions, a method named `method` (`.prefetch(...)`), or a
// clock (`time.*`, `timeit.*`).
bool scope_calls_method(Node scope, std::string_view method, const PythonContext& ctx);
bool scope_reads_clock(Node scope, const PythonContext& ctx);

// True when the node being checked is in a unit test: in a test module or a test function or class
// (frameworks/code_roles is_test_module, is_test_function), or nested in one.
bool in_unit_test(const PythonContext& ctx);

// True when a name or expression text says it is for training: it contains "train" (any case).
bool says_train(std::string_view text);

// ctx.qualified_name, except that a name resolved only through a star import (`from models
// import *`) is unresolved: locals such as `loss` or builtins such as `print` would otherwise
// resolve to `models.loss`, `models.print`.
std::optional<std::string> explicit_qualified_name(Node expr, const PythonContext& ctx);

// pyapi::method_receiver_may_be, with a receiver resolved only through a star import taken as a
// local name.
bool receiver_may_be(Node callee, const PythonContext& ctx, std::string_view framework);

}  // namespace tpulint::checks::step
