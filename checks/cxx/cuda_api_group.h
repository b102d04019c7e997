// The TPU430 series: one check per group of CUDA runtime/driver API identifiers
// (checks/data/cuda_runtime_api_groups.tsv), each call reported where it is made, and every other
// use of the group's names (types, constants, macros) counted as a line the port touches.
#pragma once

#include <algorithm>
#include <fmt/format.h>
#include <string_view>

#include "checks/check_def.h"
#include "checks/cxx/cuda_library_check.h"
#include "data/cuda_runtime_api_groups.h"

namespace tpulint::checks {

// The group of a CUDA runtime/driver identifier ("memory", ...), or "" if it is in none.
inline std::string_view cuda_api_group(std::string_view name) {
  if (name.starts_with("::")) name.remove_prefix(2);
  const auto& table = data::kCudaRuntimeApiGroups;
  auto it = std::lower_bound(std::begin(table), std::end(table), name,
                             [](const data::CudaRuntimeApiGroupsRow& r, std::string_view n) { return r.name < n; });
  return it != std::end(table) && it->name == name ? it->group : std::string_view();
}

// The `.heuristic` of every TPU430-series check.
inline constexpr std::string_view kCudaApiGroupHeuristic =
    "Calls are matched by name against checks/data/cuda_runtime_api_groups.tsv (the CUDA runtime and driver API "
    "identifiers, grouped by module), whether Clang resolved them or not: without headers they are undeclared. Calls "
    "in inactive preprocessor branches (`#if CUDA_VERSION >= 12000`) are found in the tokens. Any other use of a name "
    "of the group (a type such as `cudaStream_t`, a constant such as `cudaMemcpyHostToDevice`, in any branch or macro) "
    "is no finding: its line is counted in the group's work item as a line the port touches. A project function with "
    "a CUDA API's exact name would be reported too; member functions (`obj.cudaMalloc(...)`) are not. "
    "A call written in the body of a macro the project defines (an error-check macro's `cudaGetErrorString`) is "
    "reported once, on the #define's line, and priced once for the project: the port changes the macro where it is "
    "defined, not where it is expanded.";

class CudaApiGroupCheck final : public cxx::NativeCheck {
 public:
  // `what`: how the message names the group ("CUDA memory API"), also the subject of its touch
  // lines' work item; `hint`: the TPU-side replacement; `headers_of`: the cuda_library_headers.tsv
  // library whose #include lines the group touches ("" for none).
  constexpr CudaApiGroupCheck(std::string_view group, std::string_view what, std::string_view hint,
                              std::string_view headers_of = {})
      : group_(group), what_(what), hint_(hint), headers_of_(headers_of) {}

  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::CallFact& call : facts.calls) {
      if (cuda_api_group(call.callee) != group_) continue;
      Finding& f = report(ctx, call.span, call.callee);
      // A macro's body is changed once where it is defined: its expansions share one price.
      f.priced_once = call.in_macro_body;
    }
    for (const cxx::NameUseFact& name : facts.names) {
      if (cuda_api_group(name.name) != group_) continue;
      for (const cxx::NameUseFact::Use& use : name.uses) {
        const ByteSpan at{use.offset, use.offset + uint32_t(name.name.size())};
        // Clang never saw a call in a skipped branch: the tokens are all there is of it.
        if (use.called && use.inactive)
          report(ctx, at, name.name);
        else
          ctx.touch(at, what_);
      }
    }
    if (!headers_of_.empty())
      for (const cxx::IncludeFact& inc : facts.includes)
        if (cuda_header_library(inc.spelled) == headers_of_) ctx.touch(inc.span, what_);
  }

 private:
  Finding& report(cxx::NativeContext& ctx, ByteSpan at, std::string_view callee) const {
    return ctx.report(at, fmt::format("{} call '{}' has no TPU equivalent", what_, callee), std::string(hint_), callee);
  }

  std::string_view group_, what_, hint_, headers_of_;
};

}  // namespace tpulint::checks
