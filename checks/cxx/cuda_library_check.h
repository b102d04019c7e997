// The TPU520 series: one check per CUDA library (checks/data/cuda_libraries.tsv), found by its
// headers (cuda_library_headers.tsv) and by its API.
//
// Per file, a library is reported once where it comes in (its first #include, or its first use
// when a project header brought it), carrying the library's hours; then each call of a C
// library's function (cublasSgemm, ncclAllReduce), with the small hours of replacing that call,
// as a runtime API call is. Template libraries (Thrust, CUB, CUTLASS/CuTe), whose API is as much
// types as calls, are reported once per file only. Every other line using the library (its types,
// constants, further #includes, in any preprocessor branch) is a line the port touches, counted in
// the library's work item, not a finding.
#pragma once

#include <string>
#include <string_view>

#include "checks/check_def.h"

namespace tpulint::checks {

// The cuda_library_headers.tsv library whose header `spelled` (as written in an #include) is, or "".
std::string_view cuda_header_library(std::string_view spelled);

// The `.heuristic` of every TPU520-series check.
inline constexpr std::string_view kCudaLibraryHeuristic =
    "Per file: the library once where it comes in (its first #include, else its first use), then each call of a "
    "function of its API (in any preprocessor branch); template libraries once per file. Every other line "
    "naming the library's API (types, constants, macros) is counted in the library's work item as a line "
    "the port touches, not reported. Headers and API names: checks/data/cuda_library_headers.tsv, cuda_libraries.tsv. A project function named like the library's API "
    "(a `cublas`-prefixed wrapper) counts as a use, which it usually is. "
    "A call written in the body of a macro the project defines (an error-check macro's `cudaGetErrorString`) is "
    "reported once, on the #define's line, and priced once for the project: the port changes the macro where it is "
    "defined, not where it is expanded.";

class CudaLibraryCheck final : public cxx::NativeCheck {
 public:
  explicit constexpr CudaLibraryCheck(std::string_view library) : library_(library) {}
  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override;

 private:
  std::string_view library_;  // the `library` key of cuda_libraries.tsv
};

}  // namespace tpulint::checks
