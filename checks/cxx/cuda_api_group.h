// The TPU430 series: one check per group of CUDA runtime/driver API functions
// (checks/data/cuda_runtime_api_groups.tsv), each call reported where it is made.
#pragma once

#include <algorithm>
#include <fmt/format.h>
#include <string_view>

#include "checks/check_def.h"
#include "data/cuda_runtime_api_groups.h"

namespace tpulint::checks {

// The group of a CUDA runtime/driver function ("memory", ...), or "" if it is in none.
inline std::string_view cuda_api_group(std::string_view callee) {
  if (callee.starts_with("::")) callee.remove_prefix(2);
  const auto& table = data::kCudaRuntimeApiGroups;
  auto it = std::lower_bound(std::begin(table), std::end(table), callee,
                             [](const data::CudaRuntimeApiGroupsRow& r, std::string_view n) { return r.name < n; });
  return it != std::end(table) && it->name == callee ? it->group : std::string_view();
}

// The `.heuristic` of every TPU430-series check.
inline constexpr std::string_view kCudaApiGroupHeuristic =
    "Calls are matched by name against checks/data/cuda_runtime_api_groups.tsv (the CUDA runtime and driver API "
    "names, grouped by module), whether Clang resolved them or not: without headers they are undeclared. A project "
    "function with a CUDA API's exact name would be reported too; member functions (`obj.cudaMalloc(...)`) are not.";

class CudaApiGroupCheck final : public cxx::NativeCheck {
 public:
  // `what`: how the message names the group ("CUDA memory API"); `hint`: the TPU-side replacement.
  constexpr CudaApiGroupCheck(std::string_view group, std::string_view what, std::string_view hint)
      : group_(group), what_(what), hint_(hint) {}

  void check(const cxx::NativeFile& facts, cxx::NativeContext& ctx) const override {
    for (const cxx::CallFact& call : facts.calls)
      if (cuda_api_group(call.callee) == group_)
        ctx.report(call.span, fmt::format("{} call '{}' has no TPU equivalent", what_, call.callee),
                   std::string(hint_), call.callee);
  }

 private:
  std::string_view group_, what_, hint_;
};

}  // namespace tpulint::checks
