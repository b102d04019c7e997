#include "report/gitlab_report.h"

#include <nlohmann/json.hpp>

#include "core/fingerprint.h"
#include "report/visible_text.h"

namespace tpulint::report {

namespace {
// GitLab's scale: info, minor, major, critical, blocker.
std::string_view gitlab_severity(const Finding& f) {
  switch (f.severity) {
    case Severity::Error: return f.effort == EffortClass::High ? "critical" : "major";
    case Severity::Warning: return "minor";
    case Severity::Info: return "info";
  }
  return "info";
}
}  // namespace

void write_gitlab(const ScanReport& report, std::ostream& out) {
  std::vector<std::string> prints = fingerprints(report.findings);
  nlohmann::ordered_json issues = nlohmann::ordered_json::array();
  for (size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    issues.push_back({
        {"description", f.hint.empty() ? f.message.str() : f.message.str() + " (" + f.hint.str() + ")"},
        {"check_name", f.check_id + " " + f.check_name.str()},
        {"fingerprint", prints[i]},
        {"severity", gitlab_severity(f)},
        {"location", {{"path", f.path.view()}, {"lines", {{"begin", f.start.line}}}}},
    });
  }
  out << json_with_escaped_controls(issues.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) << "\n";
}

}  // namespace tpulint::report
