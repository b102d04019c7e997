// SARIF 2.1.0, as GitHub code scanning reads it: the rules from the registry, results with
// relative locations and partialFingerprints, the score and effort in the run's properties.
#pragma once

#include <ostream>

#include "core/registry.h"
#include "core/scan.h"
#include "report/formats.h"

namespace tpulint::report {

void write_sarif(const ScanReport& report, const Registry& registry, const ReportOptions& options, std::ostream& out);

// A relative path as a URI reference: '/' kept, everything but unreserved characters encoded.
std::string uri_encode_path(std::string_view path);

}  // namespace tpulint::report
