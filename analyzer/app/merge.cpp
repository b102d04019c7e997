#include "app/merge.h"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>

#include "app/settings.h"
#include "core/version.h"
#include "report/json_report.h"

namespace tpulint::app {

namespace {

using nlohmann::json;

template <typename T>
T parsed(const std::optional<T>& v, const std::string& input, std::string_view what) {
  if (!v) throw UsageError(fmt::format("merge: '{}' has an unknown {}", input, what));
  return *v;
}

Finding finding_from(const json& j, const std::string& input) {
  Finding f;
  f.check_id = j.at("id");
  f.check_name = j.at("name");
  f.category = parsed(category_from_string(j.at("category").get<std::string>()), input, "category");
  f.severity = parsed(severity_from_string(j.at("severity").get<std::string>()), input, "severity");
  f.effort = parsed(effort_from_string(j.at("effort").at("class").get<std::string>()), input, "effort class");
  f.hours = {j.at("effort").at("hours_low").get<double>(), j.at("effort").at("hours_high").get<double>()};
  f.path = j.at("path");
  f.start = {j.at("line").get<uint32_t>(), j.at("column").get<uint32_t>()};
  f.end = {j.at("end_line").get<uint32_t>(), j.at("end_column").get<uint32_t>()};
  if (auto cell = j.find("cell"); cell != j.end())
    f.cell = {cell->at("index").get<uint32_t>(),
              {cell->at("line").get<uint32_t>(), cell->at("column").get<uint32_t>()},
              {cell->at("end_line").get<uint32_t>(), cell->at("end_column").get<uint32_t>()}};
  f.message = j.at("message");
  f.hint = j.at("hint");
  f.subject = j.at("subject");
  f.source_line = j.at("source_line");
  f.related_paths = j.at("related_paths").get<std::vector<std::string>>();
  f.code_lines = j.at("code_lines");
  f.context = parsed(context_from_string(j.at("context").get<std::string>()), input, "context");
  f.discounted = j.at("discounted").get<bool>();
  const json& effort = j.at("effort");
  f.priced_once = effort.at("priced_once").get<bool>();
  f.standard_op_use = effort.at("standard_op_use").get<bool>();
  f.model_variant = effort.at("model_variant").get<bool>();
  return f;
}

PathWeights weights_from(const json& scoring) {
  PathWeights w;
  w.auxiliary = scoring.at("auxiliary_weight").get<double>();
  for (const json& r : scoring.at("path_weights")) w.rules.emplace_back(r.at("glob"), r.at("weight").get<double>());
  return w;
}

}  // namespace

ScanReport merge_reports(const std::vector<std::pair<std::string, json>>& inputs) {
  if (inputs.empty()) throw UsageError("merge: no reports given");
  std::vector<FileResult> files;
  std::set<std::string> seen_paths;
  std::optional<json> scoring;
  for (const auto& [input, doc] : inputs) {
    try {
      if (doc.at("schema_version") != report::kJsonSchemaVersion || doc.at("tool").at("name") != kToolName)
        throw UsageError(fmt::format("merge: '{}' is not a tpulint JSON report (schema version {})", input,
                                     report::kJsonSchemaVersion));
      if (doc.at("tool").at("version") != kToolVersion)
        throw UsageError(fmt::format("merge: '{}' was made by tpulint {}, not {}", input,
                                     doc.at("tool").at("version").get<std::string>(), kToolVersion));
      for (const json& h : doc.at("hidden_findings"))
        if (h.at("count").get<size_t>() > 0)
          throw UsageError(fmt::format("merge: '{}' hides findings ({}): scan the shards without --baseline or "
                                       "--diff, and give --baseline to merge",
                                       input, h.at("reason").get<std::string>()));
      if (!scoring)
        scoring = doc.at("scoring");
      else if (*scoring != doc.at("scoring"))
        throw UsageError(fmt::format("merge: '{}' was scored with other path weights than the first report", input));

      std::map<std::string, std::vector<std::string>> missing;
      for (const json& m : doc.at("files").at("missing_headers"))
        missing[m.at("path")] = m.at("headers").get<std::vector<std::string>>();
      // A work item's touch lines, back to the files that hold them (the item's first check stands
      // for all: the report does not keep which of its checks touched a line).
      std::map<std::string, std::vector<TouchLine>> touches;
      for (const json& item : doc.at("work_items")) {
        const Category category = parsed(category_from_string(item.at("category").get<std::string>()), input, "category");
        const std::string check = item.at("checks").empty() ? "" : item.at("checks").front().get<std::string>();
        for (const json& t : item.at("touched"))
          for (const json& line : t.at("lines"))
            touches[t.at("path")].push_back({check, category, item.at("subject"), line.get<uint32_t>()});
      }
      std::map<std::string, std::vector<Finding>> findings;
      for (const json& f : doc.at("findings")) {
        Finding finding = finding_from(f, input);
        findings[finding.path.str()].push_back(std::move(finding));
      }
      for (const json& r : doc.at("files").at("results")) {
        FileResult fr;
        fr.path = r.at("path");
        if (!seen_paths.insert(fr.path).second)
          throw UsageError(fmt::format("merge: '{}' is in more than one report (the shards overlap)", fr.path));
        fr.language = parsed(language_from_string(r.at("language").get<std::string>()), input, "language");
        fr.analyzed = r.at("analyzed");
        fr.code_lines = r.at("code_lines");
        if (!fr.analyzed) fr.skip_reason = r.at("skip_reason");
        if (r.contains("includes")) fr.project_includes = r.at("includes").get<std::vector<std::string>>();
        fr.findings = std::move(findings[fr.path]);
        fr.missing_headers = std::move(missing[fr.path]);
        fr.touches = std::move(touches[fr.path]);
        std::sort(fr.touches.begin(), fr.touches.end());
        files.push_back(std::move(fr));
      }
    } catch (const json::exception& e) {
      throw UsageError(fmt::format("merge: '{}' is not a tpulint JSON report ({})", input, e.what()));
    }
  }
  PathWeights weights = weights_from(*scoring);
  return build_report(Discovery{}, std::move(files), [](std::string_view) { return true; }, weights);
}

}  // namespace tpulint::app
