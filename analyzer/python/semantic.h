// The Python semantic model of one file: where each piece of its code runs (core Context), from
// the role of each function and the guards around each statement. Checks report what they see;
// the analyzer gives each finding the context of the code it stands on, and a finding that
// matters only in device code, or that sits behind a guard, is discounted (discounts_finding).
//
// Framework facts (tracing transforms, module and dataset bases, role names, guard names) come
// from the caller (checks/data/python_code_roles.tsv): the frontend knows no framework.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/types.h"
#include "python/python_check.h"
#include "python/syntax.h"

namespace tpulint::python {

// Name patterns: "name" exact, "prefix*", "*suffix", "*infix*", "prefix*suffix". Qualified names
// (transforms, bases): exact, or a name under an entry ending in "." ("torch.nn." covers "torch.nn.Module").
struct CodeRoleFacts {
  std::vector<std::string> tracing_transforms;  // decorators and calls that trace the function they get
  std::vector<std::string> gradient_transforms;  // calls that take gradients (qualified): a compiled function calling one is a training step
  std::vector<std::string> module_bases;        // model classes: their hot methods are the hot path
  std::vector<std::string> op_class_bases;      // of those, a custom op's (an autograd Function): not a model of a zoo
  std::vector<std::string> dataset_bases;       // dataset classes: their methods run on the host
  std::vector<std::string> optimizer_bases;     // optimizers and schedulers: their methods run every step of a training loop
  std::vector<std::string> hot_methods;         // of model classes (any class for "forward")
  std::vector<std::string> hot_functions;       // step and loss functions by name
  std::vector<std::string> host_functions;      // collate functions by name
  std::vector<std::string> host_classes;        // dataset and transform classes by name (not model classes)
  std::vector<std::string> iterated_host_classes;  // sampler classes by name, when they define `__iter__`
  std::vector<std::string> preparation_methods;  // a dataset class's offline preparation: one-time code
  std::vector<std::string> host_keywords;       // a function passed as one of these runs on the host
  std::vector<std::string> host_path_parts;     // a module under such a directory (or so named) is host code
  std::vector<std::string> one_time_path_parts; // ... is one-time code (checkpoint conversion)
  std::vector<std::string> hot_parameters;      // a function taking a parameter so named computes a loss's targets
  std::vector<std::string> hot_classes;         // a loss's matching helpers by name (assigners, match costs)
  std::vector<std::string> loop_functions;      // trainer hooks run every step or epoch of a training loop
  std::vector<std::string> one_time_functions;  // constructors, checkpoint loading, argument parsing
  std::vector<std::string> memoizing_decorators;  // a function under one computes each value once (qualified)
  std::vector<std::string> eval_functions;      // evaluation and post-processing
  std::vector<std::string> eval_classes;        // evaluators
  std::vector<std::string> test_functions;      // test functions and classes
  std::vector<std::string> test_path_parts;     // a module under such a directory, or so named, is a test
  std::vector<std::string> step_calls;          // last names of calls that make a loop a training loop
  std::vector<std::string> gradient_step_calls; // of them, those that run the gradient step itself (`backward`), not a step function's name
  std::vector<std::string> step_receiver_exclusions;  // ... unless called on such a receiver (`scheduler.step()`)
  std::vector<std::string> guard_names;         // names in a condition that make it a device or backend guard
  std::vector<std::string> guard_strings;       // ... string literals only (`attn_implementation == "flash_attention_2"`)
  std::vector<std::string> build_scripts;       // file names of build scripts: the sources they name are built, not loaded
  std::vector<std::string> backend_words;       // words (core/identifier_words) of an opt-in option's name that make it a backend guard
  std::vector<std::string> loader_classes;      // data loaders and input pipelines (qualified): a host module's function building one is setup
  std::vector<std::string> eval_module_words;   // the first word of the file name of an evaluation or inference module
  std::vector<std::string> eval_path_parts;     // a module under such a directory is evaluation code (loggers)
  std::vector<std::string> eval_calls;          // calls that make a periodic branch of a training loop an evaluation
  std::vector<std::string> benchmark_path_parts;  // a module under such a directory, or so named, is a benchmark
  std::vector<std::string> optimizer_names;     // a call handed an optimizer and a loss so named makes its loop a training loop
  std::vector<std::string> loss_names;
  std::vector<std::string> alternative_backend_dirs;  // directories of an alternative accelerator or kernel backend
  std::vector<std::string> gpu_backend_words;   // words of a module's file name that name a GPU backend (`gpu_attention.py`)
  std::vector<std::string> entry_point_calls;   // calls that make a main block a script's entry point (`parse_args`, `main`)
  std::vector<std::string> tpu_words;           // words (core/identifier_words) of a name or string that make a branch a TPU path
  std::vector<std::string> training_flags;      // names whose truth means training mode, and the training value of a mode
  std::vector<std::string> eval_mode_words;     // the values of a mode or phase that mean evaluation or inference
  // "module version": the framework releases a port runs on (`torch 2.9.0`): a branch taken only by
  // older releases (`if torch.__version__.startswith('0'):`) is dead code, the other path the code.
  std::vector<std::string> framework_releases;
};

// A condition that holds once every N steps, or at one step: it uses `%` (`step % 100 == 0`), asks
// a helper about the step counter or a period (`if u.itstime(step, log_every):`,
// `if divisible_by(i, validate_every):`), or compares the counter for equality (`if iteration == 0:`).
// What it guards in a training loop does not run every step.
bool is_periodic_condition(Node condition);

// Whether an `if` makes a value only while it is missing, so that its body runs once: its
// condition tests an attribute (`not hasattr(f, 'w')`, `self.cache is None`, `not self.built`)
// that its body then assigns (`f.w = load()`): a lazy initialization.
bool is_lazy_initialization(Node if_statement);

// The name of an option that is off unless the caller turns it on, when `condition` branches on
// it: `if use_trt:`, `if self.immiscible:` (or negated) where the name is a parameter whose default
// is `False`, of the enclosing function or, for an attribute of self, of its class's `__init__`;
// empty otherwise. The model takes what only such a branch runs for guarded code when the name
// names a GPU or backend concept (`trt`, `fused`, `flash`: CodeRoleFacts::backend_words); what
// only a model's own off-by-default option runs (`if self.immiscible:`) is optional feature code
// (SemanticModel::optional_option_at): it runs where its context says, but only when turned on.
std::string_view opt_in_option(Node condition);
// The part of a condition that branches on such an option, for opt_in_option: the condition itself,
// or in a conjunction (`self.dcn_on_last_conv and i == last`) its first term that is an option and
// not negated (the body runs only with it on); null for a condition with `or`.
Node opt_in_term(Node condition);

bool matches_name_pattern(std::string_view pattern, std::string_view name);
// Whether one of a module's directories, or its file name (with and without ".py"), matches one of
// the name patterns `parts`: a data-path module, a test module.
bool module_path_matches(std::string_view path, const std::vector<std::string>& parts);
bool matches_qualified(std::string_view entry, std::string_view qualified);
// Whether the module at `path` is a build script (CodeRoleFacts::build_scripts: setup.py), by its file name.
bool is_build_script(const CodeRoleFacts& facts, std::string_view path);
// Whether `tree` is a model module: a module-level class derives from a model base
// (CodeRoleFacts::module_bases) and none from a custom op's (op_class_bases: an op module, mmcv's
// `ops/roi_align.py`, wraps its autograd Function in a Module), bases resolved through `ctx`.
bool defines_model_class(const Tree& tree, const PythonContext& ctx, const CodeRoleFacts& facts);
// The module-level `if __name__ == "__main__":` statement of `tree` (the first), or a null node.
Node main_block(const Tree& tree);
// Whether a main block is a script's entry point: it reads the command line (a call whose last name is
// one of CodeRoleFacts::entry_point_calls, `parser.parse_args()`, `main()`, `fire.Fire(...)`, or
// `sys.argv`), where a module's smoke test builds its inputs itself.
bool reads_command_line(Node block, const CodeRoleFacts& facts);

class SemanticModel {
 public:
  SemanticModel(const CodeRoleFacts& facts, std::string_view path);
  // Adds the functions, calls, loops and guards of one tree of the file (the parse, or a piece
  // re-parsed after a syntax error), resolving names through `ctx`.
  void add_tree(const Tree& tree, const PythonContext& ctx);
  // Gives each function its role, from its own facts and then from its callers'. Call once, after
  // every tree is added.
  void finish();
  // The context of the code at a byte offset of the file.
  Context context_at(uint32_t offset) const;
  // The context of a use of `name` (a function's or a module's last name) at a byte offset: as
  // context_at, except that a guard whose other path uses the same name does not guard it
  // (`if n_gpus == 1: run() else: spawn(run)`), and only the guarded path is (not the else of
  // `if x.is_cuda:`, nor an optional import with no fallback).
  Context context_of_use(std::string_view name, uint32_t offset) const;
  // The file's top-level functions (not methods, not nested), in source order: where each is, and
  // whether the file itself calls it from code that is neither guarded nor a test (another
  // function, or module level). Call after finish().
  struct TopLevelFunction {
    std::string_view name;
    ByteSpan span;
    bool used_here = false;
    Context role = Context::Unknown;  // its role from this file alone
  };
  std::vector<TopLevelFunction> top_level_functions() const;
  // The option, when the code at a byte offset runs only with an off-by-default option of its
  // model class turned on: in the branch a `self.<option>` (a parameter of the class's `__init__`
  // defaulting to False) selects, or in a method or function the file calls only from such code.
  // Empty for a parameter of the function itself (`return_loss=False`): its callers turn it on at
  // will. Whether a file of the project turns the option on is the project links' to say.
  std::string_view optional_option_at(uint32_t offset) const;
  // The role a function of that name takes from where the file hands it over, whichever module
  // defines it: the hot path when handed to a tracing transform (`jax.jit(train_step)`), the host
  // when handed to a host keyword (`collate_fn=collate`); Unknown otherwise.
  Context handed_role(std::string_view name) const;

