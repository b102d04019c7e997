// A pull-request comment in Markdown: score (and its change against a compared report),
// verdict, effort, a table of the top blockers linking to `path#Lline`, details collapsed.
#pragma once

#include <ostream>

#include "core/scan.h"
#include "report/formats.h"

namespace tpulint::report {

void write_markdown(const ScanReport& report, const ReportOptions& options, std::ostream& out);

// Escapes text for a Markdown table cell (pipes, backticks, newlines, HTML).
std::string markdown_cell(std::string_view text);

}  // namespace tpulint::report
