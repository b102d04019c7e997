#include "report/github_report.h"
#include "report/formats.h"

#include <fmt/format.h>

#include "report/visible_text.h"

namespace tpulint::report {

std::string github_escape_data(std::string_view text) {
  std::string out;
  for (char c : visible_text(text)) {
    if (c == '%') out += "%25";
    else out += c;
  }
  return out;
}

std::string github_escape_property(std::string_view text) {
  std::string out;
  for (char c : github_escape_data(text)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

namespace {
std::string_view command(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "notice";
  }
  return "notice";
}
}  // namespace

void write_github(const ScanReport& report, std::ostream& out) {
  for (const Finding& f : report.findings) {
    // The hint on a line of its own: %0A is the one line break a command's data may hold.
    std::string message = github_escape_data(f.message);
    if (!f.hint.empty()) message += "%0A" + github_escape_data(f.hint);
    out << fmt::format("::{} file={},line={},col={},endLine={},endColumn={},title={}::{}\n", command(f.severity),
                       github_escape_property(f.path), f.start.line, f.start.column, f.end.line,
                       std::max(f.end.column, f.start.column),
                       github_escape_property(fmt::format("{} {}", f.check_id, f.check_name)), message);
  }
  const ScoreSummary& s = report.score;
  out << fmt::format("::notice title={}::{}\n", github_escape_property("tpulint"),
                     github_escape_data(fmt::format("TPU readiness {:.1f}/100, {}: {}. Effort {}.", s.score,
                                                    to_string(s.verdict), s.verdict_reason, effort_text(s))));
}

}  // namespace tpulint::report
