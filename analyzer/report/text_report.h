// The terminal report: findings grouped by file, each with its source line and a caret under
// the span, then a summary (files, counts by category, score, effort, verdict).
#pragma once

#include <ostream>

#include "core/scan.h"

namespace tpulint::report {

struct TextOptions {
  bool color = false;
};

void write_text(const ScanReport& report, std::ostream& out, const TextOptions& options);

}  // namespace tpulint::report
