#include "report/html_report.h"
#include "report/formats.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/version.h"
#include "report/sha256.h"
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

// No style attribute anywhere: the policy allows this sheet by its hash and nothing else, so bars
// are SVG shapes sized by their attributes.
constexpr std::string_view kStyle = R"css(
:root { --ok: #1a7f37; --mid: #bf8700; --bad: #cf222e; --ink: #1f2328; --muted: #656d76; --line: #d0d7de; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0; background: #f6f8fa; }
header, section { max-width: 1180px; margin: 0 auto; padding: 12px 24px; }
header { display: flex; gap: 32px; align-items: center; background: #fff; border-bottom: 1px solid var(--line); max-width: none; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 16px 0 8px; }
.verdict { display: inline-block; padding: 2px 10px; border-radius: 12px; font-weight: 600; color: #fff; }
.v-tpu-ready { background: var(--ok); } .v-portable { background: #0969da; } .v-significant { background: var(--mid); } .v-stay-on-gpu { background: var(--bad); }
.muted, .m { color: var(--muted); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.kv th { width: 130px; font-weight: 600; }
th.sortable { cursor: pointer; user-select: none; } th.sortable::after { content: " \2195"; color: var(--muted); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.plan { table-layout: fixed; }
table.plan th:nth-child(1) { width: 4%; } table.plan th:nth-child(2) { width: 27%; } table.plan th:nth-child(3) { width: 11%; }
table.plan th:nth-child(4) { width: 9%; } table.plan th:nth-child(5) { width: 7%; } table.plan th:nth-child(6) { width: 12%; }
table.plan th:nth-child(7) { width: 11%; } table.plan th:nth-child(8) { width: 19%; }
summary h2 { display: inline; }
table.plan td, table.files td { overflow-wrap: anywhere; }
.clip { display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; }
svg.bar { width: 140px; height: 10px; display: block; }
#filters { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 8px 0; background: #f6f8fa; border-bottom: 1px solid var(--line); }
#filters input, #filters select, #filters button { font: inherit; padding: 2px 4px; max-width: 260px; }
#shown { margin-left: auto; font-weight: 600; }
details.g { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; }
details.g > summary { cursor: pointer; padding: 6px 10px; overflow-wrap: anywhere; }
ul.f { list-style: none; margin: 0; padding: 0; }
ul.f > li { border-top: 1px solid var(--line); border-left: 3px solid var(--line); padding: 5px 10px; overflow-wrap: anywhere; }
li.error { border-left-color: var(--bad); } li.warning { border-left-color: var(--mid); }
li pre { background: #f6f8fa; padding: 4px 8px; margin: 4px 0 0; overflow-x: auto; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
li > i { font-style: normal; color: var(--muted); } li > i::before { content: "· "; }
.h { color: var(--ok); } .h::before { content: "→ "; }
.sev { font-weight: 600; text-transform: uppercase; font-size: 11px; }
.sev-error { color: var(--bad); } .sev-warning { color: var(--mid); } .sev-info { color: var(--muted); }
)css";

// Sorts the tables by a clicked column, and filters and groups the findings. The filters live in
// the URL's fragment (#severity=error&check=TPU101&group=file), so a view can be shared and a
// test can load one; a finding filtered out gets the `hidden` attribute. Text from the scanned
// repository is only ever read (dataset, textContent) and compared, never written as markup.
constexpr std::string_view kScript = R"js(
(function () {
  "use strict";
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

  // Each finding's fix hint, from the page's one copy of it.
  var hints = document.getElementById("hints");
  if (hints) {
    var texts = Array.prototype.map.call(hints.content.children, function (p) { return p.textContent; });
    document.querySelectorAll("li[data-h]").forEach(function (li) {
      var hint = document.createElement("div");
      hint.className = "h";
      hint.textContent = texts[+li.dataset.h];
      li.appendChild(hint);
    });
  }

  var form = document.getElementById("filters");
  var byItem = document.getElementById("by-item"), byFile = document.getElementById("by-file");
  if (form && byItem && byFile) {
    var facets = ["check", "category", "severity", "context"];
    var keys = ["q", "path"].concat(facets, ["group"]);
    var state = {};
    var categoryOf = {};  // a check ID's leading digit (TPU4xx) -> its category's key
    form.elements.category.querySelectorAll("option[data-k]").forEach(function (o) { categoryOf[o.dataset.k] = o.value; });
    var itemList = {};
    byItem.querySelectorAll("details.g").forEach(function (g) { itemList[g.dataset.w] = g.querySelector("ul"); });
    var rows = [];
    byFile.querySelectorAll("details.g").forEach(function (g) {
      var list = g.querySelector("ul"), path = g.dataset.p.toLowerCase();
      Array.prototype.forEach.call(list.children, function (li) {
        rows.push({ el: li, file: list, item: itemList[li.dataset.w || "notes"], path: path,
                    text: li.textContent.toLowerCase(), check: li.dataset.c, category: categoryOf[li.dataset.c.charAt(3)],
                    severity: li.className, context: li.dataset.x || "unknown" });
      });
    });
    var placed = "file";
    form.querySelectorAll("option").forEach(function (o) { o.dataset.label = o.textContent; });

    var passes = function (r, skip) {
      for (var i = 0; i < facets.length; ++i) {
        var f = facets[i];
        if (f !== skip && state[f] && r[f] !== state[f]) return false;
      }
      if (state.path && r.path.indexOf(state.path.toLowerCase()) < 0) return false;
      return !state.q || r.text.indexOf(state.q.toLowerCase()) >= 0;
    };

    var apply = function () {
      var group = state.group === "file" ? "file" : "item";
      byItem.hidden = group !== "item";
      byFile.hidden = group !== "file";
      if (placed !== group) {
        rows.forEach(function (r) { (group === "item" ? r.item : r.file).appendChild(r.el); });
        placed = group;
      }
      var counts = {}, others = {}, shown = 0;
      facets.forEach(function (f) { counts[f] = {}; others[f] = 0; });
      rows.forEach(function (r) {
        var ok = passes(r, null);
        r.el.hidden = !ok;
        shown += ok;
        facets.forEach(function (f) {
          if (!passes(r, f)) return;
          counts[f][r[f]] = (counts[f][r[f]] || 0) + 1;
          others[f] += 1;
        });
      });
      facets.forEach(function (f) {
        form.elements[f].querySelectorAll("option").forEach(function (o) {
          o.textContent = o.dataset.label + " (" + (o.value ? counts[f][o.value] || 0 : others[f]) + ")";
        });
      });
      var filtered = keys.some(function (k) { return k !== "group" && state[k]; });
      (group === "item" ? byItem : byFile).querySelectorAll("details.g").forEach(function (g) {
        var lis = g.querySelector("ul").children, visible = 0;
        for (var i = 0; i < lis.length; ++i) visible += !lis[i].hidden;
        g.hidden = visible === 0;
        g.querySelector(".n").textContent = visible === lis.length ? String(lis.length) : visible + " of " + lis.length;
        if (filtered && visible && shown <= 200) g.open = true;
      });
      document.getElementById("shown").textContent = shown + " of " + rows.length + " findings";
      form.dataset.shown = shown;
    };

    var showControls = function () {
      keys.forEach(function (k) {
        var control = form.elements[k], value = state[k] || (k === "group" ? "item" : "");
        if (control.tagName === "SELECT" && !Array.prototype.some.call(control.options, function (o) { return o.value === value; })) {
          var o = document.createElement("option");
          o.value = value;
          o.textContent = o.dataset.label = value;
          control.appendChild(o);
        }
        control.value = value;
      });
    };

    // "#w3" is a work item's section, not a filter: it is opened (and found in the item view).
    var readFragment = function () {
      var fragment = location.hash.slice(1);
      if (fragment.indexOf("=") < 0) {
        try { fragment = decodeURIComponent(fragment); } catch (e) { return; }
        var target = fragment && document.getElementById(fragment);
        if (target && target.tagName === "DETAILS") {
          if (state.group === "file") { state.group = "item"; showControls(); apply(); }
          target.open = true;
          target.scrollIntoView();
        }
        return;
      }
      var params = new URLSearchParams(location.hash.slice(1));
      keys.forEach(function (k) { state[k] = params.get(k) || ""; });
      showControls();
      apply();
    };

    var writeFragment = function () {
      var params = new URLSearchParams();
      keys.forEach(function (k) { if (state[k] && !(k === "group" && state[k] === "item")) params.set(k, state[k]); });
      var text = params.toString();
      try { history.replaceState(null, "", text ? "#" + text : location.pathname + location.search); } catch (e) {}
    };

    form.addEventListener("input", function () {
      keys.forEach(function (k) { state[k] = form.elements[k].value; });
      if (state.group === "item") state.group = "";
      apply();
      writeFragment();
    });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    form.addEventListener("reset", function (e) {
      e.preventDefault();
      keys.forEach(function (k) { state[k] = ""; });
      showControls();
      apply();
      writeFragment();
    });
    window.addEventListener("hashchange", readFragment);
    keys.forEach(function (k) { state[k] = ""; });
    form.hidden = false;
    apply();
    readFragment();
  }
  document.documentElement.dataset.ready = "true";
})();
)js";

constexpr size_t kOpenGroupsUpTo = 200;  // findings: more, and the groups start closed

std::string score_color(double score) { return score >= 80 ? "#1a7f37" : score >= 50 ? "#bf8700" : "#cf222e"; }

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
  return fmt::format(R"(<svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">)"
                     R"(<rect width="100" height="10" rx="2" fill="#eaeef2"/><rect width="{:.1f}" height="10" rx="2" fill="{}"/></svg>)",
                     std::clamp(fraction, 0.0, 1.0) * 100, color);
}

// After a group's count, which the script makes "3 of 12" when filters hide some.
std::string_view findings_word(size_t count) { return count == 1 ? "finding" : "findings"; }

std::string hours_text(HoursRange h) { return fmt::format("{:g}–{:g} h", h.low, h.high); }

// `text` (already HTML) linked to a file's line under the link base, or as it is without one.
std::string located(const ReportOptions& options, std::string_view text, std::string_view path, uint32_t line) {
  if (options.link_base.empty()) return fmt::format(R"(<code>{}</code>)", text);
  return fmt::format(R"(<a href="{}" rel="noopener noreferrer"><code>{}</code></a>)",
                     html_escape(source_link(options.link_base, path, line)), text);
}

std::string work_item_name(const WorkItem& w) {
  return w.parts.empty() ? w.subject : w.subject + " (with " + parts_summary(w) + ")";
}

void write_summary(const ScanReport& report, std::ostream& out) {
  const ScoreSummary& s = report.score;
  size_t by_severity[3] = {0, 0, 0};
  for (const Finding& f : report.findings) ++by_severity[size_t(f.severity)];
  // The score, verdict and its reason are the header's.
  out << "<section id=\"summary\"><table class=\"kv\"><tbody>\n"
      << fmt::format("<tr><th>effort</th><td>{}</td></tr>\n", html_escape(effort_text(s, "–")))
      << fmt::format("<tr><th>findings</th><td>{} ({} error{}, {} warning{}, {} info)</td></tr>\n",
                     report.findings.size(), by_severity[size_t(Severity::Error)],
                     by_severity[size_t(Severity::Error)] == 1 ? "" : "s", by_severity[size_t(Severity::Warning)],
                     by_severity[size_t(Severity::Warning)] == 1 ? "" : "s", by_severity[size_t(Severity::Info)])
      << fmt::format("<tr><th>files</th><td>{} analyzed, {} skipped · {} {}</td></tr>\n", report.analyzed,
                     report.skipped.size(), kToolName, kToolVersion);
  if (!report.unanalyzed.empty())
    out << fmt::format("<tr><th>not analyzed</th><td>{} code file{} (first: {}: {})</td></tr>\n",
                       report.unanalyzed.size(), report.unanalyzed.size() == 1 ? "" : "s",
                       html_escape(report.unanalyzed.front().path), html_escape(report.unanalyzed.front().reason));
  for (const ScanReport::Hidden& h : report.hidden)
    out << fmt::format("<tr><th>hidden</th><td>{} finding{} {} (still in the score and the plan)</td></tr>\n", h.count,
                       h.count == 1 ? "" : "s", html_escape(h.why));
  out << "</tbody></table></section>\n";
}

void write_plan(const ScanReport& report, const ReportOptions& options, std::ostream& out) {
  out << fmt::format("<section id=\"plan\"><h2>Migration plan: {} work item{}, cheapest big wins first</h2>",
                     report.plan.size(), report.plan.size() == 1 ? "" : "s")
      << "<table class=\"plan sortable-table\"><thead><tr><th class=\"sortable num\">#</th><th class=\"sortable\">work item</th>"
         "<th class=\"sortable\">checks</th><th class=\"sortable num\">findings</th><th class=\"sortable\">effort</th>"
         "<th class=\"sortable num\">hours</th><th class=\"sortable num\">score gain</th><th>first at</th></tr></thead>"
         "<tbody>\n";
  for (size_t i = 0; i < report.plan.size(); ++i) {
    const WorkItem& w = report.plan[i];
    std::string checks;
    for (const std::string& id : w.check_ids) checks += (checks.empty() ? "" : ", ") + id;
    const std::string name = html_escape(work_item_name(w));
    out << fmt::format("<tr><td class=\"num\">{0}</td><td><a class=\"clip\" href=\"#w{1}\" title=\"{2}\">{2}</a></td>"
                       "<td><div class=\"clip\" title=\"{3}\">{3}</div></td><td class=\"num\" data-sort=\"{4}\">{4}{11}</td><td>{5}</td><td class=\"num\" data-sort=\"{6:g}\">{7}</td>"
                       "<td class=\"num\" data-sort=\"{8:g}\">{9}</td><td>{10}</td></tr>\n",
                       i + 1, i, name, checks, w.findings, to_string(w.effort), w.hours.high, hours_text(w.hours),
                       w.score_gain, html_escape(gain_text(w.score_gain)),
                       located(options, html_escape(w.first_location), w.first_path, w.first_line),
                       w.touch_lines ? fmt::format("<br><span class=\"muted\">+{} line{} to touch</span>", w.touch_lines,
                                                   w.touch_lines == 1 ? "" : "s")
                                     : "");
  }
  if (report.plan.empty()) out << "<tr><td colspan=\"8\" class=\"muted\">nothing to port</td></tr>\n";
  out << "</tbody></table></section>\n";
}

void write_categories(const ScoreSummary& s, std::ostream& out) {
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
}

// The filters' choices: each check and category found (a category named by its checks' leading
// digit, which the script reads), every severity and every context.
void write_filters(const ScanReport& report, const Registry& registry, std::ostream& out) {
  std::map<std::string_view, std::string_view> checks;  // ID -> name
  std::map<Category, bool> categories;
  for (const Finding& f : report.findings) {
    checks.try_emplace(f.check_id, f.check_name.view());
    categories[f.category] = true;
  }
  out << "<form id=\"filters\" role=\"search\" hidden>"
         "<input type=\"search\" name=\"q\" placeholder=\"search\" aria-label=\"search the findings\">"
         "<input type=\"search\" name=\"path\" placeholder=\"path contains\" aria-label=\"path contains\">"
         "<select name=\"check\" aria-label=\"check\"><option value=\"\">all checks</option>";
  for (const auto& [id, name] : checks) {
    const CheckInfo* info = registry.find(id);
    out << fmt::format("<option value=\"{0}\" title=\"{2}\">{0} {1}</option>", html_escape(id), html_escape(name),
                       info ? html_escape(info->summary) : "");
  }
  out << "</select><select name=\"category\" aria-label=\"category\"><option value=\"\">all categories</option>";
  for (const auto& [category, _] : categories)
    out << fmt::format("<option value=\"{}\" data-k=\"{}\">{}</option>", to_string(category), int(category),
                       html_escape(display_name(category)));
  out << "</select><select name=\"severity\" aria-label=\"severity\"><option value=\"\">all severities</option>";
  for (Severity s : {Severity::Error, Severity::Warning, Severity::Info})
    out << fmt::format("<option>{}</option>", to_string(s));
  out << "</select><select name=\"context\" aria-label=\"context\"><option value=\"\">all contexts</option>";
  for (Context c : {Context::HotPath, Context::Loop, Context::Host, Context::OneTime, Context::Eval, Context::Guarded,
                    Context::Test, Context::Unknown})
    out << fmt::format("<option>{}</option>", to_string(c));
  out << "</select><label>group by <select name=\"group\"><option value=\"item\">work item</option>"
         "<option value=\"file\">file</option></select></label><button type=\"reset\">clear</button>"
         "<output id=\"shown\"></output></form>\n";
}

// The fix hints, each written once: a hint is a check's advice for a subject, the same for
// hundreds of findings, and the longest part of one. Findings name theirs by number, and the
// script puts it under them.
class Hints {
 public:
  explicit Hints(std::span<const Finding> findings) {
    for (const Finding& f : findings)
      if (!f.hint.empty() && number_.try_emplace(f.hint, number_.size()).second) texts_.push_back(f.hint);
  }
  // -1 for no hint.
  long number(const Finding& f) const { return f.hint.empty() ? -1 : long(number_.at(f.hint)); }
  void write(std::ostream& out) const {
    out << "<template id=\"hints\">";
    for (InternedString hint : texts_) out << "<p>" << html_escape(hint) << "</p>";
    out << "</template>\n";
  }

 private:
  std::unordered_map<InternedString, size_t> number_;
  std::vector<InternedString> texts_;
};

// One finding, as the script reads it: severity as the class, check ID, work item, context (when
// known) and hint as short attributes. Its path is its file group's, its category its check ID's
// leading digit (core/types.h).
void write_finding(const Finding& f, size_t plan_size, const Hints& hints, const ReportOptions& options,
                   std::ostream& out) {
  out << fmt::format("<li class=\"{}\" data-c=\"{}\"", to_string(f.severity), html_escape(f.check_id));
  // A finding in no item of this plan (a note) goes to the section of those.
  if (f.work_item < plan_size) out << " data-w=\"" << f.work_item << '"';
  if (f.context != Context::Unknown) out << " data-x=\"" << to_string(f.context) << '"';
  if (long hint = hints.number(f); hint >= 0) out << " data-h=\"" << hint << '"';
  out << '>'
      << located(options, html_escape(fmt::format("{}:{}", location_text(f), shown_start(f).column)), f.path,
                 f.start.line)
      << fmt::format(" <b>{}</b> {} <i>", html_escape(f.check_id), html_escape(f.message));
  if (f.context != Context::Unknown) out << to_string(f.context) << " · ";
  out << to_string(f.effort) << ", " << hours_text(f.hours) << "</i>";
  if (!f.source_line.empty()) out << "<pre>" << html_escape(f.source_line) << "</pre>";
  out << "</li>\n";
}

// The findings, in collapsible groups: by file as written (the report's order), and by work item,
// whose groups the script fills from the file groups (so each finding is written once).
void write_findings(const ScanReport& report, const Registry& registry, const ReportOptions& options,
                    std::ostream& out) {
  out << fmt::format("<section id=\"findings\"><h2>Findings ({})</h2>\n", report.findings.size());
  if (report.findings.empty()) {
    out << "<p class=\"muted\">No findings.</p></section>\n";
    return;
  }
  write_filters(report, registry, out);
  const Hints hints(report.findings);
  hints.write(out);
  const char* open = report.findings.size() <= kOpenGroupsUpTo ? " open" : "";

  out << "<div id=\"by-item\" hidden>\n";
  std::vector<size_t> per_item(report.plan.size() + 1, 0);  // the last: findings in no work item
  for (const Finding& f : report.findings)
    ++per_item[f.work_item < report.plan.size() ? f.work_item : report.plan.size()];
  for (size_t i = 0; i < report.plan.size(); ++i) {
    const WorkItem& w = report.plan[i];
    out << fmt::format("<details class=\"g\" id=\"w{0}\" data-w=\"{0}\"{1}><summary><b>{2}</b> · <span class=\"n\">{3}"
                       "</span> {4} <span class=\"m\">· {5}, {6} · score {7}</span></summary><ul class=\"f\"></ul>"
                       "</details>\n",
                       i, open, html_escape(work_item_name(w)), per_item[i], findings_word(per_item[i]),
                       to_string(w.effort), hours_text(w.hours), html_escape(gain_text(w.score_gain)));
  }
  if (per_item.back())
    out << fmt::format("<details class=\"g\" data-w=\"notes\"{}><summary><b>not in the plan</b> · <span class=\"n\">{}"
                       "</span> {} <span class=\"m\">· analyzer notes</span></summary><ul class=\"f\"></ul></details>\n",
                       open, per_item.back(), findings_word(per_item.back()));
  out << "</div>\n<div id=\"by-file\">\n";
  for (size_t k = 0; k < report.findings.size();) {
    const InternedString& path = report.findings[k].path;
    size_t end = k;
    while (end < report.findings.size() && report.findings[end].path == path) ++end;
    const std::string shown_path = html_escape(path.view());
    out << fmt::format("<details class=\"g\" data-p=\"{0}\"{1}><summary><b>{0}</b> · <span class=\"n\">{2}</span>"
                       " {3}</summary><ul class=\"f\">\n",
                       shown_path, open, end - k, findings_word(end - k));
    for (; k < end; ++k) write_finding(report.findings[k], report.plan.size(), hints, options, out);
    out << "</ul></details>\n";
  }
  out << "</div></section>\n";
}

void write_files(const ScanReport& report, std::ostream& out) {
  out << fmt::format("<section id=\"files\"><details{}><summary><h2>Files ({})</h2></summary>",
                     report.files.size() <= 50 ? " open" : "", report.files.size())
      << "<table class=\"files sortable-table\"><thead><tr><th class=\"sortable\">path</th>"
         "<th class=\"sortable\">language</th><th class=\"sortable num\">findings</th><th class=\"sortable num\">hours</th>"
         "<th class=\"sortable\">status</th></tr></thead><tbody>\n";
  for (const FileSummary& f : report.files) {
    out << fmt::format("<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\" data-sort=\"{:g}\">{}</td>"
                       "<td>{}</td></tr>\n",
                       html_escape(f.path), to_string(f.language), f.findings, f.hours.high, hours_text(f.hours),
                       f.analyzed ? "analyzed" : "skipped: " + html_escape(f.skip_reason));
  }
  out << "</tbody></table></details></section>\n";
}

}  // namespace

void write_html(const ScanReport& report, const Registry& registry, const ReportOptions& options, std::ostream& out) {
  const ScoreSummary& s = report.score;
  // Only the page's own style and script run: a name or line of the scanned repository that got
  // past escaping could neither run nor fetch anything.
  static const std::string policy =
      fmt::format("default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
                  csp_hash_source(kStyle), csp_hash_source(kScript));
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      << "<meta http-equiv=\"Content-Security-Policy\" content=\"" << policy << "\">"
      << "<meta name=\"referrer\" content=\"no-referrer\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>tpulint report</title><style>"
      << kStyle << "</style></head><body>\n";

  out << "<header>" << gauge(s.score) << "<div><h1>tpulint: TPU readiness</h1>"
      << fmt::format(R"(<p><span id="verdict" class="verdict v-{0}">{0}</span> {1}</p>)", to_string(s.verdict),
                     html_escape(s.verdict_reason))
      << "</div></header>\n";
  write_summary(report, out);
  write_plan(report, options, out);
  write_categories(s, out);
  write_findings(report, registry, options, out);
  write_files(report, out);
  out << "<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace tpulint::report
