// CheckInfo: what a check is, independent of how it matches. The registry, the docs, the
// reports and the score read it; only the check's own file writes it.
#pragma once

#include <string_view>
#include <vector>

#include "core/types.h"

namespace tpulint {

// The user docs of a check, rendered into docs/checks/<ID>.md and by `tpulint explain`.
struct CheckDoc {
  std::string_view what;         // what it finds
  std::string_view why;          // why it blocks or slows a TPU
  std::string_view example;      // code that triggers it
  std::string_view use_instead;  // the TPU-side way (code or prose)
  std::string_view effort;       // why the effort class and hours are what they are
  std::string_view heuristic;    // how it decides, where it can be wrong (empty if it cannot)
  std::vector<std::string_view> references;
};

struct CheckInfo {
  std::string_view id;       // "TPU201": never changes meaning, never reused
  std::string_view name;     // kebab-case, e.g. "torch-dynamic-shape-op"
  std::string_view summary;  // one line for the catalogue table
  LanguageSet languages = 0;
  Framework framework = Framework::Any;  // the framework whose code it is about (see --target)
  Severity severity = Severity::Warning;
  EffortClass effort = EffortClass::Low;
  HoursRange hours;          // per finding, before any per-finding scaling
  // What it finds matters only where the accelerator runs the code every step (a dynamic shape,
  // an op with no lowering, a host sync): in host-side, one-time and evaluation code its
  // findings are discounted (discounts_finding).
  bool device_code_only = false;
  // What it finds is a blocker only where the accelerator runs the code every step, and ordinary
  // code anywhere else (a SciPy call): outside the hot path and training loops it is not reported.
  bool hot_path_only = false;
  // What it finds is a problem only where each iteration of a loop runs on the device apart (a
  // sampling loop that runs the model once per token, a training loop): in the hot path a loop is
  // unrolled into the one graph a step traces, the same on every step, so it is not reported there.
  bool outside_hot_path_only = false;
  CheckDoc doc;

  Category category() const;  // from the ID's leading digit
};

// Whether a finding of `check` in code of context `c` blocks nothing: guarded code (a branch
// with another path, an optional GPU library with a fallback), and, for a check about device
// code only, host-side, one-time and evaluation code. Such a finding is info and weighs nothing.
inline bool discounts_finding(Context c, const CheckInfo& check) {
  if (c == Context::Guarded) return true;
  return check.device_code_only && (c == Context::Host || c == Context::OneTime || c == Context::Eval);
}

}  // namespace tpulint
