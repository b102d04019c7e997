// Helpers shared by the Python custom-kernel checks (TPU11x), the library checks (TPU50x
// CUDA-only libraries, TPU611 host-only ones) and TPU417 (the values a device type is assigned):
// decorators, local assignments, string literals, kernel sizes, optional imports, first-party
// modules and library tables by module. Only those checks include this header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/kernel_class.h"
#include "python/python_check.h"

namespace tpulint::checks::pyhelp {


// The GPU kernel language a function is written in, from its decorators.
enum class KernelDsl : uint8_t {
  None,
  Triton,            // @triton.jit, @triton.autotune, @triton.heuristics
  NumbaCuda,         // @numba.cuda.jit / @cuda.jit
  NumbaCudaDevice,   // @cuda.jit(device=True): a device function called from kernels
  CuteKernel,        // @cute.kernel (CUTLASS CuTe DSL)
  TileLang,          // @tilelang.jit, or a @T.prim_func outside one
  CuTile,            // @ct.kernel (cuTile Python: `import cuda.tile as ct`)
};
// From its decorators, or from the calls that compile it where the module rebinds a name to it
// (`_fwd = triton.jit(_fwd)`, `_fwd = triton.heuristics({...})(_fwd)`, `kernel = cuda.jit(impl)`).
KernelDsl kernel_dsl(python::Node function, const python::PythonContext& ctx);
// The name of the function a module-level compiling call binds `name` to (`kernel = cuda.jit(impl)`
// -> "impl"), or "".
std::string_view rebound_name(std::string_view name, const python::PythonContext& ctx);
std::string_view display_name(KernelDsl dsl);
// Whether the file defines a kernel (or device function) through a decorator of `module`
// ("triton": `@triton.jit`; "numba.cuda": `@cuda.jit`), at any depth.
bool defines_kernels_of(std::string_view module, const python::PythonContext& ctx);

// Hours to port a novel kernel of `lines` lines written in `dsl`. Tile-level languages (Triton,
// TileLang, cuTile) share Pallas's block-level model, so a port is closer to a translation;
// thread-level ones (Numba, CuTe) are rewrites, on TPU101's scale (kernels::novel_kernel_hours).
HoursRange novel_kernel_hours(KernelDsl dsl, uint32_t lines);

// What a kernel function is (checks/kernel_class.h), by its name, its shape (from the syntax
// tree: statements, loops that carry a value, tl.dot and MMA, atomics, scans, barriers) and its
// file; a table op's hours are shared among the file's kernels of the same language that are
// that op. A Triton function that loads and stores nothing (a helper taking values) has
// by_callers set and no hours: trivial when elementwise, else the class of the file's kernels
// that call it, novel when none does.
kernels::Classification classify_kernel(python::Node function, KernelDsl dsl, const python::PythonContext& ctx);

// A function's name for a finding: "Class.method" for a method (CuTe kernels are all called
// `kernel`), else its own name. The function's frame is not open yet when it is being checked.
std::string function_display_name(python::Node function, const python::PythonContext& ctx);


// Every string literal inside `expr` (itself included), without quotes; f-strings keep their
// text before the first interpolation.
std::vector<std::string> string_literals(python::Node expr);

// The values of the plain assignments to `name` (python::assigned_values) in the scope of the node
// being checked, or, when that is a function body that assigns nothing to `name`, in the module.
std::vector<python::Node> assigned_values(std::string_view name, const python::PythonContext& ctx);

// The values an expression may take: the branches of a conditional expression, of the conditional
// expressions among them and so on (under parentheses), or the expression itself.
std::vector<python::Node> alternatives(python::Node expr);

// The qualified name `expr` refers to through the imports, or through one local assignment of
// an imported name (`ext = CUDAExtension; ext(...)`, `k = cp.RawKernel if x else None`): every
// candidate name, deduplicated, in source order.
std::vector<std::string> resolved_names(python::Node expr, const python::PythonContext& ctx);

// The names a from-import imports (`from a import b, c as d` -> {"b", "c"}), without the module.
std::vector<std::string_view> from_import_names(python::Node import_from_statement);

// Turns a finding about an import into one about an optional import: the code takes its fallback
// on a TPU, so it is a warning with low effort (0.25-1 h, checking the fallback).
void mark_optional(Finding& f);

// Of every import statement of the file that `same` accepts (besides `stmt`, which imports the
// same thing): whether `stmt` is the first, and whether all of them, `stmt` included, are
// optional. Checks report one finding per imported thing and file, at its first import.
struct ImportSummary {
  bool first = true;
  bool optional = true;
};
ImportSummary summarize_imports(python::Node stmt, const python::PythonContext& ctx,
                                const std::function<bool(python::Node)>& same);

// True for an import that the code can run without: inside a `try:` whose handler for the
// failed import does not end by raising again.
bool is_optional_import(python::Node import_statement, const python::PythonContext& ctx);

// Whether the top-level module `top` is the scanned project's own code: one of its package
// roots or top-level modules (the project index, ProjectIndex), a module beside the importing
// file (scripts import their siblings), or the scan root itself when it is package `top`.
bool is_first_party(std::string_view top, const python::PythonContext& ctx);

// What the dotted module is in the project: a source file `<root>/a/b.py`, a package
// `<root>/a/b/__init__.py` (for "a.b"; for a one-part name, also beside the importing file), or
// nothing the checkout holds.
enum class ProjectModule : uint8_t { None, File, Package };
ProjectModule project_module(std::string_view module, const SourceFile& file);
inline bool is_python_module_in_project(std::string_view module, const SourceFile& file) {
  return project_module(module, file) != ProjectModule::None;
}

// True if a table's `api` names the qualified name `q`: exactly, by prefix for a row ending in `*`,
// or one submodule deeper (`flash_attn.flash_attn_func` names
// `flash_attn.flash_attn_interface.flash_attn_func`).
bool api_names(std::string_view api, std::string_view q);

// A library op with no PyTorch/XLA lowering that is a standard op (library_standard_ops.tsv) named
// by `ref` (a callee or base class): reported by TPU504 (functions) and TPU505 (modules) as the
// standard op it is, the swap made once for the project.
void report_library_standard_op(python::Node ref, std::string_view kind, std::string_view role,
                                python::PythonContext& ctx);

// What a call or a class definition names, each with the role a message gives it: a call's callee
// when it is a name (`FusedLayerNorm(...)`: role ""), a class's bases that are names (`class
// Norm(FusedLayerNorm):`: "the base class "), in order.
struct NamedReference {
  python::Node name;
  std::string_view role;
};
std::vector<NamedReference> called_or_subclassed(python::Node call_or_class);

// The first component of a dotted name: "apex.amp" -> "apex".
std::string_view top_level(std::string_view dotted);

// The top-level packages of a table's column of dotted names ("apex", "nvidia", ...), sorted and
// unique: a name whose top level is none of them matches no row, which spares most lookups the
// scan of the table.
template <class Row, std::size_t N>
std::vector<std::string_view> top_level_packages(const Row (&table)[N], std::string_view Row::*column) {
  std::vector<std::string_view> out;
  for (const Row& row : table) out.push_back(top_level(row.*column));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}
inline bool in_packages(const std::vector<std::string_view>& packages, std::string_view dotted) {
  return std::binary_search(packages.begin(), packages.end(), top_level(dotted));
}

// The row of `table` whose `column` is `name` or a dotted prefix of it ("scipy" for
// "scipy.optimize.linear_sum_assignment"); the longest such prefix wins; null if none.
template <class Row, std::size_t N>
const Row* longest_module_row(const Row (&table)[N], std::string_view Row::*column, std::string_view name) {
  const Row* best = nullptr;
  for (const Row& row : table)
    if (python::has_module_prefix(name, row.*column) && (!best || (row.*column).size() > (best->*column).size()))
      best = &row;
  return best;
}


}  // namespace tpulint::checks::pyhelp
