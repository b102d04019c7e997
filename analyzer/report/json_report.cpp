#include "report/json_report.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/version.h"

namespace tpulint::report {

namespace {

using nlohmann::ordered_json;

// Two decimals: enough for hours and scores, and free of binary noise (0.35, not 0.35000000000000003).
double round2(double x) { return std::round(x * 100) / 100; }

ordered_json hours_json(HoursRange h) {
  return {{"hours_low", round2(h.low)}, {"hours_high", round2(h.high)}};
}

}  // namespace

void write_json(const ScanReport& report, std::ostream& out) {
  const ScoreSummary& s = report.score;
  ordered_json doc;
  doc["schema_version"] = kJsonSchemaVersion;
  doc["tool"] = {{"name", kToolName}, {"version", kToolVersion}};
  doc["score"] = round2(s.score);
  doc["verdict"] = to_string(s.verdict);
  doc["verdict_reason"] = s.verdict_reason;
  ordered_json effort = hours_json(s.hours);
  effort["days_low"] = round2(s.hours.low / 8);
  effort["days_high"] = round2(s.hours.high / 8);
  doc["effort"] = effort;
  ordered_json categories = ordered_json::array();
  for (const CategoryScore& c : s.categories) {
    ordered_json j = {{"category", to_string(c.category)}, {"score", round2(c.score)}, {"findings", c.findings}};
    j.update(hours_json(c.hours));
    categories.push_back(j);
  }
  doc["categories"] = categories;
  ordered_json rules = ordered_json::array();
  for (const auto& [glob, w] : report.path_weights.rules) rules.push_back({{"glob", glob}, {"weight", w}});
  doc["scoring"] = {{"auxiliary_weight", report.path_weights.auxiliary}, {"path_weights", rules}};
  ordered_json findings = ordered_json::array();
  for (const Finding& f : report.findings) {
    ordered_json effort_j = {{"class", to_string(f.effort)}};
    effort_j.update(hours_json(f.hours));
    findings.push_back({
        {"id", f.check_id},
        {"name", f.check_name},
        {"category", to_string(f.category)},
        {"severity", to_string(f.severity)},
        {"path", f.path},
        {"line", f.start.line},
        {"column", f.start.column},
        {"end_line", f.end.line},
        {"end_column", f.end.column},
        {"message", f.message},
        {"hint", f.hint},
        {"subject", f.subject},
        {"source_line", f.source_line},
        {"related_paths", f.related_paths},
        {"effort", effort_j},
    });
  }
  doc["findings"] = findings;
  ordered_json items = ordered_json::array();
  for (const WorkItem& w : report.plan) {
    ordered_json j = {{"subject", w.subject},      {"category", to_string(w.category)},
                      {"checks", w.check_ids},     {"effort", to_string(w.effort)},
                      {"findings", w.findings},    {"files", w.files},
                      {"score_gain", round2(w.score_gain)}, {"first_location", w.first_location},
                      {"parts", w.parts}};
    j.update(hours_json(w.hours));
    items.push_back(j);
  }
  doc["work_items"] = items;
  ordered_json hidden = ordered_json::array();
  for (const ScanReport::Hidden& h : report.hidden) hidden.push_back({{"reason", h.why}, {"count", h.count}});
  doc["hidden_findings"] = hidden;
  ordered_json skipped = ordered_json::array();
  for (const SkippedFile& sk : report.skipped) skipped.push_back({{"path", sk.path}, {"reason", sk.reason}});
  ordered_json missing = ordered_json::array();
  ordered_json results = ordered_json::array();
  for (const FileResult& f : report.files) {
    if (!f.missing_headers.empty()) missing.push_back({{"path", f.path}, {"headers", f.missing_headers}});
    HoursRange hours;
    for (const Finding& x : f.findings) {
      hours.low += x.hours.low;
      hours.high += x.hours.high;
    }
    ordered_json r = {{"path", f.path},
                      {"language", to_string(f.language)},
                      {"analyzed", f.analyzed},
                      {"findings", f.findings.size()}};
    r.update(hours_json(hours));
    if (!f.analyzed) r["skip_reason"] = f.skip_reason;
    results.push_back(r);
  }
  doc["files"] = {{"analyzed", report.analyzed}, {"skipped", skipped}, {"missing_headers", missing}, {"results", results}};
  // Invalid UTF-8 in a C++ comment or path must not abort the report: replace it.
  out << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace tpulint::report
