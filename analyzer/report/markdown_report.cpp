#include "report/markdown_report.h"
#include "report/formats.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <string>
#include <vector>

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

// `location` (location_text) linked to its file's line. A link base may hold parentheses, which
// would end the destination: escaped as CommonMark allows (the path's are percent-encoded).
std::string link(const ReportOptions& o, std::string_view location, std::string_view path, uint32_t line) {
  std::string url;
  for (char c : source_link(o.link_base, path, line)) {
    if (c == '(' || c == ')') url += '\\';
    url += c;
  }
  return fmt::format("[{}]({})", markdown_text(location), url);
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

namespace {

// The report's parts, each line of the long lists apart, so that they can be cut to a size.
struct Parts {
  std::string head;                     // title, summary table, top blockers
  std::string plan_open, plan_close;
  std::vector<std::string> plan_rows;   // one per work item, in the plan's order
  std::string categories;               // sub-scores
  std::string findings_open, findings_close;
  std::vector<std::string> finding_lines;  // a file's first finding's line starts with its name
};

Parts render(const ScanReport& report, const ReportOptions& options) {
  Parts p;
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

  std::string& out = p.head;
  out += fmt::format("## tpulint: TPU readiness {:.1f}/100, `{}`\n\n", s.score, to_string(s.verdict));
  out += fmt::format("> {}\n\n", markdown_text(s.verdict_reason));
  out += "| | |\n|---|---|\n";
  out += fmt::format("| score | **{:.1f}** / 100{} |\n", s.score, delta);
  out += fmt::format("| verdict | `{}` |\n", to_string(s.verdict));
  out += fmt::format("| effort | {} |\n", effort_text(s, "–"));
  out += fmt::format("| findings | {} ({} error{}, {} warning{}) |\n", report.findings.size(), errors,
                     errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
  out += fmt::format("| files | {} analyzed, {} skipped |\n", report.analyzed, report.skipped.size());
  if (!report.unanalyzed.empty())
    out += fmt::format("| not analyzed | {} code file{} (first: {}: {}) |\n", report.unanalyzed.size(),
                       report.unanalyzed.size() == 1 ? "" : "s", markdown_text(report.unanalyzed.front().path),
                       markdown_text(report.unanalyzed.front().reason));
  for (const ScanReport::Hidden& h : report.hidden)
    out += fmt::format("| hidden | {} finding{} {} (still in the score) |\n", h.count, h.count == 1 ? "" : "s",
                       markdown_text(h.why));
  out += "\n";

  // The top blockers: the plan's first work items, in its order (most gained per hour first),
  // each shown by its first finding.
  constexpr size_t kTop = 10;
  if (!report.plan.empty()) {
    out += "### Top blockers\n\n| | work item | first finding | location | effort | score gain |\n"
           "|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < std::min(kTop, report.plan.size()); ++i) {
      const WorkItem& w = report.plan[i];
      out += fmt::format("| {} | {} | {} | {} | {}, {} | {} |\n", severity_mark(w.severity), markdown_text(w.subject),
                         markdown_text(w.first_message), link(options, w.first_location, w.first_path, w.first_line),
                         to_string(w.effort), hours(w.hours), gain_text(w.score_gain));
    }
    if (report.plan.size() > kTop) out += fmt::format("\n{} more work items in the plan below.\n", report.plan.size() - kTop);
    out += "\n";

    p.plan_open = fmt::format("<details><summary>Migration plan: {} work items, cheapest big wins first</summary>\n\n"
                              "| # | work item | checks | findings | lines to touch | effort | score gain |\n|---|---|---|---|---|---|---|\n",
                              report.plan.size());
    for (size_t i = 0; i < report.plan.size(); ++i) {
      const WorkItem& w = report.plan[i];
      std::string checks;
      for (const std::string& id : w.check_ids) checks += (checks.empty() ? "`" : ", `") + id + "`";
      p.plan_rows.push_back(fmt::format("| {} | {} | {} | {} in {} file{} | {} | {}, {} | {} |\n", i + 1,
                                        markdown_text(w.parts.empty() ? w.subject : w.subject + " (with " + parts_summary(w) + ")"),
                                        checks, w.findings, w.files, w.files == 1 ? "" : "s", w.touch_lines, to_string(w.effort),
                                        hours(w.hours), gain_text(w.score_gain)));
    }
    p.plan_close = "\n</details>\n\n";
  }

  if (!s.categories.empty()) {
    p.categories = "<details><summary>Sub-scores by category</summary>\n\n| category | score | findings | effort |\n"
                   "|---|---|---|---|\n";
    for (const CategoryScore& c : s.categories)
      p.categories += fmt::format("| {} | {:.1f} | {} | {} |\n", display_name(c.category), c.score, c.findings, hours(c.hours));
    p.categories += "\n</details>\n\n";
  }

  if (!report.findings.empty()) {
    p.findings_open = fmt::format("<details><summary>All findings ({})</summary>\n\n", report.findings.size());
    const InternedString* current = nullptr;
    for (const Finding& f : report.findings) {
      std::string line;
      if (!current || *current != f.path) {
        line = fmt::format("{}**{}**\n\n", current ? "\n" : "", markdown_text(f.path));
        current = &f.path;
      }
      line += fmt::format("- {} {} `{}` {}{}\n", severity_mark(f.severity), link(options, location_text(f), f.path, f.start.line),
                          f.check_id, markdown_text(f.message),
                          f.hint.empty() ? "" : fmt::format(" — {}", markdown_text(f.hint)));
      p.finding_lines.push_back(std::move(line));
    }
    p.findings_close = "\n</details>\n";
  }
  return p;
}

// The lines of `lines` that fit in `budget` bytes, in order, up to the first that does not.
size_t fitting(const std::vector<std::string>& lines, size_t& budget) {
  size_t n = 0;
  for (; n < lines.size() && lines[n].size() <= budget; ++n) budget -= lines[n].size();
  return n;
}

}  // namespace

void write_markdown(const ScanReport& report, const ReportOptions& options, std::ostream& out) {
  const Parts p = render(report, options);
  auto total = [](const std::vector<std::string>& lines) {
    size_t n = 0;
    for (const std::string& l : lines) n += l.size();
    return n;
  };
  const size_t fixed = p.head.size() + p.plan_open.size() + p.plan_close.size() + p.categories.size() +
                       p.findings_open.size() + p.findings_close.size();
  if (fixed + total(p.plan_rows) + total(p.finding_lines) <= options.max_markdown_bytes) {
    out << p.head << p.plan_open;
    for (const std::string& row : p.plan_rows) out << row;
    out << p.plan_close << p.categories << p.findings_open;
    for (const std::string& line : p.finding_lines) out << line;
    out << p.findings_close;
    return;
  }

  // Too long for a comment: the summary and top blockers, then as much of the plan (in its order)
  // and of the findings as fits, then what was left out. A note is at most this long.
  constexpr size_t kNoteBytes = 512;
  size_t budget = options.max_markdown_bytes - std::min(options.max_markdown_bytes, fixed + kNoteBytes);
  const size_t plan_shown = fitting(p.plan_rows, budget);
  const size_t findings_shown = plan_shown < p.plan_rows.size() ? 0 : fitting(p.finding_lines, budget);
  out << p.head << p.plan_open;
  for (size_t i = 0; i < plan_shown; ++i) out << p.plan_rows[i];
  out << p.plan_close << p.categories;
  if (findings_shown > 0) {
    out << p.findings_open;
    for (size_t i = 0; i < findings_shown; ++i) out << p.finding_lines[i];
    out << p.findings_close;
  }
  out << fmt::format("\n**Cut to fit a pull-request comment (at most {} characters):** {} of {} work items and {} of {} findings are shown; "
                     "the JSON, SARIF and HTML reports hold them all.\n",
                     options.max_markdown_bytes, plan_shown, p.plan_rows.size(), findings_shown, p.finding_lines.size());
}

}  // namespace tpulint::report
