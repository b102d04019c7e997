// Helpers shared by the TPU3xx (unsupported ops and dtypes) and TPU4xx (CUDA-coupled APIs)
// Python checks: whole-name references resolved through the imports, literal arguments, the
// method-form heuristic, CUDA-availability guards and sorted data-table lookups.
#pragma once

#include "core/identifier_words.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "checks/check_def.h"

namespace tpulint::checks::pyapi {

using python::Kind;
using python::Node;
using python::PythonContext;


// False when ctx.qualified_name(expr) cannot be `target`: an attribute chain resolves to a name
// ending in its own last name, and a bare name resolves only through an import that binds it or
// a star import (which keeps the name). For targets asked about rarely, before resolving.
bool may_resolve_to(Node expr, std::string_view target, const PythonContext& ctx);

// The call whose callee is `n`, or a null node.
Node call_of(Node callee, const PythonContext& ctx);

// The outermost of `n` and the conditional expressions and parentheses it is a branch of: where a
// value chosen as `"a" if c else "b"` is used (an argument, a keyword, an assignment's value).
Node through_choices(Node n);

// True when `n` is only inspected, not used as a value for computing: inside a comparison
// (`x.dtype == torch.float64`, `d in (torch.float32, torch.float64)`), an isinstance/issubclass
// argument, an `except` clause or a type annotation.
bool in_test(Node n, const PythonContext& ctx);

// True when `n` is a key or value of a dict literal, directly or as a branch of a conditional
// expression there (a lookup table: the choice is made elsewhere).
bool in_dict_entry(Node n, const PythonContext& ctx);

// The method-form heuristic for `receiver.name(...)`, whose receiver's type is unknown: true
// when the file imports `framework` ("torch"), the receiver is not `self` or `cls` (a module's
// own method), and the receiver is not rooted at an import of another module
// (`np.arange(3).nonzero()` is NumPy's).
bool method_receiver_may_be(Node callee, const PythonContext& ctx, std::string_view framework);

// Literal values of argument expressions; nullopt when the expression is not that literal.
std::optional<std::string> string_literal(Node n);  // a plain string (an f-string's literal prefix)
std::optional<long long> int_literal(Node n);       // 3, -1
std::optional<bool> bool_literal(Node n);           // True, False
// Whether `s` names a device of type `type` ("cuda", "xla"): the type alone or with an index ("cuda:0").
bool is_device_string(std::string_view s, std::string_view type);

// ASCII lower case, for names and device strings compared without case (core/identifier_words).
using tpulint::ascii_lower;
// Without building the lower-case copy: whether ascii_lower(text) contains, or equals, `lower`
// (which must be lower case).
bool lower_contains(std::string_view text, std::string_view lower);
bool lower_equals(std::string_view text, std::string_view lower);

// Whether `call` passes one of the keyword arguments `names`: CallArguments::keyword without
// building the argument lists, for a test that rejects most calls.
bool passes_keyword(Node call, std::initializer_list<std::string_view> names);

// A call's argument by position or keyword: `pos` counts positional arguments only.
Node argument(const python::CallArguments& args, size_t pos, std::string_view keyword);

// True when `n` runs only if CUDA is present: it sits in the body of an `if` (or the value of a
// conditional expression) whose condition tests `torch.cuda.is_available()`, `.is_cuda`, or
// compares with a "cuda" string (`x.device.type == "cuda"`), within the enclosing function.
bool cuda_guarded(Node n, const PythonContext& ctx);

// For a finding at `n` that would be an error: when `n` runs only where CUDA is present (see
// cuda_guarded), a TPU host skips it, so the finding becomes a warning that says so.
void soften_if_cuda_guarded(Finding& f, Node n, const PythonContext& ctx);

// The row of a data table (sorted and unique by its first column) whose key is `key`.
template <class Row, std::size_t N>
const Row* find_row(const Row (&table)[N], std::string_view Row::*key_field, std::string_view key) {
  const Row* end = table + N;
  const Row* it = std::lower_bound(table, end, key,
                                   [key_field](const Row& r, std::string_view k) { return r.*key_field < k; });
  return it != end && it->*key_field == key ? it : nullptr;
}

// A check whose declarative match is a whole name reference (see PythonContext::reference_name):
// it is called on each identifier and attribute chain that resolves through the imports, and
// `match` decides from the resolved qualified name.
class ReferenceCheck : public python::PythonCheck {
 public:
  struct Match {
    std::string message;
    std::string hint;
    bool at_call = true;  // underline the whole call when the reference is called
    std::optional<Severity> severity = std::nullopt;  // when this finding differs from the check's
  };
  bool checks_references() const override { return true; }
  void check_reference(Node n, const std::string& qualified, PythonContext& ctx) const override;

 protected:
  virtual std::optional<Match> match(const std::string& qualified, Node n, PythonContext& ctx) const = 0;
};

// The start of `call`'s method name, so that a method-form finding underlines `.name(...)` only.
ByteSpan from_method_name(Node call);

}  // namespace tpulint::checks::pyapi
