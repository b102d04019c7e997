// A pull-request comment in Markdown: score (and its change against a compared report),
// verdict, effort, a table of the top blockers linking to `path#Lline`, details collapsed.
// It fits in ReportOptions::max_markdown_bytes (GitHub's comment limit): a longer one keeps the
// summary and top blockers, as much of the plan (in its order) and then of the findings as fits,
// and ends in a note counting what was left out.
#pragma once

#include <ostream>

#include "core/scan.h"
#include "report/formats.h"

namespace tpulint::report {

void write_markdown(const ScanReport& report, const ReportOptions& options, std::ostream& out);

// Text from a scanned repository as literal Markdown text, in a table cell or anywhere in a line:
// controls shown as visible_text shows them (so no line break either), '<' '>' '&' as HTML
// entities, and a backslash before each character that could start an inline construct (\ ` *
// _ [ ] ( ) ! ~ | $). What starts a block (#, -, >, a digit) cannot: such text never starts a line.
std::string markdown_text(std::string_view text);

}  // namespace tpulint::report
