// The shape of a Python check: it names the node kinds it looks at (its declarative match)
// and reacts to each such node through a PythonContext, which resolves names, knows where the
// node sits (enclosing function, its decorators, enclosing loops) and takes its findings.
// The analyzer walks each file once and calls every enabled check on the kinds it asked for.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/check_info.h"
#include "core/finding.h"
#include "core/project_index.h"
#include "core/source_file.h"
#include "python/imports.h"
#include "python/syntax.h"

namespace tpulint::python {

class LinkRecorder;

// A function, class or loop around the node being checked, innermost last.
struct Frame {
  enum class Type : uint8_t { Function, Class, Loop };
  Type type;
  Node node;                            // function_definition, class_definition, for/while
  ByteSpan body;                        // its body: code in it runs inside the frame
  std::vector<std::string> decorators;  // functions: qualified names, e.g. "jax.jit", "torch.compile"
};

class PythonContext {
 public:
  PythonContext(const SourceFile& file, const Tree& tree, const ImportTable& imports, FindingSink& sink);

  const SourceFile& file() const { return file_; }
  const ImportTable& imports() const { return imports_; }
  // The scanned project's index: its own modules (an empty index when none was given).
  const ProjectIndex& project() const { return *project_; }
  void set_project(const ProjectIndex* project) { project_ = project; }
  // What the file uses of and gives to the rest of the project (python/links.h): where a check
  // notes the facts the project links join across files. Null when no links are recorded.
  LinkRecorder* links() const { return links_; }
  void set_links(LinkRecorder* links) { links_ = links; }
  const Tree& tree() const { return tree_; }

  // What a check's helpers keep about the tree being walked (an index built on the first question,
  // the last answer for the current function): one T per context, value-initialized on first use
  // and dropped with the context, so that no state outlives its file or leaks into the next one.
  template <class T>
  T& file_state() const {
    static const char key = 0;  // one address per T
    for (const auto& [k, state] : states_)
      if (k == &key) return *static_cast<T*>(state.get());
    auto state = std::make_shared<T>();
    T& made = *state;
    states_.emplace_back(&key, std::move(state));
    return made;
  }

  // The fully qualified name an identifier or attribute chain refers to through the imports:
  // with `import torch as T`, `T.cuda.synchronize` -> "torch.cuda.synchronize". Nullopt when
  // the chain does not start at an imported name (locals, builtins, call results).
  // A name is resolved in the scopes around `expr` itself, once per node and file: the
  // reference stays valid as long as the context.
  const std::optional<std::string>& qualified_name(Node expr) const {
    // Inline: most checks of calls ask for their callee's name; all but the first are answered here.
    if (expr && expr.tree() == &tree_)
      if (uint32_t slot = qualified_slots_[expr.id()]; slot != kUnresolved) return remembered(slot);
    return resolve_qualified_name(expr);
  }

  // The qualified name `n` refers to when `n` is a whole name reference: an identifier, or the
  // outermost attribute of a chain, that is read (not bound by an assignment, a parameter or an
  // import, and not the member name of an attribute). With `import torch as T`, the attribute
  // `T.cuda.synchronize` gives "torch.cuda.synchronize"; its inner `T.cuda` gives nothing.
  const std::optional<std::string>& reference_name(Node n) const {
    // Inline: a dozen checks ask for every identifier and attribute; all but the first are answered here.
    if (n && n.tree() == &tree_)
      if (uint32_t slot = reference_slots_[n.id()]; slot != kUnresolved) return remembered(slot);
    return resolve_reference(n);
  }

  // The innermost function whose body contains the current node, or nullptr at module level.
  const Frame* enclosing_function() const;
  // The loops whose body contains the current node, within the innermost function, outermost first.
  std::vector<const Frame*> enclosing_loops() const;
  std::span<const Frame> frames() const { return frames_; }

  // Adds a finding of the check being run at `at`.
  Finding& report(Node at, std::string_view message, std::string_view hint = {}, std::string_view subject = {});
  Finding& report(ByteSpan at, std::string_view message, std::string_view hint = {}, std::string_view subject = {});
  // Records a further line of the check's work item `subject` that is no finding of its own (TouchLine).
  void touch(ByteSpan at, std::string_view subject) { sink_.touch(*check_, at, subject); }

