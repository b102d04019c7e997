#include "report/formats.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <stdexcept>

#include "report/github_report.h"
#include "report/gitlab_report.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/markdown_report.h"
#include "report/sarif_report.h"
#include "report/text_report.h"

namespace tpulint::report {

std::string effort_text(const ScoreSummary& s, std::string_view dash) {
  std::string core = fmt::format("{:.1f}{}{:.1f} engineer-hours ({:.1f}{}{:.1f} engineer-days) in the core code",
                                 s.core_hours.low, dash, s.core_hours.high, s.core_hours.low / 8, dash,
                                 s.core_hours.high / 8);
  if (s.bring_up.high > 0)
    core += fmt::format(", {:g}{}{:g} of them to run it on a TPU and check its results against a GPU run",
                        s.bring_up.low, dash, s.bring_up.high);
  if (s.model_variants > 0)
    core += fmt::format(", the findings of {} model variants priced as alternatives (a port takes the models it "
                        "trains: none at the low bound, the costliest at the high)",
                        s.model_variants);
  if (s.hours.low == s.core_hours.low && s.hours.high == s.core_hours.high) return core;
  return fmt::format("{}; {:.1f}{}{:.1f} with tests, examples and benchmarks", core, s.hours.low, dash, s.hours.high);
}

std::string gain_text(double gain) {
  if (gain > 0 && gain < 0.05) return "+<0.1";
  return fmt::format("+{:.1f}", gain);
}

std::string link_base_error(std::string_view base) {
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const size_t scheme_end = base.find("://");
  const std::string scheme = scheme_end == std::string_view::npos ? "" : lower(base.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") return "expects an http:// or https:// URL";
  const std::string_view rest = base.substr(scheme_end + 3);
  if (rest.empty() || rest.front() == '/') return "expects a host after the scheme";
  for (unsigned char c : base) {
    if (c <= 0x20 || c >= 0x7F) return "expects a URL in ASCII without spaces or control characters (percent-encode others)";
    if (std::string_view("\"<>\\^`{|}").find(char(c)) != std::string_view::npos)
      return fmt::format("expects URL characters only; '{}' must be percent-encoded", char(c));
    if (c == '?' || c == '#') return "expects no query or fragment: the file's path and #Lline follow it";
  }
  return {};
}

std::string source_link(std::string_view base, std::string_view path, uint32_t line) {
  std::string out(base);
  if (!out.empty() && out.back() != '/') out += '/';
  for (unsigned char c : path) {
    bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) out += char(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out + fmt::format("#L{}", line);
}

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
  if (format == "html") return write_html(report, registry, options, out);
  if (format == "github") return write_github(report, out);
  if (format == "gitlab") return write_gitlab(report, out);
  throw std::invalid_argument("unknown report format '" + std::string(format) + "'");
}

}  // namespace tpulint::report
