// GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` annotation per finding,
// then a notice with the score and verdict.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "core/scan.h"

namespace tpulint::report {

void write_github(const ScanReport& report, std::ostream& out);

// Escaping of workflow command data: controls shown as visible_text shows them, so that no text
// ends the command or starts another (a CR or LF would), and '%' as %25; of property values:
// also ':' and ','.
std::string github_escape_data(std::string_view text);
std::string github_escape_property(std::string_view text);

}  // namespace tpulint::report
