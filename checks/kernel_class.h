// What a GPU kernel is, for every check that reports one (TPU101 CUDA kernels, TPU104 device
// functions, TPU111 Triton kernels, TPU113 CuPy/Numba/PyCUDA kernels): trivial, a standard op
// with a known TPU replacement, or novel. A kernel finding's effort class says which, and
// nothing else does: Low = trivial, Medium = standard op (its message names the replacement),
// High = novel, a rewrite.
//
// Standard ops come from the table checks/data/standard_kernels.tsv, matched on names: the
// kernel's own, else its file's. Trivial kernels come from the kernel's shape (cxx::BodyShape):
// short, no shared memory, warp intrinsics, atomics or tensor cores, no loop but a grid-stride
// one. The kernel's own name is the strongest evidence, so it is asked first; then the shape
// (a one-line cast kernel beside an optimizer is a cast, not the optimizer); then the file.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"
#include "core/identifier_words.h"
#include "cxx/native_facts.h"
#include "data/standard_kernels.h"

namespace tpulint::checks::kernels {

using StandardOp = data::StandardKernelsRow;

enum class Kind : uint8_t { Trivial, Standard, Novel };

struct Classification {
  Kind kind = Kind::Novel;
  const StandardOp* op = nullptr;  // the table's row, when the table decided (standard or trivial rows)
  HoursRange hours;                // for Trivial and Standard; a novel kernel keeps its check's own hours
  bool by_callers = false;         // a device function classified as the kernels of its file that call it
};

// What the trivial rule asks of a kernel's body, whatever its language: CUDA's from the tokens
// (cxx::BodyShape, DeviceCodeMetrics), Triton's, CuTe's and Numba's from the Python syntax tree.
struct KernelShape {
  uint32_t lines = 0;
  uint32_t statements = 0;
  uint32_t stores = 0;           // assignments, tl.store, element writes: what the kernel writes
  uint32_t open_loops = 0;       // loops sized by the data that carry work across iterations (a tile loop
                                 // accumulating, a search); not grid-stride, constant-count or unrolled loops
  bool matmul = false;           // tl.dot, cute.gemm, MMA/WMMA, tensor-core PTX
  bool block_level = false;      // shared memory, warp intrinsics, atomics, block barriers, cooperative groups,
                                 // dynamic parallelism, inline assembly, CUB/CUTLASS/CuTe templates, scans and sorts
};

// The trivial rule, one for every kernel language: no matmul, nothing block-level, no open loop,
// at least one store, and at most kTrivialMaxLines lines and kTrivialMaxStatements statements:
// an elementwise map, a copy, fill, pad or transpose that tensor ops express and XLA fuses.
bool trivial_shape(const KernelShape& s);
HoursRange trivial_hours(uint32_t lines);
// A novel thread-level kernel's rewrite (CUDA C, Numba, CuTe, a CUDA C source string), by its
// length: 16-40 h up to 30 lines, 24-64 h up to 100, 40-120 h beyond (TPU101 scales it by features).
HoursRange novel_kernel_hours(uint32_t lines);

using tpulint::identifier_words;

// Whether `pattern` (snake_case, from the table) equals a run of consecutive `words` joined.
bool matches(std::span<const std::string> words, std::string_view pattern);

// The row whose `names` pattern matches the identifier, the longest pattern winning; or null.
const StandardOp* op_named(std::string_view name);
// The row whose `files` pattern matches the file's name (without extension) or one of its
// directories, the longest pattern winning; or null. `path` is relative to the scan root.
const StandardOp* op_of_file(std::string_view path);

// The row whose `registry` column lists `type`, a name an OpenMMLab config chooses an op by
// (`dict(type='DCNv2')`): compared whole and case-sensitively, as the registry looks it up; or null.
const StandardOp* op_registered(std::string_view type);
// The row whose `op` key is `op`, or null.
const StandardOp* op_row(std::string_view op);

HoursRange row_hours(const StandardOp& op);  // "4-12" -> {4, 12}
EffortClass effort_of(Kind kind);            // Low, Medium; None for Novel (the check decides)

// A table row's classification with its hours shared by the `kernels` kernels of that op in one
// file: the swap is one piece of work however the op is split into kernels.
Classification from_row(const StandardOp& op, size_t kernels = 1);

// Every function of a C/C++/CUDA file, in the order of facts.functions: kernels by name, shape
// and file; device functions as the kernels of the file that call them (hours 0: they go with
// those kernels), else by name and file, else Novel. Other functions are Novel.
std::vector<Classification> classify_native(const cxx::NativeFile& facts, std::string_view path);

// A kernel known by its name only (Triton, CuPy, Numba, PyCUDA): Standard or Trivial when the
// table knows its name or its file, else Novel.
Classification classify_named(std::string_view name, std::string_view path);
// A kernel known by its name and its shape (Triton, CuTe, Numba, TileLang): the name's row, then
// the file's standard row (a Python module is usually one op's kernels), then the shape
// (trivial_shape), then the file's trivial row; a trivial row never takes a kernel that does
// matmuls (a `swiglu` kernel with two tl.dot is an MLP, not an activation).
Classification classify_shaped(std::string_view name, std::string_view path, const KernelShape& shape);

// What a finding says about a classified kernel, after "<what> '<name>' (<size>)": "is
// elementwise: tensor ops express it" or "is the standard op ROI align: use gather-based ROI
// align"; "" for Novel. And its fix hint; "" for Novel.
std::string verdict(const Classification& c);
std::string hint(const Classification& c);
// The work item a classified kernel joins: its op's key when the table decided, else `name`.
std::string_view subject(const Classification& c, std::string_view name);

// For the checks' docs, from the table: "NMS, non-maximum suppression (batched) 4-12 h, ..." for
// the rows of `kind` ("standard", "trivial" or "novel"); and the rule that makes a kernel trivial.
std::string ops_doc(std::string_view kind);
std::string trivial_rule_doc();

// Sets a kernel finding's effort, hours, subject and hint from its classification (a Novel one
// is left as the check made it).
void apply(Finding& f, const Classification& c, std::string_view name);
// Makes `f` a use of the standard op `op` whose kernel a library holds (a registered op a config
// chooses, a library call): priced as the op's swap (apply), once for the project
// (Finding::priced_once), and weighed in the verdict as the op's kernel (Finding::standard_op_use).
void apply_standard_op_use(Finding& f, const StandardOp& op, std::string_view name);

}  // namespace tpulint::checks::kernels
