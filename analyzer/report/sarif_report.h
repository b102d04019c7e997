// SARIF 2.1.0, as GitHub code scanning reads it: the rules from the registry, results with
// relative locations and partialFingerprints, the score and effort in the run's properties.
#pragma once

#include <ostream>

#include "core/registry.h"
#include "core/scan.h"
#include "report/formats.h"

namespace tpulint::report {

void write_sarif(const ScanReport& report, const Registry& registry, const ReportOptions& options, std::ostream& out);

// The stable part of a finding's identity that GitHub uses to follow it across commits: a
// hash of the check, the path and the normalized source line, plus ":n" for its n-th
// occurrence in the file. Line numbers are not part of it, so moving code keeps it.
std::string line_hash(const Finding& f, int occurrence);

// A relative path as a URI reference: '/' kept, everything but unreserved characters encoded.
std::string uri_encode_path(std::string_view path);

}  // namespace tpulint::report
