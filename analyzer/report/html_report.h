// One self-contained HTML file that works offline: score gauge, sub-scores, effort by
// category, the migration plan, a sortable per-file table, and every finding with its code
// line and fix hint. No network fetch: the styles, the SVG and the script are inline.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "core/registry.h"
#include "core/scan.h"

namespace tpulint::report {

void write_html(const ScanReport& report, const Registry& registry, std::ostream& out);

// Text as HTML text or an attribute value: & < > " ' as entities, and controls shown as
// visible_text shows them (a bidirectional override would reorder the page's text too).
std::string html_escape(std::string_view text);

}  // namespace tpulint::report
