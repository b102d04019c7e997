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
};

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
  std::string function;  // the enclosing function's name
};

// An #include directive of the file.
struct IncludeFact {
  std::string spelled;  // as written between the quotes or brackets
  bool angled = false;
  bool found = false;   // false: the header was missing and its contents skipped
  ByteSpan span;        // the directive's file name
};

struct NativeFile {
  Language language = Language::Cxx;
  std::vector<FunctionFact> functions;
  std::vector<LaunchFact> launches;
  std::vector<AsmFact> asm_statements;
  std::vector<CallFact> calls;
  std::vector<IncludeFact> includes;
  unsigned error_count = 0;        // Clang errors (many are expected without headers)
  bool used_compile_database = false;
};

}  // namespace tpulint::cxx