 private:
  struct Function {
    std::string name;
    ByteSpan span;
    int parent = -1;        // the enclosing function
    int class_index = -1;   // the class it is a method of
    Context own = Context::Unknown;
    Context role = Context::Unknown;
    bool traced = false;         // decorated with a tracing transform (`@jax.jit`, `@triton.jit`)
    bool training_loop = false;  // holds a training loop
    bool builds_loader = false;  // names a data loader class or input pipeline (CodeRoleFacts::loader_classes)
    bool returns = false;        // returns a value
    bool hot_parameter = false;  // takes a parameter of a loss's target computation (CodeRoleFacts::hot_parameters)
    bool takes_gradients = false;  // calls a gradient transform (`jax.value_and_grad(loss_fn)`)
    bool takes_step = false;       // runs a training step outside its own loops (`loss.backward()`, `optimizer.step()`)
    bool host_by_default = false;  // a dataset class's method of no role of its own: host code unless its callers give it one
    std::string optional_option;  // set by finish(): called only from code an off-by-default option runs
  };
  struct Class {
    std::string name;
    std::vector<std::string> bases;  // qualified where they resolve, else as written
  };
  struct CallSite {
    int caller = -1;  // the function it is in, -1 at module level
    std::string callee;
    uint32_t at = 0;  // its start byte
    bool in_training_loop = false;  // set by finish()
    bool guarded = false;           // set by finish()
    Context branch = Context::Unknown;  // set by finish(): the role of the branch it is in (branch_role)
  };
  struct Launch {
    int caller = -1;
    std::string kernel;  // `kernel[grid](...)`
  };
  // A branch that runs once every N steps (`if step % 100 == 0:`), and whether it evaluates.
  struct Periodic {
    ByteSpan body;
    bool evaluates = false;
  };
  // A module-level import statement, the names it binds, and the context of their uses.
  struct ModuleImport {
    ByteSpan statement;
    std::vector<std::string> names;
    Context context = Context::Unknown;  // set by finish()
    bool used = false;                   // set by finish(): a use places it
  };

