// Shared by the TPU130 series (PyTorch extension glue): which macro uses register what.
#pragma once

#include <string>
#include <string_view>

#include "cxx/native_facts.h"

namespace tpulint::checks::extension_glue {

// TORCH_LIBRARY_IMPL(ns, KEY, m): the dispatch key, or "" for another macro.
inline std::string_view dispatch_key(const cxx::MacroUseFact& m) {
  if (m.name != "TORCH_LIBRARY_IMPL" || m.arguments.size() < 2) return {};
  return m.arguments[1];
}

// CUDA, AutogradCUDA, SparseCUDA, QuantizedCUDA, NestedTensorCUDA... (AutocastCUDA only wraps
// the op in a cast and is not a kernel).
inline bool is_cuda_key(std::string_view key) { return key.ends_with("CUDA") && !key.starts_with("Autocast"); }
inline bool is_cpu_key(std::string_view key) { return key.ends_with("CPU") && !key.starts_with("Autocast"); }

// The first string-literal argument without its quotes ("roi_align_forward"), or "".
inline std::string string_argument(const cxx::MacroUseFact& m) {
  for (const std::string& a : m.arguments)
    if (a.size() >= 2 && a.front() == '"' && a.back() == '"') return a.substr(1, a.size() - 2);
  return {};
}

}  // namespace tpulint::checks::extension_glue
