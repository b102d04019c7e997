// Helpers shared by the dynamic-shape checks (TPU2xx): where a local name was last assigned,
// which expressions are boolean masks, tensor values read back to the host, training-step
// functions, and which names are traced inside a JAX transform. Only those checks include this.
#pragma once

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "python/python_check.h"

namespace tpulint::checks::dyn {

using python::Node;
using python::PythonContext;

// True when `s` is one of `set`, or an element of the array `a`.
inline bool one_of(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}
template <size_t N>
bool contains(const std::array<std::string_view, N>& a, std::string_view s) {
  return std::find(a.begin(), a.end(), s) != a.end();
}

// The value of the last plain assignment `name = value` that ends before byte `before`, in the
// body of the innermost function around the node being checked (the module at module level),
// not entering nested functions or classes. Null when there is none: a parameter, a global, a
// name bound by a tuple target or a loop.
Node last_assignment(std::string_view name, uint32_t before, const PythonContext& ctx);
// Local names are followed through this many assignments: enough for `m = x > 0; k = m & v`,
// and a bound on `a = b; b = a` cycles.
inline constexpr int kMaxAssignmentHops = 3;

// The operator tokens of a comparison (`<`, `==`, `is not`, `in`), in order.
std::vector<std::string_view> comparison_operators(Node comparison);
// True for a comparison that computes values elementwise on arrays (`<`, `>=`, `==`, `!=`),
// as opposed to identity or membership tests (`is`, `in`) and comparisons with None or a string.
bool is_elementwise_comparison(Node comparison);

// The index expressions of a subscript: `x[a]` -> {a}, `x[a, :, b]` -> {a, slice, b}.
std::vector<Node> subscript_indices(Node subscript);

// True when the subscripted expression `value` belongs to a library other than `framework`: it
// is rooted at another import (`np.arange(5)[m]`), or is a pandas/JAX accessor (`.loc`, `.iloc`,
// `.at`, `.iat`).
bool indexes_other_library(Node value, const PythonContext& ctx, std::string_view framework);

// Which library made the array `expr` holds, as far as its local assignments tell: a torch call,
// a NumPy (or other non-torch library: cv2, pycocotools) call, `.numpy()`/`.astype()`, through
// local names, subscripts, methods, arithmetic and comparisons. Unknown for parameters, fields.
enum class ArrayOrigin : uint8_t { Unknown, Torch, Other };
ArrayOrigin array_origin(Node expr, const PythonContext& ctx);

// True when `expr` is an argument of a NumPy function or of `torch.from_numpy`: a NumPy array
// (`np.median(m.nonzero(), axis=1)`, `torch.from_numpy(a[a > 0])`).
bool numpy_argument(Node expr, const PythonContext& ctx);

// True when the innermost function around the node being checked calls NumPy and never refers
// to torch: NumPy code in a file that also uses torch (evaluation, visualisation helpers).
bool in_numpy_only_function(const PythonContext& ctx);

// True when the node being checked is in host-side data preparation, where tensors live on the
// CPU: a Dataset's `__getitem__`, or a function whose name contains "collate".
bool in_data_loading(const PythonContext& ctx);

// True when `index`, a subscript index in a torch file, is a boolean mask: an elementwise
// comparison (`x > 0`), `&`, `|`, `^` or `~` over masks or names, a torch predicate
// (`torch.isnan(x)`, `x.eq(y)`, `m.bool()`, `m.any(0)`), or a name last assigned from one of those; failing
// an assignment that decides it, a name whose last word is "mask"/"masks" (`valid_mask`, `mask_i`;
// not `mask_idx`, `mask_label_symmetries`).
bool is_torch_mask(Node index, const PythonContext& ctx);

// When `expr` is a number read back from tensor values on the host, what it was read through
// (".item()", "len(nonzero(...))", ".max()"); nullopt otherwise. Follows local names to their last
// assignment and arithmetic on such values (`n + 1`). Used where a value becomes a shape.
std::optional<std::string> host_value_from_tensor(Node expr, const PythonContext& ctx);

// The node kinds that branch or loop on a condition (if, elif, while, conditional expression),
// the condition of such a node, and its name for a message ("'if'", "conditional expression").
std::span<const python::Kind> branch_kinds();
Node branch_condition(Node branch);
std::string_view branch_statement(Node branch);

// True when the node being checked is inside a torch training or forward function: a function
// named `forward` or `__call__`, or whose name contains "train", "step" or "loss", one decorated
// with `torch.compile`, or a method of a torch module subclass (torch::derives_from_module) other than set-up code
// (`__init__`, `reset_*`, `init*`, `load_*`, `extra_repr`), in a file that imports torch; never
// in a unit test (a test function, frameworks/code_roles is_test_function, other than `test_step`).
bool in_torch_step(const PythonContext& ctx);

// The JAX transform the node being checked is traced under, and the names that hold traced
// values there; nullopt when no enclosing function is traced.
struct TracedScope {
  std::string transform;            // "jax.jit", "jax.lax.scan", ...: the outermost one
  std::set<std::string> traced;     // non-static parameters of the traced functions
};
std::optional<TracedScope> jax_traced_scope(const PythonContext& ctx);

// True when `expr` computes with a traced value: it reads a traced name, or a local last assigned
// from one, or calls jax.numpy/jax.lax on one. Reading only static facts (`x.shape`, `x.ndim`,
// `x.dtype`, `len(x)`, `isinstance`, `x is None`, comparisons with strings) does not count.
bool uses_traced_value(Node expr, const TracedScope& scope, const PythonContext& ctx);

// True when `expr` is a boolean mask computed from traced values (TPU211): an elementwise
// comparison, `&`, `|`, `~`, or a jax.numpy predicate (`jnp.isnan`, `jnp.logical_and`) that
// uses a traced value, or a traced name that is named like a mask or last assigned from a mask.
bool is_traced_mask(Node expr, const TracedScope& scope, const PythonContext& ctx);

// For a call of a TensorFlow function, its name under `tf` without a `compat.v1.`/`compat.v2.`
// prefix ("unique", "image.non_max_suppression"); "" when the call is not one.
std::string tf_op_name(Node call, const PythonContext& ctx);


}  // namespace tpulint::checks::dyn
