#include "core/plan.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace tpulint {

std::vector<WorkItem> plan_work(std::span<const Finding> findings, const PathWeights& weights) {
  PenaltyModel model(weights);
  std::map<std::pair<Category, std::string>, std::vector<const Finding*>> groups;
  for (const Finding& f : findings) {
    if (f.category == Category::AnalyzerNote) continue;
    model.add(f);
    groups[{f.category, f.subject.empty() ? f.check_name : f.subject}].push_back(&f);
  }
  const double penalty = model.penalty();
  const double score = std::exp(-penalty / ScoringConstants::kScale);

  std::vector<WorkItem> items;
  for (const auto& [key, list] : groups) {
    WorkItem item;
    item.category = key.first;
    item.subject = key.second;
    std::set<std::string> ids, paths;
    for (const Finding* f : list) {
      ids.insert(f->check_id);
      paths.insert(f->path);
      item.effort = std::max(item.effort, f->effort);
      item.hours.low += f->hours.low;
      item.hours.high += f->hours.high;
    }
    item.check_ids.assign(ids.begin(), ids.end());
    item.findings = list.size();
    item.files = paths.size();
    item.first_location = fmt::format("{}:{}", list.front()->path, list.front()->start.line);
    double without = std::exp(-model.penalty_without(list) / ScoringConstants::kScale);
    item.score_gain = std::round(1000 * (without - score)) / 10;
    items.push_back(std::move(item));
  }
  auto rate = [](const WorkItem& w) { return w.score_gain / std::max(w.hours.high, 0.1); };
  std::sort(items.begin(), items.end(), [&](const WorkItem& a, const WorkItem& b) {
    if (rate(a) != rate(b)) return rate(a) > rate(b);
    if (a.score_gain != b.score_gain) return a.score_gain > b.score_gain;
    return a.subject < b.subject;
  });
  return items;
}

}  // namespace tpulint
