// One self-contained HTML file that works offline and scales to thousands of findings: the
// summary and the migration plan first, then the findings grouped by work item or by file in
// collapsible sections, with a search box and filters by check, category, severity, context and
// path whose counts follow the filters (docs/ci.md, "The HTML report"). No network fetch: the
// styles, the SVG and the script are inline, and a Content-Security-Policy lets only them run.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "core/registry.h"
#include "core/scan.h"
#include "report/formats.h"

namespace tpulint::report {

// With `options.link_base`, each location links to its file's line there (source_link).
void write_html(const ScanReport& report, const Registry& registry, const ReportOptions& options, std::ostream& out);

// Text as HTML text or an attribute value: & < > " ' as entities, and controls shown as
// visible_text shows them (a bidirectional override would reorder the page's text too).
std::string html_escape(std::string_view text);

}  // namespace tpulint::report
