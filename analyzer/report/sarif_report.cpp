#include "report/sarif_report.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "core/fingerprint.h"
#include "core/version.h"
#include "report/check_docs.h"
#include "report/visible_text.h"

namespace tpulint::report {

namespace {

using nlohmann::ordered_json;

std::string_view level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "note";
  }
  return "none";
}

std::string rule_markdown(const CheckInfo& c) {
  std::string md = fmt::format("**{}**\n\n{}\n\n**Why it matters on a TPU.** {}\n\n**Use instead.** {}\n\n**Effort.** {}",
                               c.summary, c.doc.what, c.doc.why, c.doc.use_instead, c.doc.effort);
  if (!c.doc.example.empty()) md += fmt::format("\n\n**Example**\n\n```\n{}\n```", c.doc.example);
  if (!c.doc.heuristic.empty()) md += fmt::format("\n\n**How it decides.** {}", c.doc.heuristic);
  return md;
}

ordered_json rule_json(const CheckInfo& c) {
  std::string text = fmt::format("{}\n\nWhy: {}\n\nUse instead: {}\n\nEffort: {}", c.doc.what, c.doc.why,
                                 c.doc.use_instead, c.doc.effort);
  return {
      {"id", c.id},
      {"name", c.name},
      {"shortDescription", {{"text", c.summary}}},
      {"fullDescription", {{"text", c.doc.what}}},
      {"helpUri", check_doc_url(c.id)},
      {"help", {{"text", text}, {"markdown", rule_markdown(c)}}},
      {"defaultConfiguration", {{"level", level(c.severity)}}},
      {"properties",
       {{"tags", {"tpu-portability", to_string(c.category())}},
        {"precision", c.doc.heuristic.empty() ? "high" : "medium"},
        {"effort", to_string(c.effort)}}},
  };
}

// Most severe first, then most effort, then the report's own order: what to keep past the cap.
std::vector<const Finding*> by_importance(const std::vector<Finding>& findings) {
  std::vector<const Finding*> out;
  for (const Finding& f : findings) out.push_back(&f);
  std::stable_sort(out.begin(), out.end(), [](const Finding* a, const Finding* b) {
    if (a->severity != b->severity) return a->severity > b->severity;
    return a->effort > b->effort;
  });
  return out;
}

}  // namespace

std::string uri_encode_path(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/')
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

void write_sarif(const ScanReport& report, const Registry& registry, const ReportOptions& options, std::ostream& out) {
  // Fingerprints are taken over the whole report, so they do not depend on truncation.
  std::map<const Finding*, std::string> hashes;
  std::vector<std::string> prints = fingerprints(report.findings);
  for (size_t i = 0; i < report.findings.size(); ++i) hashes[&report.findings[i]] = prints[i];

  std::vector<const Finding*> kept = by_importance(report.findings);
  bool truncated = kept.size() > options.max_sarif_results;
  if (truncated) kept.resize(options.max_sarif_results);
  std::sort(kept.begin(), kept.end(), [](const Finding* a, const Finding* b) { return finding_less(*a, *b); });

  // The rules of the results only, in the catalogue's order: each carries its full help, and the
  // whole catalogue's would make a report of a few findings mostly help text.
  std::set<std::string_view> fired;
  for (const Finding* f : kept) fired.insert(f->check_id);
  ordered_json rules = ordered_json::array();
  std::map<std::string_view, size_t> rule_index;
  for (const CheckInfo* c : registry.all()) {
    if (!fired.count(c->id)) continue;
    rule_index[c->id] = rules.size();
    rules.push_back(rule_json(*c));
  }

  ordered_json results = ordered_json::array();
  for (const Finding* f : kept) {
    ordered_json region = {{"startLine", f->start.line}, {"startColumn", f->start.column},
                           {"endLine", f->end.line},     {"endColumn", std::max(f->end.column, f->start.column)}};
    if (!f->source_line.empty()) region["snippet"] = {{"text", f->source_line}};
    std::string message = f->hint.empty() ? f->message.str() : fmt::format("{} ({})", f->message, f->hint);
    ordered_json r = {
        {"ruleId", f->check_id},
        {"level", level(f->severity)},
        {"message", {{"text", message}}},
        {"locations",
         {{{"physicalLocation",
            {{"artifactLocation", {{"uri", uri_encode_path(f->path)}, {"uriBaseId", "%SRCROOT%"}}},
             {"region", region}}}}}},
        {"partialFingerprints", {{"primaryLocationLineHash", hashes[f]}}},
        {"properties",
         {{"category", to_string(f->category)},
          {"effort", to_string(f->effort)},
          {"hours_low", f->hours.low},
          {"hours_high", f->hours.high},
          {"subject", f->subject},
          {"context", to_string(f->context)},
          {"discounted", f->discounted}}},
    };
    if (f->cell.index)
      r["properties"]["cell"] = {{"index", f->cell.index},
                                 {"line", f->cell.start.line},
                                 {"column", f->cell.start.column},
                                 {"end_line", f->cell.end.line},
                                 {"end_column", f->cell.end.column}};
    if (auto it = rule_index.find(f->check_id); it != rule_index.end()) r["ruleIndex"] = it->second;
    results.push_back(std::move(r));
  }

  ordered_json invocation = {{"executionSuccessful", true}};
  if (truncated) {
    ordered_json note = {
        {"level", "warning"},
        {"message",
         {{"text", fmt::format("{} results, more than the {} kept: the most severe are reported; see the JSON "
                               "report for all of them",
                               report.findings.size(), options.max_sarif_results)}}}};
    invocation["toolExecutionNotifications"] = ordered_json::array({note});
  }
  const ScoreSummary& s = report.score;
  ordered_json run = {
      {"tool",
       {{"driver",
         {{"name", kToolName},
          {"version", kToolVersion},
          {"semanticVersion", kToolVersion},
          {"informationUri", kToolUrl},
          {"rules", rules}}}}},
      {"invocations", {invocation}},
      {"columnKind", "unicodeCodePoints"},
      {"results", results},
      {"properties",
       {{"score", s.score},
        {"verdict", to_string(s.verdict)},
        {"verdict_reason", s.verdict_reason},
        {"effort_hours_low", s.hours.low},
        {"effort_hours_high", s.hours.high},
        {"core_effort_hours_low", s.core_hours.low},
        {"core_effort_hours_high", s.core_hours.high},
        {"bring_up_hours_low", s.bring_up.low},
        {"bring_up_hours_high", s.bring_up.high},
        {"results_total", report.findings.size()},
        {"results_truncated", truncated}}},
  };
  // The lines each work item's port touches besides its results (a CUDA API's types, constants,
  // #includes): no result of their own, so a code-scanning view is not flooded, but listed.
  ordered_json touched = ordered_json::array();
  for (const WorkItem& w : report.plan) {
    if (w.touched.empty()) continue;
    ordered_json files = ordered_json::array();
    for (const WorkItem::TouchedFile& t : w.touched)
      files.push_back({{"artifactLocation", {{"uri", uri_encode_path(t.path)}, {"uriBaseId", "%SRCROOT%"}}},
                       {"lines", t.lines}});
    touched.push_back({{"subject", w.subject}, {"category", to_string(w.category)}, {"checks", w.check_ids},
                       {"touch_lines", w.touch_lines}, {"files", files}});
  }
  if (!touched.empty()) run["properties"]["touched_lines"] = std::move(touched);
  ordered_json doc = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"}, {"version", "2.1.0"}, {"runs", {run}}};
  out << json_with_escaped_controls(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) << "\n";
}

}  // namespace tpulint::report
