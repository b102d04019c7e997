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
  CheckDoc doc;

  Category category() const;  // from the ID's leading digit
};

}  // namespace tpulint