  Context own_role(const Function& f, const std::vector<std::string>& decorators) const;
  bool dataset_class(const Class& cls, int class_index) const;
  bool is_guard(Node condition);  // records optional_name_guards_
  // The conditions is_guard took for guards only by the names optional imports bind, by the start of
  // the statement or expression they decide (an `if`, a conditional expression), with those names:
  // once the file refuses such an import (finish()), they guard nothing.
  std::unordered_map<uint32_t, std::vector<std::string>> optional_name_guards_;
  // Whether `condition` holds on the releases of facts_.framework_releases: a test of a framework's
  // `__version__` (or of a module-level name the file assigns from it) against a version, with
  // `not`, `and` and `or`. nullopt when that does not decide it.
  std::optional<bool> holds_on_current_releases(Node condition, const PythonContext& ctx, int depth = 0) const;
  // The release (version numbers) of the framework whose version `operand` reads; empty when none.
  std::vector<int> release_read_by(Node operand, const PythonContext& ctx) const;
  std::unordered_map<std::string, std::vector<int>> release_names_;  // module-level names holding a framework's version
  // Of an if's paths, those that run only on older releases than a port's: after a path whose
  // condition holds on the current releases, or whose own condition fails on them. Empty when none.
  std::vector<bool> dead_paths(const std::vector<Node>& conditions, const PythonContext& ctx) const;
  bool defines_function(std::string_view name) const;  // of the trees added so far
  std::unordered_set<std::string> function_names_;     // of functions_, for defines_function
  // A module-level class beside its TPU namesake (`Replicator`, a `MirroredStrategy`, beside
  // `TpuReplicator`; `GpuAttention` beside `TpuAttention`): another device's, which a TPU user does
  // not pick. Guarded, unless the TPU class derives from it.
  void add_classes_beside_tpu_ones(const Tree& tree);
  bool names_backend(std::string_view option) const;  // a word of it is one of facts_.backend_words
  bool is_tpu_path(Node block) const;  // a name or string in it has a word of facts_.tpu_words
  bool names_tpu(std::string_view text) const;  // one of its words (identifier_words) is one of facts_.tpu_words
  bool steps_a_schedule(Node call) const;  // `lr_scheduler.step()`: a step name on an excluded receiver
  bool evaluates(Node block) const;        // calls one of facts_.eval_calls
  Context caller_role(const CallSite& c) const;
  Context module_role() const;             // of module-level code
  int innermost_function(uint32_t offset) const;  // from finish() on
  std::vector<int> functions_by_begin_;  // functions_' indices in the order of their spans' begins
  static bool in_any(const std::vector<ByteSpan>& spans, uint32_t offset);
  // Spans sorted and merged where they nest or overlap (finish()), then looked up by binary
  // search: a file of many branches asked about many times costs n log n, not n squared.
  static void disjoint_spans(std::vector<ByteSpan>& spans);
  static bool in_disjoint(const std::vector<ByteSpan>& spans, uint32_t offset);
  void give_own_roles();       // finish(): the roles a function has of its own, beyond its name
  void default_eval_roles();   // finish(): an evaluation module's code of no other role
  void place_module_imports(); // finish(): ModuleImport::context

