#include "report/html_report.h"
#include "report/formats.h"

#include <cmath>
#include <fmt/format.h>
#include <map>

#include "core/version.h"
#include "report/visible_text.h"

namespace tpulint::report {

std::string html_escape(std::string_view text) {
  std::string out;
  for (char c : visible_text(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

constexpr std::string_view kStyle = R"css(
:root { --ok: #1a7f37; --mid: #bf8700; --bad: #cf222e; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0; background: #f6f8fa; }
header, section { max-width: 1180px; margin: 0 auto; padding: 16px 24px; }
header { display: flex; gap: 32px; align-items: center; background: #fff; border-bottom: 1px solid var(--line); max-width: none; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 20px 0 8px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; color: #fff; }
.v-tpu-ready { background: var(--ok); } .v-portable { background: #0969da; } .v-significant { background: var(--mid); } .v-stay-on-gpu { background: var(--bad); }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th.sortable { cursor: pointer; user-select: none; } th.sortable::after { content: " \2195"; color: var(--muted); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { background: #eaeef2; border-radius: 3px; height: 10px; min-width: 120px; }
.bar > span { display: block; height: 10px; border-radius: 3px; }
.finding { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; margin: 8px 0; }
.finding pre { background: #f6f8fa; padding: 6px 8px; margin: 6px 0; overflow-x: auto; }
.sev { font-weight: 600; text-transform: uppercase; font-size: 11px; }
.sev-error { color: var(--bad); } .sev-warning { color: var(--mid); } .sev-info { color: var(--muted); }
.hint { color: var(--ok); }
)css";

// Sorts a table by the clicked column: numbers by value (data-sort when given), text otherwise.
constexpr std::string_view kScript = R"js(
(function () {
  document.querySelectorAll("table.sortable-table").forEach(function (table) {
    table.querySelectorAll("th.sortable").forEach(function (th, column) {
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var descending = th.dataset.order !== "desc";
        th.dataset.order = descending ? "desc" : "asc";
        rows.sort(function (a, b) {
          var x = a.cells[column].dataset.sort || a.cells[column].textContent;
          var y = b.cells[column].dataset.sort || b.cells[column].textContent;
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return descending ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.documentElement.dataset.ready = "true";
})();
)js";

std::string score_color(double score) { return score >= 80 ? "var(--ok)" : score >= 50 ? "var(--mid)" : "var(--bad)"; }

// A half-ring gauge: the arc's length is the score.
std::string gauge(double score) {
  const double r = 70, cx = 90, cy = 90;
  double angle = M_PI * (1 - std::clamp(score, 0.0, 100.0) / 100);
  double x = cx + r * std::cos(angle), y = cy - r * std::sin(angle);
  return fmt::format(
      R"(<svg id="score-gauge" width="180" height="110" viewBox="0 0 180 110" role="img" aria-label="TPU readiness {0:.1f} of 100">)"
      R"(<path d="M20 90 A70 70 0 0 1 160 90" fill="none" stroke="#eaeef2" stroke-width="16"/>)"
      R"(<path d="M20 90 A70 70 0 0 1 {1:.2f} {2:.2f}" fill="none" stroke="{3}" stroke-width="16"/>)"
      R"(<text x="90" y="88" text-anchor="middle" font-size="30" font-weight="700">{0:.1f}</text>)"
      R"(<text x="90" y="106" text-anchor="middle" font-size="11" fill="#656d76">TPU readiness / 100</text></svg>)",
      score, x, y, score_color(score));
}

std::string bar(double fraction, std::string_view color) {
  return fmt::format(R"(<div class="bar"><span style="width:{:.1f}%;background:{}"></span></div>)",
                     std::clamp(fraction, 0.0, 1.0) * 100, color);
}

}  // namespace

void write_html(const ScanReport& report, const Registry& registry, std::ostream& out) {
  const ScoreSummary& s = report.score;
  std::string verdict(to_string(s.verdict));
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>tpulint report</title><style>"
      << kStyle << "</style></head><body>\n";

  out << "<header>" << gauge(s.score) << "<div><h1>tpulint: TPU readiness</h1>"
      << fmt::format(R"(<p><span id="verdict" class="verdict v-{0}">{0}</span> {1}</p>)", verdict,
                     html_escape(s.verdict_reason))
      << fmt::format(R"(<p class="muted">Effort {} · {} )"
                     R"(findings · {} files analyzed, {} skipped · {} {}</p>)",
                     html_escape(effort_text(s, "–")), report.findings.size(),
                     report.analyzed, report.skipped.size(), kToolName, kToolVersion)
      << "</div></header>\n";

  // Sub-scores and effort by category.
  double max_hours = 0;
  for (const CategoryScore& c : s.categories) max_hours = std::max(max_hours, c.hours.high);
  out << "<section id=\"categories\"><h2>Sub-scores and effort by category</h2><table><thead><tr><th>category</th>"
         "<th class=\"num\">score</th><th></th><th class=\"num\">findings</th><th class=\"num\">effort (h)</th><th></th>"
         "</tr></thead><tbody>\n";
  for (const CategoryScore& c : s.categories)
    out << fmt::format("<tr><td>{}</td><td class=\"num\">{:.1f}</td><td>{}</td><td class=\"num\">{}</td>"
                       "<td class=\"num\">{:g}–{:g}</td><td>{}</td></tr>\n",
                       html_escape(display_name(c.category)), c.score, bar(c.score / 100, score_color(c.score)),
                       c.findings, c.hours.low, c.hours.high,
                       bar(max_hours > 0 ? c.hours.high / max_hours : 0, "#0969da"));
  if (s.categories.empty()) out << "<tr><td colspan=\"6\" class=\"muted\">no TPU blocker found</td></tr>\n";
  out << "</tbody></table></section>\n";

  // Migration plan.
  out << "<section id=\"plan\"><h2>Migration plan: cheapest big wins first</h2>"
         "<table class=\"sortable-table\"><thead><tr><th class=\"sortable num\">#</th><th class=\"sortable\">work item</th>"
         "<th class=\"sortable\">checks</th><th class=\"sortable num\">findings</th><th class=\"sortable\">effort</th>"
         "<th class=\"sortable num\">hours</th><th class=\"sortable num\">score gain</th><th>first at</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < report.plan.size(); ++i) {
    const WorkItem& w = report.plan[i];
    std::string checks;
    for (const std::string& id : w.check_ids) checks += (checks.empty() ? "" : ", ") + id;
    out << fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td>"
                       "<td class=\"num\" data-sort=\"{:g}\">{:g}–{:g}</td><td class=\"num\" data-sort=\"{:g}\">{}</td><td>{}</td></tr>\n",
                       i + 1, html_escape(w.parts.empty() ? w.subject : w.subject + " (with " + parts_summary(w) + ")"), checks, w.findings, to_string(w.effort), w.hours.high,
                       w.hours.low, w.hours.high, w.score_gain, gain_text(w.score_gain), html_escape(w.first_location));
  }
  out << "</tbody></table></section>\n";

  // Files.
  out << "<section id=\"files\"><h2>Files</h2><table class=\"sortable-table\"><thead><tr><th class=\"sortable\">path</th>"
         "<th class=\"sortable\">language</th><th class=\"sortable num\">findings</th><th class=\"sortable num\">hours</th>"
         "<th class=\"sortable\">status</th></tr></thead><tbody>\n";
  for (const FileSummary& f : report.files) {
    const HoursRange& h = f.hours;
    out << fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\" data-sort=\"{:g}\">"
                       "{:g}–{:g}</td><td>{}</td></tr>\n",
                       html_escape(f.path), to_string(f.language), f.findings, h.high, h.low, h.high,
                       f.analyzed ? "analyzed" : "skipped: " + html_escape(f.skip_reason));
  }
  out << "</tbody></table></section>\n";

  // Findings.
  out << "<section id=\"findings\"><h2>Findings</h2>\n";
  for (const Finding& f : report.findings) {
    const CheckInfo* info = registry.find(f.check_id);
    out << fmt::format("<div class=\"finding\"><span class=\"sev sev-{0}\">{0}</span> <b>{1}</b> {2} "
                       "<span class=\"muted\">{3}:{4} · effort {5}, {6:g}–{7:g} h</span>",
                       to_string(f.severity), f.check_id, html_escape(f.message), html_escape(location_text(f)),
                       shown_start(f).column, to_string(f.effort), f.hours.low, f.hours.high);
    if (!f.source_line.empty()) out << "<pre><code>" << html_escape(f.source_line) << "</code></pre>";
    if (!f.hint.empty()) out << "<div class=\"hint\">→ " << html_escape(f.hint) << "</div>";
    if (info) out << "<div class=\"muted\">" << html_escape(info->summary) << "</div>";
    out << "</div>\n";
  }
  if (report.findings.empty()) out << "<p class=\"muted\">No findings.</p>\n";
  out << "</section>\n<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace tpulint::report
