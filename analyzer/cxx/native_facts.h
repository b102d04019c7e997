// NativeFile: what the C/C++/CUDA frontend learned about one file, as plain data.
//
// The Clang frontend walks each translation unit once and records these facts; C/C++/CUDA
// checks read them and never see a Clang type. That keeps the checks quick to compile and
// to test, and keeps Clang's headers in one translation unit.
// Only code of the file itself is recorded (not of the headers it includes): a project
// header is analyzed as a file of its own.
#pragma once

#include <string>
#include <vector>

#include "core/types.h"

namespace tpulint::cxx {

// What a __global__ or __device__ function does that a TPU rewrite must replace, counted in the
// tokens of its definition (inactive #if branches included: `#if __CUDA_ARCH__ >= 800` code is
// part of what has to be ported).
struct DeviceCodeMetrics {
  uint32_t shared_memory = 0;       // `__shared__` declarations
  uint32_t warp_intrinsics = 0;     // __shfl_*_sync, __ballot_sync, __any/__all_sync, __syncwarp, __activemask, __match_*
  uint32_t atomics = 0;             // atomicAdd, atomicCAS, atomicMax_block, ...
  uint32_t tensor_core = 0;         // wmma/mma_sync fragments, `mma.`/`wgmma`/`ldmatrix` PTX
  uint32_t cooperative_groups = 0;  // cooperative_groups::, this_grid(), tiled_partition, ...
  uint32_t device_launches = 0;     // `<<<` inside device code: dynamic parallelism

