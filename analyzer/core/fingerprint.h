// Finding fingerprints that survive code moving: a hash of the check, the finding's subject
// (the entity found), the path and the flagged line's code (line_code: no comment, no
// whitespace), plus ":n" for the n-th finding with the same hash in the file. No line numbers:
// inserting lines above or moving a function keeps a finding's fingerprint, and so do a comment
// added to its line and a check's message reworded; changing the code of the line gives it a
// new one. SARIF's partialFingerprints, GitLab's fingerprint and baselines all use them.
#pragma once

#include <functional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace tpulint {

struct ScanReport;

// The fingerprint of every finding, in the same order; occurrences count in that order, so
// pass findings in report order (sorted by finding_less).
std::vector<std::string> fingerprints(std::span<const Finding> findings);

// Removes from the report's findings (not from its score or plan, which stay the whole
// tree's) those `keep` rejects, and records how many were hidden and why.
void hide_findings(ScanReport& report, const std::function<bool(const Finding&, const std::string& fingerprint)>& keep,
                   std::string_view why);

}  // namespace tpulint
