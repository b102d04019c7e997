#include "checks/kernel_class.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <map>
#include <set>

namespace tpulint::checks::kernels {

namespace {

// An elementwise kernel is a global index, a bounds check and computed stores (a kernel that
// stores nothing itself hands its work to something else, such as a functor). The bounds leave
// room for hand-unrolled vector code, dropout's RNG, a bias add with a [b,s,h,d] -> [b,h,s,d]
// transpose (DeepSpeed's 37- to 48-line kernels), and leave out the kernels that compute
// something per thread in many steps; loops are what tells those, and they are excluded apart.
constexpr uint32_t kTrivialMaxLines = 80;
constexpr uint32_t kTrivialMaxStatements = 40;

// The table's patterns without their underscores: what a run of words must spell.
std::string joined(std::string_view pattern) {
  std::string out;
  for (char c : pattern)
    if (c != '_') out += c;
  return out;
}

template <typename F>
void for_each_word(std::string_view words, F f) {
  while (!words.empty()) {
    size_t space = words.find(' ');
    if (space != 0) f(words.substr(0, space));
    if (space == std::string_view::npos) break;
    words.remove_prefix(space + 1);
  }
}

// The row of `column` with the longest pattern matching one of `candidates` (word lists), and
// that pattern's length; ties go to the row first in the table.
std::pair<const StandardOp*, size_t> best_row(const std::vector<std::vector<std::string>>& candidates,
                                              std::string_view StandardOp::*column) {
  const StandardOp* best = nullptr;
  size_t best_length = 0;
  for (const StandardOp& row : data::kStandardKernels)
    for_each_word(row.*column, [&](std::string_view pattern) {
      size_t length = joined(pattern).size();
      if (length <= best_length) return;
      for (const auto& words : candidates)
        if (matches(words, pattern)) {
          best = &row;
          best_length = length;
          return;
        }
    });
  return {best, best_length};
}

std::string_view unqualified(std::string_view name) {
  size_t colons = name.rfind("::");
  return colons == std::string_view::npos ? name : name.substr(colons + 2);
}

bool plain_code(const cxx::FunctionFact& f) {
  return !f.metrics.any() && f.shape.inline_assembly == 0 && f.shape.library_templates == 0 &&
         f.shape.container_calls == 0;
}

KernelShape shape_of(const cxx::FunctionFact& f) {
  const cxx::BodyShape& s = f.shape;
  KernelShape k;
  k.lines = f.lines;
  k.statements = s.statements;
  k.stores = s.assignments;
  uint32_t bounded = s.grid_stride_loops + s.fixed_loops;
  k.open_loops = (s.loops > bounded ? s.loops - bounded : 0) + (s.grid_stride_loops > 1 ? 1 : 0);
  k.matmul = f.metrics.tensor_core > 0;
  k.block_level = !plain_code(f);
  return k;
}

// A device helper an elementwise kernel may call: arithmetic, no loop but constant-count ones.
bool simple_helper(const cxx::FunctionFact& f) {
  return plain_code(f) && f.shape.loops == f.shape.fixed_loops && f.lines <= kTrivialMaxLines;
}

// The file's device functions by name (overloads share one), and whom each function calls.
struct CallGraph {
  std::map<std::string_view, std::vector<size_t>> device_functions;
  std::map<std::string_view, std::set<std::string_view>> callees;  // function name -> callee names
};

CallGraph call_graph(const cxx::NativeFile& facts) {
  CallGraph g;
  for (size_t i = 0; i < facts.functions.size(); ++i) {
    const cxx::FunctionFact& f = facts.functions[i];
    if (f.is_device && !f.is_kernel) g.device_functions[f.name].push_back(i);
  }
  for (const cxx::CallFact& c : facts.calls) {
    std::string_view callee = unqualified(c.callee);
    if (!c.function.empty() && g.device_functions.count(callee)) g.callees[c.function].insert(callee);
  }
  return g;
}

// The device functions a function reaches through calls, by name.
std::set<std::string_view> reached(const CallGraph& g, std::string_view from) {
  std::set<std::string_view> seen;
  std::vector<std::string_view> todo = {from};
  while (!todo.empty()) {
    std::string_view f = todo.back();
    todo.pop_back();
    auto it = g.callees.find(f);
    if (it == g.callees.end()) continue;
    for (std::string_view callee : it->second)
      if (seen.insert(callee).second) todo.push_back(callee);
  }
  return seen;
}

// Operations of a data structure defined elsewhere (a GPU hash table's `table.insert(k, v)`,
// `map.find(k)`): probing and atomics the kernel's own tokens do not show.
bool data_structure_call(std::string_view callee) {
  for (std::string_view op : {"insert", "find", "lookup", "emplace", "push", "push_back", "pop", "erase"})
    if (callee == op) return true;
  return false;
}

bool elementwise(const cxx::FunctionFact& kernel, const cxx::NativeFile& facts, const CallGraph& g) {
  // A kernel source compiled at run time is a template: the code it runs (its helpers, the
  // placeholders' substitutions) is assembled then, not written where the scan can see it.
  if (kernel.runtime_compiled || !trivial_shape(shape_of(kernel))) return false;
  for (const cxx::CallFact& c : facts.calls)
    if (c.function == kernel.name && data_structure_call(unqualified(c.callee))) return false;
  for (std::string_view helper : reached(g, kernel.name))
    for (size_t i : g.device_functions.at(helper))
      if (!simple_helper(facts.functions[i])) return false;
  return true;
}

}  // namespace

bool trivial_shape(const KernelShape& s) {
  return !s.matmul && !s.block_level && s.open_loops == 0 && s.stores > 0 && s.lines <= kTrivialMaxLines &&
         s.statements <= kTrivialMaxStatements;
}

HoursRange novel_kernel_hours(uint32_t lines) {
  if (lines <= 30) return {16, 40};
  if (lines <= 100) return {24, 64};
  return {40, 120};
}

HoursRange trivial_hours(uint32_t lines) {
  if (lines <= 10) return {0.5, 1.5};
  if (lines <= 25) return {1, 2};
  return {1, 3};
}

bool matches(std::span<const std::string> words, std::string_view pattern) {
  std::string want = joined(pattern);
  for (size_t start = 0; start < words.size(); ++start) {
    std::string run;
    for (size_t i = start; i < words.size() && run.size() < want.size(); ++i) {
      run += words[i];
      if (!std::string_view(want).starts_with(run)) break;
      if (run == want) return true;
    }
  }
  return false;
}

namespace {

// A row of kind "novel" names what is no standard op: its match keeps a shorter standard pattern off.
const StandardOp* standard_or_trivial(const StandardOp* row) { return row && row->kind == "novel" ? nullptr : row; }

}  // namespace

const StandardOp* op_named(std::string_view name) {
  if (name.empty()) return nullptr;
  return standard_or_trivial(best_row({identifier_words(name)}, &StandardOp::names).first);
}

const StandardOp* op_of_file(std::string_view path) {
  // The directories and the file's name without its extension, each in words.
  std::vector<std::vector<std::string>> parts;
  size_t begin = 0;
  for (size_t slash; (slash = path.find('/', begin)) != std::string_view::npos; begin = slash + 1)
    parts.push_back(identifier_words(path.substr(begin, slash - begin)));
  std::string_view name = path.substr(begin);
  parts.push_back(identifier_words(name.substr(0, name.rfind('.'))));
  return standard_or_trivial(best_row(parts, &StandardOp::files).first);
}

const StandardOp* op_registered(std::string_view type) {
  if (type.empty()) return nullptr;
  for (const StandardOp& row : data::kStandardKernels) {
    std::string_view names = row.registry;
    while (!names.empty()) {
      size_t space = names.find(' ');
      if (names.substr(0, space) == type) return &row;
      names = space == std::string_view::npos ? std::string_view() : names.substr(space + 1);
    }
  }
  return nullptr;
}

HoursRange row_hours(const StandardOp& op) { return parse_hours_range(op.hours).value_or(HoursRange{}); }

EffortClass effort_of(Kind kind) {
  switch (kind) {
    case Kind::Trivial: return EffortClass::Low;
    case Kind::Standard: return EffortClass::Medium;
    case Kind::Novel: return EffortClass::None;
  }
  return EffortClass::None;
}

Classification from_row(const StandardOp& op, size_t kernels) {
  HoursRange h = row_hours(op);
  double share = 1.0 / double(std::max<size_t>(kernels, 1));
  return {op.kind == "trivial" ? Kind::Trivial : Kind::Standard, &op, {h.low * share, h.high * share}};
}

std::vector<Classification> classify_native(const cxx::NativeFile& facts, std::string_view path) {
  const size_t n = facts.functions.size();
  std::vector<Classification> out(n);
  const CallGraph graph = call_graph(facts);
  const StandardOp* file_op = op_of_file(path);

  // Kernels: by name, by shape, by file. Then the table's hours are shared among the kernels of
  // each op in the file.
  std::vector<const StandardOp*> kernel_op(n, nullptr);
  std::map<const StandardOp*, size_t> kernels_of;
  for (size_t i = 0; i < n; ++i) {
    const cxx::FunctionFact& f = facts.functions[i];
    if (!f.is_kernel) continue;
    const StandardOp* named = op_named(f.name);
    if (named && named->kind == "trivial" && f.metrics.tensor_core) named = nullptr;  // a GEMM, not an activation
    if (named) {
      kernel_op[i] = named;
    } else if (elementwise(f, facts, graph)) {
      out[i] = {Kind::Trivial, nullptr, trivial_hours(f.lines)};
      continue;
    } else if (!(file_op && file_op->kind == "trivial" && f.metrics.tensor_core)) {
      kernel_op[i] = file_op;
    }
    if (kernel_op[i]) ++kernels_of[kernel_op[i]];
  }
  for (size_t i = 0; i < n; ++i)
    if (kernel_op[i]) out[i] = from_row(*kernel_op[i], kernels_of[kernel_op[i]]);

  // Device functions: as the kernels of the file that reach them (novel when one of them is).
  std::map<std::string_view, std::vector<size_t>> callers;  // device function -> kernels reaching it
  for (size_t i = 0; i < n; ++i)
    if (facts.functions[i].is_kernel)
      for (std::string_view helper : reached(graph, facts.functions[i].name)) callers[helper].push_back(i);
  // Those no kernel of the file calls, by name and file; when no kernel of the file carries
  // their op, they carry its hours (functors of a kernel defined elsewhere, as apex's
  // multi_tensor_apply runs them).
  std::vector<const StandardOp*> helper_op(n, nullptr);
  std::map<const StandardOp*, size_t> helpers_of;
  for (size_t i = 0; i < n; ++i) {
    const cxx::FunctionFact& f = facts.functions[i];
    if (!f.is_device || f.is_kernel || callers.count(f.name)) continue;
    helper_op[i] = op_named(f.name);
    // A trivial op's helper in a standard op's file (flash attention's `apply_dropout`) is part of that op.
    if (!helper_op[i] || (helper_op[i]->kind == "trivial" && file_op && file_op->kind == "standard"))
      helper_op[i] = file_op;
    if (helper_op[i] && !kernels_of.count(helper_op[i])) ++helpers_of[helper_op[i]];
  }
  for (size_t i = 0; i < n; ++i) {
    const cxx::FunctionFact& f = facts.functions[i];
    if (!f.is_device || f.is_kernel) continue;
    if (const StandardOp* op = helper_op[i]) {
      auto carriers = helpers_of.find(op);
      out[i] = from_row(*op, carriers == helpers_of.end() ? 1 : carriers->second);
      if (carriers == helpers_of.end()) out[i].hours = {};  // a kernel of the file carries them
      continue;
    }
    if (auto it = callers.find(f.name); it != callers.end()) {
      Classification joined{Kind::Trivial, nullptr, {}, true};
      for (size_t k : it->second) {
        const Classification& c = out[k];
        if (c.kind == Kind::Novel || (c.kind == Kind::Standard && joined.kind == Kind::Trivial))
          joined = {c.kind, c.op, {}, true};
        if (c.kind == Kind::Novel) break;
      }
      out[i] = joined;
    }
  }
  return out;
}

Classification classify_named(std::string_view name, std::string_view path) {
  const StandardOp* op = op_named(name);
  if (!op) op = op_of_file(path);
  return op ? from_row(*op) : Classification{};
}

Classification classify_shaped(std::string_view name, std::string_view path, const KernelShape& shape) {
  auto usable = [&](const StandardOp* op) { return op && !(op->kind == "trivial" && shape.matmul) ? op : nullptr; };
  if (const StandardOp* op = usable(op_named(name))) return from_row(*op);
  // A Python file is usually one op: a `_backward` kernel in softmax.py is part of the softmax.
  const StandardOp* file_op = usable(op_of_file(path));
  if (file_op && file_op->kind == "standard") return from_row(*file_op);
  if (trivial_shape(shape)) return {Kind::Trivial, nullptr, trivial_hours(shape.lines)};
  if (file_op) return from_row(*file_op);
  return {};
}

std::string verdict(const Classification& c) {
  if (c.kind == Kind::Novel) return "";
  if (!c.op) return "is elementwise: tensor ops express it and XLA fuses them";
  if (c.kind == Kind::Trivial) return fmt::format("is {}, elementwise: use {}", c.op->title, c.op->use);
  return fmt::format("is the standard op {}, which has a TPU replacement: use {}", c.op->title, c.op->use);
}

std::string hint(const Classification& c) {
  if (c.kind == Kind::Novel) return "";
  if (!c.op) return "write it as tensor ops (PyTorch on the XLA device, or jax.numpy): XLA fuses elementwise code";
  return fmt::format("use {}", c.op->replacement);
}

std::string ops_doc(std::string_view kind) {
  std::string out;
  for (const StandardOp& row : data::kStandardKernels)
    if (row.kind == kind)
      out += fmt::format("{}{}{}", out.empty() ? "" : ", ", row.title,
                         row.hours.empty() ? "" : fmt::format(" ({} h)", row.hours));
  return out;
}

std::string trivial_rule_doc() {
  return fmt::format(
      "at most {} lines and {} statements, no shared memory, warp intrinsics, atomics, tensor-core code, cooperative "
      "groups, dynamic parallelism, inline assembly, CUB/CUTLASS/CuTe code or data-structure operations "
      "(`table.insert(k, v)`, `.find(`, `.lookup(`), no loop but one grid-stride loop "
      "(`i += blockDim.x * gridDim.x`, `CUDA_1D_KERNEL_LOOP`, `for (int i : tv::KernelLoopX<int>(n))`) and loops "
      "with a constant trip count (`i < 4`, `i < kVec`) or under `#pragma unroll`, at least one store, and only "
      "loop-free helpers of its file; 0.5-1.5 h up to 10 lines, 1-2 h up to 25, 1-3 h beyond",
      kTrivialMaxLines, kTrivialMaxStatements);
}

std::string_view subject(const Classification& c, std::string_view name) { return c.op ? c.op->op : name; }

const StandardOp* op_row(std::string_view op) {
  for (const StandardOp& row : data::kStandardKernels)
    if (row.op == op) return &row;
  return nullptr;
}

void apply_standard_op_use(Finding& f, const StandardOp& op, std::string_view name) {
  apply(f, from_row(op), name);
  f.priced_once = true;
  f.standard_op_use = true;
}

void apply(Finding& f, const Classification& c, std::string_view name) {
  if (c.kind == Kind::Novel) return;
  f.effort = effort_of(c.kind);
  f.hours = c.hours;
  f.subject = subject(c, name);
  f.hint = hint(c);
}

}  // namespace tpulint::checks::kernels