  bool any() const {
    return shared_memory || warp_intrinsics || atomics || tensor_core || cooperative_groups || device_launches;
  }
};

// How a kernel's or device function's body is built, counted in its tokens like its metrics: what
// tells an elementwise map (a guarded statement over a global index, maybe in a grid-stride
// loop) from code with real structure.
struct BodyShape {
  uint32_t loops = 0;              // for, while, do, and loop macros such as CUDA_1D_KERNEL_LOOP
  uint32_t grid_stride_loops = 0;  // of those, loops stepping by the grid or block: `i += blockDim.x * gridDim.x`,
                                   // loop macros and range-for grid iterators (`for (int i : tv::KernelLoopX<int>(n))`)
  uint32_t fixed_loops = 0;        // of the others, `for` loops with a constant trip count (`i < 4`, `i < kVec`,
                                   // `i < N_DIMS`) or under `#pragma unroll`: vector lanes, not data-sized work
  uint32_t statements = 0;         // ';' outside for-loop headers
  uint32_t assignments = 0;        // '=', '+=', ... outside for-loop headers: what the code writes
  uint32_t inline_assembly = 0;    // asm / __asm__ statements
  uint32_t container_calls = 0;    // `table.insert(`, `map->find(`, `.lookup(`, `.push_back(`: a data structure's
                                   // operations (a GPU hash table's probing and atomics live in its own header)
  uint32_t library_templates = 0;  // names under cub::, cutlass::, cute::, nvcuda::: a library's block-level algorithm
};

// A function definition.
struct FunctionFact {
  std::string name;            // as declared, e.g. "roi_align_forward_kernel"
  std::string qualified_name;  // with namespaces and classes, e.g. "ops::roi_align_forward_kernel"
  ByteSpan span;               // the whole definition
  ByteSpan name_span;          // the name at the definition
  bool is_kernel = false;      // __global__
  bool is_device = false;      // __device__ (possibly also __host__)
  bool is_host = false;        // __host__ written explicitly
  bool is_template = false;
  uint32_t lines = 0;          // lines of the definition, first to last
  DeviceCodeMetrics metrics;   // kernels and device functions only
  BodyShape shape;             // kernels and device functions only
  bool lexical = false;        // found in the tokens only: Clang lost it (e.g. after a fatal error)
  // Written in a string literal: a kernel source compiled at run time (NVRTC, jitify), its name
  // maybe a format placeholder (`{KERNEL_NAME}`). Always lexical.
  bool runtime_compiled = false;
};

// The innermost (shortest) of `functions` whose definition holds `span`, or nullptr.
inline const FunctionFact* innermost_function(const std::vector<FunctionFact>& functions, ByteSpan span) {
  const FunctionFact* best = nullptr;
  for (const FunctionFact& f : functions)
    if (f.span.begin <= span.begin && span.end <= f.span.end &&
        (!best || f.span.end - f.span.begin < best->span.end - best->span.begin))
      best = &f;
  return best;
}

// A CUDA kernel launch with the triple-chevron syntax.
struct LaunchFact {
  std::string kernel;  // the launched function's name ("" if it could not be resolved)
  ByteSpan span;       // the whole launch expression
};

// An inline assembly statement (GCC-style `asm`/`asm volatile`, or MS-style `__asm`).
struct AsmFact {
  ByteSpan span;
  std::string text;            // the assembly template
  bool is_volatile = false;
  bool in_device_code = false; // inside a __global__ or __device__ function
  std::string function;        // the enclosing function's name
};

// A call to a named function, declared or not (header-free parses leave many undeclared).
struct CallFact {
  std::string callee;  // as resolved or written, qualified when known: "cudaMalloc", "at::cuda::getCurrentCUDAStream"
  ByteSpan span;       // the callee name
  std::string function;  // the enclosing function's name (none in a file read as host code: see NativeFile::functions)
  std::string first_argument;  // the first argument: the name it refers to (casts stripped), else its text
  // Written in a macro's body (`CHECK_CUDA(x)` expanding to `cudaGetErrorString(x)`): one change where
  // the macro is defined, whatever number of places expand it. A macro of the scanned tree has its
  // calls recorded once, on its #define (spans there); one defined outside the tree (the built-in
  // declarations, a system header) at each expansion (span: the expansion's).
  bool in_macro_body = false;
};

// A use of an upper-case function-like name, as written in the file's tokens whether or not it
// is a macro Clang knows: `TORCH_LIBRARY_IMPL(ns, CUDA, m)`, `AT_DISPATCH_FLOATING_TYPES(...)`.
// Recorded lexically because header-free parses do not have these macros' definitions.
struct MacroUseFact {
  std::string name;
  std::vector<std::string> arguments;  // the top-level arguments' text, trimmed (at most the first 4)
  ByteSpan span;                       // the name
};

// A qualified name as written in the tokens: `thrust::sort`, `cutlass::gemm::device::Gemm`,
// `c10::cuda::CUDAGuard`. Template-library and namespace APIs are often types, not calls.
struct QualifiedNameFact {
  std::string name;  // the components joined by "::", template arguments left out
  ByteSpan span;     // first component to last
  bool inactive = false;  // in a preprocessor branch the parse skipped
};

// An #include directive of the file.
struct IncludeFact {
  std::string spelled;  // as written between the quotes or brackets
  bool angled = false;
  bool found = false;   // false: the header was missing and its contents skipped
  ByteSpan span;        // the directive's file name
  bool inactive = false;  // in a branch the preprocessor skipped (found in the tokens only)
  std::string resolved;   // the included file's path beneath the scan root, when it is there
};

// Every use of one identifier in the file's tokens, in every preprocessor branch and directive
// (`#define CHECK(e) if ((e) != cudaSuccess)`): what a lexicon of API names is matched against,
// types, constants and macros as well as functions. Calls in active code are CallFacts too;
// a use's `called` says only that a '(' follows it.
struct NameUseFact {
  struct Use {
    uint32_t offset = 0;
    bool called = false;    // followed by '('
    bool scope = false;     // followed by '::' (a namespace or class: `cub::DeviceScan`)
    bool inactive = false;  // in a branch the preprocessor skipped
  };
  std::string name;
  std::vector<Use> uses;  // in file order
};

struct NativeFile {
  Language language = Language::Cxx;
  // The file's function definitions. A file read in its tokens as host code (no device code:
  // ClangFrontendOptions::read_host_files_in_tokens) lists none: what needs a function (a kernel, a
  // device function, a launch site's host function, inline assembly) is in files that are parsed.
  std::vector<FunctionFact> functions;
  std::vector<LaunchFact> launches;
  std::vector<AsmFact> asm_statements;
  std::vector<CallFact> calls;
  std::vector<IncludeFact> includes;
  std::vector<MacroUseFact> macro_uses;
  std::vector<QualifiedNameFact> qualified_names;
  std::vector<NameUseFact> names;  // sorted by name
  // When every top-level declaration of the file explicitly specializes or instantiates a
  // template defined elsewhere (`template<> void run_<half, 128>(P& p) { run_hdim128<half>(p); }`,
  // `template void f<float>(float*);`), the templates it reaches, in order, without repeats;
  // empty for any other file. Such a file is generated to spread one template's compilation over
  // many files: its code is the template's.
  std::vector<std::string> instantiated_templates;
  unsigned error_count = 0;        // Clang errors (many are expected without headers)
  // Clang's first fatal error, which stops its parse ("bracket nesting level exceeded maximum
  // of 256"); empty if none. Kernels and launches after it come from the lexical pass only.
  std::string fatal_error;
  ByteSpan fatal_error_at;
  bool used_compile_database = false;
  // Clang's parse ran past the time budget (ClangFrontendOptions::time_budget) and was stopped:
  // every fact above comes from the lexical passes alone.
  bool over_budget = false;
  // The standard headers the file includes were loaded precompiled (ClangFrontendOptions): how it
  // was parsed, which changes no fact above.
  bool precompiled_standard_headers = false;
  // Its opening #include lines were loaded precompiled (a preamble met before), which also
  // changes no fact.
  bool precompiled_preamble = false;
  // It was parsed with other headers, in one translation unit (ClangFrontend::parse_together):
  // how it was parsed, which changes no fact either.
  bool parsed_together = false;
};

}  // namespace tpulint::cxx