  // The walk's bookkeeping; checks do not call these.
  void set_check(const CheckInfo* check) { check_ = check; }
  void set_current(Node node) { current_ = node; }
  std::vector<Frame>& mutable_frames() { return frames_; }

 private:
  bool contains_current(const Frame& f) const;
  // The function scopes around `n`, innermost first, then the module scope; valid until the next call.
  std::span<const uint32_t> scope_chain(Node n) const;
  // The qualified name of an identifier or attribute chain, resolved through the imports.
  std::optional<std::string> resolve(Node expr) const;
  // Whether `name`, read at `n`, is bound in a scope around it by anything but an import: a
  // parameter, an assignment, a loop, `with` or `except` target, a def or a class. A star import
  // never brings such a name.
  bool bound_around(std::string_view name, Node n) const;
  // The names bound, not by imports, in the scope of `scope` (a function, or the module's root):
  // once per scope and file.
  const std::unordered_set<std::string_view>& names_bound_in(Node scope) const;
  const std::optional<std::string>& remember(std::vector<uint32_t>& slots, Node n, std::optional<std::string> name) const;
  const std::optional<std::string>& remembered(uint32_t slot) const {
    return slot == kNoName ? kNoNameValue : names_[slot - kFirstName];
  }
  const std::optional<std::string>& resolve_reference(Node n) const;
  // qualified_name's slow path: a null node, another tree's node, or a node not yet resolved.
  const std::optional<std::string>& resolve_qualified_name(Node expr) const;

