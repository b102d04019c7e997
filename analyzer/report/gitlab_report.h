// GitLab code quality report (a JSON array of issues), for the `codequality` artifact of a
// merge request: description, check_name, fingerprint, severity, location.path/lines.begin.
#pragma once

#include <ostream>

#include "core/scan.h"

namespace tpulint::report {

void write_gitlab(const ScanReport& report, std::ostream& out);

}  // namespace tpulint::report
