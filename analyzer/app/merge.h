// `tpulint merge`: puts the JSON reports of `scan --shard K/N` runs back together into the
// report one unsharded scan would give (same findings, score, verdict and plan), so that a
// monorepo can fan out over a CI matrix.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scan.h"

namespace tpulint::app {

// Throws UsageError naming the input when a report is not a tpulint JSON report of this
// schema version, was made with a different tool version or scoring, hides findings
// (--baseline/--diff belong to the merge, not the shards), or overlaps another shard.
ScanReport merge_reports(const std::vector<std::pair<std::string, nlohmann::json>>& inputs);

}  // namespace tpulint::app