  static const ProjectIndex kNoProject;
  const ProjectIndex* project_ = &kNoProject;
  LinkRecorder* links_ = nullptr;
  const SourceFile& file_;
  const Tree& tree_;
  const ImportTable& imports_;
  FindingSink& sink_;
  const CheckInfo* check_ = nullptr;
  Node current_;
  std::vector<Frame> frames_;
  // Every check called on a node asks for the same few names: each is resolved once. A slot per
  // node of the tree: kUnresolved, kNoName, or kFirstName + the name's index in names_ (a deque,
  // so that a returned reference stays valid as names are added).
  static constexpr uint32_t kUnresolved = 0, kNoName = 1, kFirstName = 2;
  static const std::optional<std::string> kNoNameValue;
  mutable std::vector<uint32_t> qualified_slots_;  // by node id, for qualified_name()
  mutable std::vector<uint32_t> reference_slots_;  // by node id, for reference_name()
  mutable std::deque<std::optional<std::string>> names_;
  // Scratch space of scope_chain and resolve, kept from call to call instead of allocated by each.
  mutable std::vector<uint32_t> scope_chain_;
  mutable std::vector<std::string_view> members_;
  mutable std::unordered_map<uint32_t, std::unordered_set<std::string_view>> bound_names_;  // by scope node id
  mutable std::vector<std::pair<const void*, std::shared_ptr<void>>> states_;  // file_state(), by type
};

class PythonCheck {
 public:
  virtual ~PythonCheck() = default;
  // The node kinds check() is called on (none for a check of references only).
  virtual std::span<const Kind> kinds() const { return {}; }
  // Called once per node of those kinds, in source order. Must not throw; returns early when
  // the node is not a match.
  virtual void check(Node node, PythonContext& ctx) const {}
  // For a check of calls (Kind::Call among its kinds), what its callees can be, so that most
  // calls reach few checks:
  // - callee_names(): last names. A call matches when its callee is that name (`float(x)`), an
  //   attribute with that member name (`x.item()`, `torch.where(c)`), or resolves through the
  //   imports to a name ending in it (`from torch import where as w` makes `w(c)` match "where");
  // - callee_modules(): modules. A call matches when its callee resolves to a name inside one
  //   ("torch.ops" matches `torch.ops.mylib.op(x)`), whatever its last name.
  // check() is called on the calls that match, and on every call when the check gives neither
  // (the default); the check's other kinds of node are not affected.
  virtual std::span<const std::string_view> callee_names() const { return {}; }
  virtual std::span<const std::string_view> callee_modules() const { return {}; }
  // Whether check_reference is called: once for each whole name reference that resolves through
  // the imports (see PythonContext::reference_name), with the name it resolves to. The walk
  // resolves each reference once for all such checks, and only resolved ones reach them.
  virtual bool checks_references() const { return false; }
  virtual void check_reference(Node n, const std::string& qualified, PythonContext& ctx) const {}
  // For a check of references, the names check_reference can match, so that most references
  // reach few checks: qualified names, each covering itself and the names under it ("torch.sparse"
  // covers "torch.sparse.mm", not "torch.sparse_coo_tensor"). check_reference is called on the
  // references whose name one of them covers, and on every resolved reference when the check
  // gives none (the default).
  virtual std::span<const std::string_view> reference_names() const { return {}; }
};

// A check to run together with its metadata (the CheckInfo its findings carry).
struct PythonCheckEntry {
  const CheckInfo* info;
  const PythonCheck* check;
};

// --- helpers for checks ---

// The positional and keyword arguments of a call node.
struct CallArguments {
  std::vector<Node> positional;
  std::vector<std::pair<std::string_view, Node>> keywords;
  bool has_splat = false;  // *args or **kwargs: arguments are not all visible
  Node keyword(std::string_view name) const;
};
CallArguments call_arguments(Node call);

// The last part of a dotted name: "non_max_suppression" for "image.non_max_suppression".
constexpr std::string_view last_name_part(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// For callee_names(): the last parts of the names in a check's table of the calls it reports
// (a generated C array goes through std::to_array).
template <class Row, size_t N>
constexpr std::array<std::string_view, N> last_name_parts(const std::array<Row, N>& rows,
                                                          std::string_view Row::*name) {
  std::array<std::string_view, N> parts{};
  for (size_t i = 0; i < N; ++i) parts[i] = last_name_part(rows[i].*name);
  return parts;
}

// True when the dotted `name` is `module` or inside it: "torch.nn" is in "torch", "torchvision" is not.
bool has_module_prefix(std::string_view name, std::string_view module);

// One decorator of a function: `@jax.jit`, `@jax.jit(static_argnums=1)` and
// `@partial(jax.jit, static_argnums=1)` all name "jax.jit".
struct Decorator {
  Node expr;    // the decorator's expression
  Node call;    // the call that configures it (`jax.jit(...)`, `partial(jax.jit, ...)`), or null
  Node target;  // what it names: the expression, the callee, or partial's first argument
  std::optional<std::string> qualified;  // the target's qualified name through the imports
};
// A function's decorators, in order.
std::vector<Decorator> decorators_of(Node function, const PythonContext& ctx);

// The names of a function's decorators, in order: each one's qualified name, or its text when
// it resolves to no import.
std::vector<std::string> decorator_names(Node function, const PythonContext& ctx);

// The root of an attribute, call and subscript chain, through parentheses: `(a.b(c)[0]).d` -> `a`.
Node chain_root(Node expr);

// `n` without enclosing parentheses: `((x > 0))` -> `x > 0`.
Node unparenthesized(Node n);

// The last name of an identifier or attribute chain, through parentheses: `self.attn_mask` ->
// "attn_mask", `f` -> "f"; "" for other expressions.
std::string_view last_name(Node n);

// The last name of a callee or receiver, through the calls and subscripts it is reached by:
// `opt` for `opt`, `self.opt`, `opts[0]`, `get_opt()`; "" for other expressions.
std::string_view chain_last_name(Node n);

// Whether `name` is one of Python's builtins (`len`, `print`, `isinstance`, ...).
bool is_builtin_name(std::string_view name);

// True for the literal `None`; false for a null node (an argument not given).
bool is_none(Node n);

// The body of the innermost function around the node being checked, or the module at module
// level: where the node's local names are assigned.
Node local_scope(const PythonContext& ctx);

// The values of the plain assignments `name = value` (and `a = name = value`) in `scope`, a
// function body or the module, in source order, not entering nested functions, classes or lambdas
// (other scopes). A tuple target, `+=` or a loop variable is not a plain assignment.
std::vector<Node> assigned_values(std::string_view name, Node scope);
// The values of the `name += value` statements in `scope`, walked as assigned_values walks it.
std::vector<Node> added_values(std::string_view name, Node scope);
// The last of those that ends before byte `before`, or a null node.
Node last_assigned_value(std::string_view name, Node scope, uint32_t before);

// The text of a string literal without quotes or prefix when it has no interpolation;
// for an f-string, the literal text before the first interpolation. Nullopt if not a string.
std::optional<std::string> string_value(Node node);
// The whole text of a string literal with no interpolation; nullopt for anything else (an f-string
// that interpolates, whose value the code decides).
std::optional<std::string> whole_string_value(Node node);

}  // namespace tpulint::python
