#include "report/markdown_report.h"
#include "report/formats.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "report/visible_text.h"

namespace tpulint::report {

namespace {

std::string_view severity_mark(Severity s) {
  switch (s) {
    case Severity::Error: return "🔴";
    case Severity::Warning: return "🟡";
    case Severity::Info: return "⚪";
  }
  return "";
}

// A path in a URL: every byte but unreserved characters and '/' percent-encoded, so that no
// character of it can end the link's destination or change what it points to.
std::string url_path(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '.' || c == '_' || c == '~' || c == '/';
    if (unreserved) out += char(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string link(const ReportOptions& o, std::string_view path, uint32_t line) {
  return fmt::format("[{}:{}]({}{}#L{})", markdown_text(path), line, o.link_base, url_path(path), line);
}

std::string hours(HoursRange h) { return fmt::format("{:g}–{:g} h", h.low, h.high); }

}  // namespace

std::string markdown_text(std::string_view text) {
  std::string out;
  for (char c : visible_text(text)) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      // What gives text a meaning in a line: emphasis, code, links and images, strikethrough,
      // table cells, GitHub's math, and the escape itself.
      case '\\': case '`': case '*': case '_': case '[': case ']': case '(': case ')':
      case '!': case '~': case '|': case '$':
        out += '\\';
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

void write_markdown(const ScanReport& report, const ReportOptions& options, std::ostream& out) {
  const ScoreSummary& s = report.score;
  size_t errors = 0, warnings = 0;
  for (const Finding& f : report.findings) {
    errors += f.severity == Severity::Error;
    warnings += f.severity == Severity::Warning;
  }
  std::string delta =
      options.previous_score
          ? fmt::format(" ({:+.1f} against {}: {:.1f})", s.score - *options.previous_score, options.previous_label,
                        *options.previous_score)
          : "";

  out << fmt::format("## tpulint: TPU readiness {:.1f}/100, `{}`\n\n", s.score, to_string(s.verdict));
  out << fmt::format("> {}\n\n", markdown_text(s.verdict_reason));
  out << "| | |\n|---|---|\n";
  out << fmt::format("| score | **{:.1f}** / 100{} |\n", s.score, delta);
  out << fmt::format("| verdict | `{}` |\n", to_string(s.verdict));
  out << fmt::format("| effort | {} |\n", effort_text(s, "–"));
  out << fmt::format("| findings | {} ({} error{}, {} warning{}) |\n", report.findings.size(), errors,
                     errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
  out << fmt::format("| files | {} analyzed, {} skipped |\n", report.analyzed, report.skipped.size());
  if (!report.unanalyzed.empty())
    out << fmt::format("| not analyzed | {} code file{} (first: {}: {}) |\n", report.unanalyzed.size(),
                       report.unanalyzed.size() == 1 ? "" : "s", markdown_text(report.unanalyzed.front().path),
                       markdown_text(report.unanalyzed.front().reason));
  for (const ScanReport::Hidden& h : report.hidden)
    out << fmt::format("| hidden | {} finding{} {} (still in the score) |\n", h.count, h.count == 1 ? "" : "s",
                       markdown_text(h.why));
  out << "\n";

  // The top blockers: the plan's first work items, in its order (most gained per hour first),
  // each shown by its first finding.
  constexpr size_t kTop = 10;
  if (!report.plan.empty()) {
    out << "### Top blockers\n\n| | work item | first finding | location | effort | score gain |\n"
           "|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < std::min(kTop, report.plan.size()); ++i) {
      const WorkItem& w = report.plan[i];
      out << fmt::format("| {} | {} | {} | {} | {}, {} | {} |\n", severity_mark(w.severity), markdown_text(w.subject),
                         markdown_text(w.first_message), link(options, w.first_path, w.first_line),
                         to_string(w.effort), hours(w.hours), gain_text(w.score_gain));
    }
    if (report.plan.size() > kTop) out << fmt::format("\n{} more work items in the plan below.\n", report.plan.size() - kTop);
    out << "\n";
  }

  if (!report.plan.empty()) {
    out << fmt::format("<details><summary>Migration plan: {} work items, cheapest big wins first</summary>\n\n",
                       report.plan.size());
    out << "| # | work item | checks | findings | effort | score gain |\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < report.plan.size(); ++i) {
      const WorkItem& w = report.plan[i];
      std::string checks;
      for (const std::string& id : w.check_ids) checks += (checks.empty() ? "`" : ", `") + id + "`";
      out << fmt::format("| {} | {} | {} | {} in {} file{} | {}, {} | {} |\n", i + 1,
                         markdown_text(w.parts.empty() ? w.subject : w.subject + " (with " + parts_summary(w) + ")"),
                         checks, w.findings, w.files, w.files == 1 ? "" : "s", to_string(w.effort), hours(w.hours),
                         gain_text(w.score_gain));
    }
    out << "\n</details>\n\n";
  }

  if (!s.categories.empty()) {
    out << "<details><summary>Sub-scores by category</summary>\n\n| category | score | findings | effort |\n"
           "|---|---|---|---|\n";
    for (const CategoryScore& c : s.categories)
      out << fmt::format("| {} | {:.1f} | {} | {} |\n", display_name(c.category), c.score, c.findings, hours(c.hours));
    out << "\n</details>\n\n";
  }

  if (!report.findings.empty()) {
    out << fmt::format("<details><summary>All findings ({})</summary>\n\n", report.findings.size());
    const InternedString* current = nullptr;
    for (const Finding& f : report.findings) {
      if (!current || *current != f.path) {
        out << fmt::format("{}**{}**\n\n", current ? "\n" : "", markdown_text(f.path));
        current = &f.path;
      }
      out << fmt::format("- {} {} `{}` {}{}\n", severity_mark(f.severity), link(options, f.path, f.start.line),
                         f.check_id, markdown_text(f.message),
                         f.hint.empty() ? "" : fmt::format(" — {}", markdown_text(f.hint)));
    }
    out << "\n</details>\n";
  }
}

}  // namespace tpulint::report
