// The terminal report: findings grouped by file, each with its source line and a caret under
// the span, then a summary (files, counts by category, score, sub-scores, effort, verdict and
// the top work items); optionally counts per check and the score's derivation, and optionally
// the summary alone (--summary: a large tree's findings are thousands of lines before it).
#pragma once

#include <ostream>

#include "core/scan.h"
#include "report/formats.h"

namespace tpulint::report {

void write_text(const ScanReport& report, std::ostream& out, const ReportOptions& options);

}  // namespace tpulint::report
