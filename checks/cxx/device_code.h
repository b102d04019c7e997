// What TPU101 (kernels) and TPU104 (device functions) say about a function's device code, and
// how its features scale the hours of its rewrite.
#pragma once

#include <string>
#include <vector>

#include "core/types.h"
#include "cxx/native_facts.h"

namespace tpulint::checks::device_code {

// "shared memory, warp intrinsics, atomics": the features a rewrite has to replace, in the
// order of DeviceCodeMetrics; empty if none.
inline std::string features(const cxx::DeviceCodeMetrics& m) {
  std::vector<const char*> names;
  if (m.shared_memory) names.push_back("shared memory");
  if (m.warp_intrinsics) names.push_back("warp intrinsics");
  if (m.atomics) names.push_back("atomics");
  if (m.tensor_core) names.push_back("tensor-core MMA");
  if (m.cooperative_groups) names.push_back("cooperative groups");
  if (m.device_launches) names.push_back("dynamic parallelism");
  std::string out;
  for (const char* n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// "(42 lines, templated; shared memory, atomics)"
inline std::string description(const cxx::FunctionFact& f) {
  std::string out = "(";
  out += std::to_string(f.lines);
  out += f.lines == 1 ? " line" : " lines";
  if (f.is_template) out += ", templated";
  if (f.runtime_compiled) out += ", compiled at run time from a string";
  if (std::string used = features(f.metrics); !used.empty()) out += "; " + used;
  return out + ")";
}

// Each feature is one more thing to redesign and validate on the TPU side: +25% per feature
// class (and for a template, whose instantiations all need testing), +50% for tensor-core code,
// whose tiling has to be redone for the TPU's matrix units. At most x3.
inline double scale(const cxx::FunctionFact& f) {
  const cxx::DeviceCodeMetrics& m = f.metrics;
  int quarters = (f.is_template ? 1 : 0) + (m.shared_memory ? 1 : 0) + (m.warp_intrinsics ? 1 : 0) +
                 (m.atomics ? 1 : 0) + (m.cooperative_groups ? 1 : 0) + (m.device_launches ? 1 : 0) +
                 (m.tensor_core ? 2 : 0);
  return 1.0 + 0.25 * quarters;
}

inline HoursRange scaled(HoursRange base, const cxx::FunctionFact& f) {
  double k = scale(f);
  return {base.low * k, base.high * k};
}

}  // namespace tpulint::checks::device_code
