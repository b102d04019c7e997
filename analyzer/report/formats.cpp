#include "report/formats.h"

#include <algorithm>
#include <stdexcept>

#include "report/github_report.h"
#include "report/gitlab_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/sarif_report.h"
#include "report/text_report.h"

namespace tpulint::report {

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> names = {"text", "json", "sarif", "markdown", "html", "github", "gitlab"};
  return names;
}

bool is_format(std::string_view name) {
  const auto& n = format_names();
  return std::find(n.begin(), n.end(), name) != n.end();
}

void write_report(std::string_view format, const ScanReport& report, const Registry& registry,
                  const ReportOptions& options, std::ostream& out) {
  if (format == "text") return write_text(report, out, options);
  if (format == "json") return write_json(report, out);
  if (format == "sarif") return write_sarif(report, registry, options, out);
  if (format == "markdown") return write_markdown(report, options, out);
  if (format == "html") return write_html(report, registry, out);
  if (format == "github") return write_github(report, out);
  if (format == "gitlab") return write_gitlab(report, out);
  throw std::invalid_argument("unknown report format '" + std::string(format) + "'");
}

}  // namespace tpulint::report
