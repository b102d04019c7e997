#include "report/text_report.h"
#include "report/formats.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <span>

#include "core/source_file.h"
#include "report/visible_text.h"

namespace tpulint::report {

namespace {

struct Style {
  bool on;
  std::string wrap(std::string_view code, std::string_view text) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string bold(std::string_view t) const { return wrap("1", t); }
  std::string dim(std::string_view t) const { return wrap("2", t); }
  std::string severity(Severity s) const {
    std::string_view name = to_string(s);
    switch (s) {
      case Severity::Error: return wrap("1;31", name);
      case Severity::Warning: return wrap("1;33", name);
      case Severity::Info: return wrap("1;36", name);
    }
    return std::string(name);
  }
};

// The byte offset of code point `n` (0-based, counted as columns are) in `line`; its size past
// its end.
size_t column_offset(std::string_view line, uint32_t n) {
  uint32_t seen = 0;
  for (size_t i = 0; i < line.size(); ++i)
    if ((line[i] & 0xC0) != 0x80 && seen++ == n) return i;
  return line.size();
}

// `shown` with everything but tabs turned into spaces, so that a caret line printed under it
// lines up with it.
std::string blank_like(std::string_view shown) {
  std::string out;
  for (unsigned char c : shown)
    if ((c & 0xC0) != 0x80) out += c == '\t' ? '\t' : ' ';
  return out;
}

// The source line as shown (visible_text), and carets under the flagged columns of it: an escape
// before or in them widens what they sit under.
void write_code_frame(const Finding& f, std::ostream& out, const Style& st) {
  std::string_view line = f.source_line;
  const Position first = shown_start(f), last = shown_end(f);
  const uint32_t start = std::max(first.column, 1u) - 1;  // 0-based columns, `end` past the last
  const uint32_t end = last.line == first.line ? std::max(last.column, 1u) - 1 : count_code_points(line);
  const size_t from = column_offset(line, start), to = column_offset(line, std::max(start, end));
  const uint32_t past_the_end = start - count_code_points(line.substr(0, from));  // a start beyond the line
  const uint32_t width = std::max(count_code_points(visible_text(line.substr(from, to - from))), 1u);

  std::string num = std::to_string(first.line);
  std::string gutter(num.size(), ' ');
  out << fmt::format("  {} {}\n", gutter, st.dim("|"));
  out << fmt::format("  {} {} {}\n", st.dim(num), st.dim("|"), visible_text(line));
  // A long line's text is cut (kSourceLineBytes): a finding past the cut gets no carets.
  if (past_the_end > 1) return;
  out << fmt::format("  {} {} {}{}{}\n", gutter, st.dim("|"), blank_like(visible_text(line.substr(0, from))),
                     std::string(past_the_end, ' '), st.wrap("1;31", std::string(width, '^')));
}

void write_finding(const Finding& f, std::ostream& out, const Style& st) {
  // The context when it is known and not already the path's (tests), dimmed: where the code runs.
  const bool show_context = f.context != Context::Unknown && f.context != Context::Test;
  // In a notebook, the cell first: "cell 3:2:5".
  const Position at = shown_start(f);
  out << fmt::format("  {}{}:{}  {}  {}  {}{}\n", f.cell.index ? fmt::format("cell {}:", f.cell.index) : "", at.line,
                     at.column, st.severity(f.severity),
                     st.bold(f.check_id), visible_text(f.message),
                     show_context ? st.dim(fmt::format("  [{}{}]", to_string(f.context), f.discounted ? ", discounted" : ""))
                                  : std::string());
  if (!f.source_line.empty()) {
    write_code_frame(f, out, st);
    if (!f.hint.empty())
      out << fmt::format("  {} {} hint: {}\n", std::string(std::to_string(at.line).size(), ' '), st.dim("="),
                         visible_text(f.hint));
  } else if (!f.hint.empty()) {
    out << fmt::format("    hint: {}\n", visible_text(f.hint));
  }
}

std::string hours_range_text(HoursRange h) { return fmt::format("{:g}-{:g} h", h.low, h.high); }

void write_statistics(const ScanReport& report, std::ostream& out, const Style& st) {
  std::map<std::pair<std::string_view, std::string_view>, size_t> counts;
  for (const Finding& f : report.findings) ++counts[{f.check_id, f.check_name}];
  out << st.bold("Statistics") << "\n";
  for (const auto& [id, n] : counts) out << fmt::format("  {:>6}  {}  {}\n", n, id.first, id.second);
  out << "\n";
}

void write_score_explanation(const ScanReport& report, std::ostream& out, const Style& st) {
  using C = ScoringConstants;
  const ScoreSummary& s = report.score;
  const Tally& t = s.tally;
  const Shares& share = s.shares;
  out << st.bold("How the verdict and the score are computed") << " (docs/scoring.md)\n";
  out << fmt::format("  core code: {:.0f} lines (tests, benchmarks, examples and docs apart: path weight {:g}",
                     s.core_lines, report.path_weights.auxiliary);
  for (const auto& [glob, w] : report.path_weights.rules) out << fmt::format("; {}={:g}", visible_text(glob), w);
  out << ")\n";
  out << fmt::format("  GPU-only code (kernels with their C/C++/CUDA extension, code built on libraries with no TPU "
                     "path): {:.0f} lines = {:.1f}% of the core code; {:.0f} custom kernel{} with a known TPU path\n",
                     share.gpu_lines, 100 * share.gpu, t.core_kernels, t.core_kernels == 1 ? "" : "s");
  out << fmt::format("  code with no TPU path: {:.0f} lines = {:.1f}% of the core code, in {:.0f} finding{} of {:.1f} "
                     "engineer-hours\n",
                     share.novel_lines, 100 * share.novel, t.core_novel, t.core_novel == 1 ? "" : "s",
                     t.core_novel_hours);
  out << fmt::format("  core hours {:.1f}, of which real changes {:.1f}; core errors {:.0f}; hours weighted by path "
                     "{:.1f}\n",
                     t.core_hours, t.core_change_hours, t.core_errors, t.hours);
  out << fmt::format("  stay-on-gpu   if GPU-only code >= {:g}% of the core, or code with no TPU path >= {:g}% (either "
                     "at least {:g} lines), or its rewrite >= {:g} h; score 25 * exp(-{:g} * (GPU-only share + "
                     "no-TPU-path share) - hours / {:g})\n",
                     100 * C::kStayOnGpuShare, 100 * C::kStayOnGpuNovelShare, C::kStayOnGpuLines, C::kStayOnGpuHours,
                     C::kStayOnGpuShareWeight, C::kStayOnGpuScale);
  out << fmt::format("  significant   if any core kernel that is not trivial, any code with no TPU path, or >= {:g} core"
                     " hours of real changes; score 50 - 25 * (1 - exp(-hours / {:g}))\n",
                     C::kSignificantHours, C::kSignificantScale);
  out << fmt::format("  portable      if any core error, or > {:g} core hours; score 75 - 25 * (1 - exp(-hours / {:g}))\n",
                     C::kTpuReadyHours, C::kPortableScale);
  out << fmt::format("  tpu-ready     otherwise; score 100 - 25 * (1 - exp(-hours / {:g}))\n", C::kTpuReadyScale);
  out << fmt::format("  -> {}, score {:.1f}\n\n", to_string(s.verdict), s.score);
}

}  // namespace

void write_text(const ScanReport& report, std::ostream& out, const ReportOptions& options) {
  Style st{options.color};
  const InternedString* current = nullptr;
  for (const Finding& f : options.summary_only ? std::span<const Finding>() : std::span(report.findings)) {
    if (!current || *current != f.path) {
      if (current) out << "\n";
      out << st.bold(visible_text(f.path)) << "\n";
      current = &f.path;
    }
    write_finding(f, out, st);
  }
  if (current) out << "\n";
  if (options.statistics) write_statistics(report, out, st);
  if (options.explain_score) write_score_explanation(report, out, st);

  std::map<Category, size_t> by_category;
  for (const Finding& f : report.findings) ++by_category[f.category];
  out << st.bold("Summary") << "\n";
  out << fmt::format("  files      {} analyzed, {} skipped\n", report.analyzed, report.skipped.size());
  if (!report.unanalyzed.empty())
    out << fmt::format("  unanalyzed {} code file{} not analyzed (first: {}: {})\n", report.unanalyzed.size(), report.unanalyzed.size() == 1 ? "" : "s",
                       visible_text(report.unanalyzed.front().path), visible_text(report.unanalyzed.front().reason));
  std::string counts;
  for (const auto& [cat, n] : by_category) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", to_string(cat), n);
  out << fmt::format("  findings   {}{}\n", report.findings.size(), counts.empty() ? "" : " (" + counts + ")");
  for (const ScanReport::Hidden& h : report.hidden)
    out << fmt::format("  hidden     {} finding{} {} (still in the score)\n", h.count, h.count == 1 ? "" : "s",
                       visible_text(h.why));
  const ScoreSummary& s = report.score;
  std::string delta = options.previous_score ? fmt::format("  ({:+.1f} against {}: {:.1f})",
                                                           s.score - *options.previous_score, options.previous_label,
                                                           *options.previous_score)
                                             : "";
  out << fmt::format("  score      {} / 100{}\n", st.bold(fmt::format("{:.1f}", s.score)), delta);
  for (const CategoryScore& c : s.categories)
    out << fmt::format("    {:<48} {:>5.1f}  ({} finding{}, {})\n", display_name(c.category), c.score, c.findings,
                       c.findings == 1 ? "" : "s", hours_range_text(c.hours));
  out << fmt::format("  effort     {}\n", effort_text(s));
  out << fmt::format("  verdict    {}: {}\n", st.bold(to_string(s.verdict)), visible_text(s.verdict_reason));
  if (!report.plan.empty()) {
    constexpr size_t kTop = 5;
    out << fmt::format("  plan       {} work item{}, cheapest big wins first:\n", report.plan.size(),
                       report.plan.size() == 1 ? "" : "s");
    for (size_t i = 0; i < std::min(kTop, report.plan.size()); ++i) {
      const WorkItem& w = report.plan[i];
      out << fmt::format("    {}. {:<32} {:<6} {}, {} finding{}{} ({})\n", i + 1, "'" + visible_text(w.subject) + "'",
                         gain_text(w.score_gain), hours_range_text(w.hours), w.findings, w.findings == 1 ? "" : "s",
                         w.touch_lines ? fmt::format(" and {} line{} to touch", w.touch_lines, w.touch_lines == 1 ? "" : "s") : "",
                         visible_text(w.first_location));
      if (!w.parts.empty()) out << fmt::format("       with {}\n", visible_text(parts_summary(w)));
    }
    size_t touched = 0, items = 0;
    for (const WorkItem& w : report.plan)
      if (w.touch_lines) touched += w.touch_lines, ++items;
    if (touched)
      out << fmt::format("    the plan also lists {} line{} to touch with no finding of their own (CUDA types, constants and #includes, further uses of a removed API) in {} work item{}\n",
                         touched, touched == 1 ? "" : "s", items, items == 1 ? "" : "s");
    if (report.plan.size() > kTop) out << fmt::format("    ... {} more in the JSON, Markdown or HTML report\n", report.plan.size() - kTop);
  }
}

}  // namespace tpulint::report
