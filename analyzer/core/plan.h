// The migration plan: findings grouped into work items (one per kernel or extension, per
// library, per op or repeated pattern), each with its effort and the score it recovers, the
// cheapest big wins first.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/finding.h"
#include "core/score.h"

namespace tpulint {

struct WorkItem {
  std::string subject;                 // the kernel, library, op or pattern; the check's name if none
  Category category = Category::AnalyzerNote;
  std::vector<std::string> check_ids;  // sorted, unique
  EffortClass effort = EffortClass::None;  // the highest among its findings
  size_t findings = 0;
  size_t files = 0;
  HoursRange hours;
  double score_gain = 0;  // points the score rises when every finding of the item is fixed
  std::string first_location;  // "path:line" of its first finding
};

// Groups findings by (category, subject): a kernel's definition and its launches are one item,
// each library is one item, each op or pattern is one item. Findings without a subject group
// by check. Ordered by score gained per engineer-hour, then by gain, then by subject.
std::vector<WorkItem> plan_work(std::span<const Finding> findings, const PathWeights& weights);

}  // namespace tpulint