  const CodeRoleFacts& facts_;
  bool host_module_ = false;
  bool one_time_module_ = false;
  bool test_module_ = false;
  bool eval_module_ = false;
  std::vector<Function> functions_;
  std::vector<Class> classes_;
  std::vector<CallSite> calls_;
  std::vector<Launch> launches_;
  std::vector<std::string> loader_class_names_;  // the file's classes deriving from a data loader
  std::vector<std::string> traced_names_;  // functions handed to a tracing transform
  std::vector<std::string> host_names_;    // functions handed to a host keyword (collate_fn=...)
  std::vector<ByteSpan> training_loops_;   // bodies of loops that call a step
  std::vector<Periodic> periodic_;         // bodies of periodic ifs in loops (`if step % 100 == 0:`)
  std::vector<ByteSpan> lazy_inits_;       // bodies of lazy initializations (is_lazy_initialization)
  std::vector<ByteSpan> eval_branches_;    // what runs only out of training mode (add_eval_branches)
  // Whether a condition tests training mode: Training when it holds in training mode only
  // (`self.training`, `mode == ModeKeys.TRAIN`), Eval when only out of it (`not training`,
  // `phase == 'val'`), Neither otherwise (a conjunction, anything else).
  enum class Mode : uint8_t { Neither, Training, Eval };
  Mode mode_of(Node condition) const;
  // The branches of an if that run only out of training mode: one whose condition is Eval, the
  // else of a Training one, and what follows a Training one whose branch returns.
  void add_eval_branches(Node if_statement);
  std::vector<ModuleImport> module_imports_;
  std::unordered_map<std::string, std::vector<uint32_t>> import_uses_;  // where the names module_imports_ bind are used
  bool in_training_loop(uint32_t offset) const;  // and not in a branch of it that runs apart (branch_role)
  // The role of the branch at `offset` that runs apart from the code around it: a lazy
  // initialization is one-time code; a branch out of training mode is evaluation; a periodic
  // branch of a training loop is evaluation when it evaluates, else one-time code. Unknown when
  // `offset` is in none.
  Context branch_role(uint32_t offset) const;
  // A guarded branch, or try body of an optional import, with its alternatives: the names each
  // path reads (sorted), to tell a use only one path makes.
  struct Guard {
    ByteSpan span;
    std::vector<ByteSpan> branches;
    // Per branch: whether it is the guarded path, which runs only with the device, backend or
    // library (`if x.is_cuda:`'s body, `if not HAS_APEX:`'s else, an optional import's try body
    // when its handler binds a fallback); the other paths are what runs on a TPU. A handler that
    // only passes or logs makes the import optional where the module's own dependencies may be
    // missing (a library's PyTorch and JAX halves), not a module the project can run without.
    std::vector<bool> taken;
    bool condition_taken = false;  // the condition itself (`if x.is_cuda and _init():`)
    // An optional import's: the names its handler binds (`fused = None`, `HAS_FUSED = False`): a
    // fallback unless the file requires them (`assert fused is not None`, `if fused is None:
    // raise`); and when the handler binds only None and the file requires one of them, the import
    // is no guard at all: the code cannot run without the library.
    std::vector<std::string_view> fallback_names;
    bool none_only = false;  // the handler binds only None, and imports nothing
    bool refused = false;    // set by finish()
  };
  void add_required(Node n);  // the identifiers in `n` must be there (an assert, a raise's condition)
  std::unordered_set<std::string> required_names_;
  void add_guard(ByteSpan span, const std::vector<Node>& branches, const std::vector<bool>& taken);
  // The same, each path a run of statements (the rest of a block after an early exit).
  void add_guard(ByteSpan span, const std::vector<std::vector<Node>>& paths, const std::vector<bool>& taken);
  // `not A`, `x is None`, or `... or not A`, where A is a guard: an early exit on it leaves what
  // follows to run only when the guard holds.
  bool exits_unless_guard_holds(Node condition);
  bool in_guard(uint32_t offset) const;
  // Whether a use of `name` at `offset` is behind a guard that does not use it on its other path;
  // `only_guarded_path`: and on the guarded path itself, not on the path a TPU takes.
  bool guarded_use(std::string_view name, uint32_t offset, bool only_guarded_path) const;
  Context role_at(uint32_t offset) const;  // context_at but for guards
  std::vector<Guard> guards_;
  // Where each name is read (not assigned), in order, in the files' trees that hold a guard: one
  // index, not a list per guard's branch, for nested guards (a chain of `a if g else b if g ...`)
  // would each list the names of all those inside them.
  std::unordered_map<std::string_view, std::vector<uint32_t>> reads_;
  void index_reads(const Tree& tree);
  bool read_in(std::string_view name, ByteSpan span) const;
  // The branches only an off-by-default model option runs (opt_in_option on `self.<option>`, not
  // a backend), and the keywords the file passes a value that may turn an option on.
  struct OptionalBranch {
    ByteSpan body;
    std::string option;
  };
  std::vector<OptionalBranch> optional_branches_;
  std::string_view optional_branch_at(uint32_t offset) const;
  // finish(): Function::optional_option, from the calls of each name.
  void mark_optional_functions(const std::unordered_map<std::string_view, std::vector<const CallSite*>>& calls_of);
  // finish(): the methods of a class that the file constructs only in guarded code are guarded.
  void guard_classes_built_behind_guards(const std::unordered_map<std::string_view, std::vector<const CallSite*>>& calls_of);
  std::unordered_set<std::string> optional_names_;  // bound by imports guarded by an ImportError handler
  std::unordered_set<std::string> guard_flags_;     // names assigned a guard's truth (`use_kernel = ... == "gpu"`)
};

}  // namespace tpulint::python
