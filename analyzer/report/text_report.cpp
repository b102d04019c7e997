#include "report/text_report.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "core/source_file.h"

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

// The first `n` code points of `line` with everything but tabs turned into spaces, so that a
// caret line printed under the source line lines up with it.
std::string pad_like(std::string_view line, uint32_t n) {
  std::string out;
  uint32_t seen = 0;
  for (size_t i = 0; i < line.size() && seen < n; ++i) {
    unsigned char c = line[i];
    if ((c & 0xC0) == 0x80) continue;
    out += c == '\t' ? '\t' : ' ';
    ++seen;
  }
  while (seen++ < n) out += ' ';
  return out;
}

void write_finding(const Finding& f, std::ostream& out, const Style& st) {
  out << fmt::format("  {}:{}  {}  {}  {}\n", f.start.line, f.start.column, st.severity(f.severity),
                     st.bold(f.check_id), f.message);
  if (!f.source_line.empty()) {
    std::string num = std::to_string(f.start.line);
    std::string gutter(num.size(), ' ');
    out << fmt::format("  {} {}\n", gutter, st.dim("|"));
    out << fmt::format("  {} {} {}\n", st.dim(num), st.dim("|"), f.source_line);
    // Carets under what the line shows: a long line's is cut (kSourceLineBytes), and a finding
    // past the cut gets none.
    uint32_t line_len = count_code_points(f.source_line);
    uint32_t end_col = f.end.line == f.start.line ? std::min(f.end.column, line_len + 1) : line_len + 1;
    uint32_t width = end_col > f.start.column ? end_col - f.start.column : 1;
    if (f.start.column <= line_len + 1)
      out << fmt::format("  {} {} {}{}\n", gutter, st.dim("|"), pad_like(f.source_line, f.start.column - 1),
                         st.wrap("1;31", std::string(width, '^')));
    if (!f.hint.empty()) out << fmt::format("  {} {} hint: {}\n", gutter, st.dim("="), f.hint);
  } else if (!f.hint.empty()) {
    out << fmt::format("    hint: {}\n", f.hint);
  }
}

std::string hours_range_text(HoursRange h) { return fmt::format("{:g}-{:g} h", h.low, h.high); }

std::string hours_text(HoursRange h) {
  return fmt::format("{:.1f}-{:.1f} engineer-hours ({:.1f}-{:.1f} engineer-days)", h.low, h.high, h.low / 8,
                     h.high / 8);
}

void write_statistics(const ScanReport& report, std::ostream& out, const Style& st) {
  std::map<std::pair<std::string_view, std::string_view>, size_t> counts;
  for (const Finding& f : report.findings) ++counts[{f.check_id, f.check_name}];
  out << st.bold("Statistics") << "\n";
  for (const auto& [id, n] : counts) out << fmt::format("  {:>6}  {}  {}\n", n, id.first, id.second);
  out << "\n";
}

void write_score_explanation(const ScanReport& report, std::ostream& out, const Style& st) {
  using C = ScoringConstants;
  out << st.bold("How the score is computed") << " (docs/scoring.md)\n";
  out << fmt::format("  score = 100 * exp(-P / {:g});  P = sum over (check, effort) of cap * (1 - exp(-S / cap))\n",
                     C::kScale);
  out << fmt::format("  S = sum of finding weight * path weight; weight (cap): high {:g} ({:g}), medium {:g} ({:g}), "
                     "low {:g} ({:g})\n",
                     C::kWeightHigh, C::kCapHigh, C::kWeightMedium, C::kCapMedium, C::kWeightLow, C::kCapLow);
  out << fmt::format("  path weight: 1, or {:g} under tests/, benchmarks/, examples/, docs/", report.path_weights.auxiliary);
  for (const auto& [glob, w] : report.path_weights.rules) out << fmt::format("; {}={:g}", glob, w);
  out << "\n";
  PenaltyModel model(report.path_weights);
  for (const Finding& f : report.findings) model.add(f);
  for (const PenaltyModel::Term& t : model.terms())
    out << fmt::format("    {}  {:<6}  S = {:>7.2f}  adds {:>6.2f} to P\n", t.check_id, to_string(t.effort), t.sum,
                       t.penalty);
  out << fmt::format("  P = {:.2f}  ->  score {:.1f}\n\n", model.penalty(), score_from_penalty(model.penalty()));
}

}  // namespace

void write_text(const ScanReport& report, std::ostream& out, const ReportOptions& options) {
  Style st{options.color};
  const InternedString* current = nullptr;
  for (const Finding& f : report.findings) {
    if (!current || *current != f.path) {
      if (current) out << "\n";
      out << st.bold(f.path) << "\n";
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
  std::string counts;
  for (const auto& [cat, n] : by_category) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", to_string(cat), n);
  out << fmt::format("  findings   {}{}\n", report.findings.size(), counts.empty() ? "" : " (" + counts + ")");
  for (const ScanReport::Hidden& h : report.hidden)
    out << fmt::format("  hidden     {} finding{} {} (still in the score)\n", h.count, h.count == 1 ? "" : "s", h.why);
  const ScoreSummary& s = report.score;
  std::string delta = options.previous_score ? fmt::format("  ({:+.1f} against {}: {:.1f})",
                                                           s.score - *options.previous_score, options.previous_label,
                                                           *options.previous_score)
                                             : "";
  out << fmt::format("  score      {} / 100{}\n", st.bold(fmt::format("{:.1f}", s.score)), delta);
  for (const CategoryScore& c : s.categories)
    out << fmt::format("    {:<48} {:>5.1f}  ({} finding{}, {})\n", display_name(c.category), c.score, c.findings,
                       c.findings == 1 ? "" : "s", hours_range_text(c.hours));
  out << fmt::format("  effort     {}\n", hours_text(s.hours));
  out << fmt::format("  verdict    {}: {}\n", st.bold(to_string(s.verdict)), s.verdict_reason);
  if (!report.plan.empty()) {
    constexpr size_t kTop = 5;
    out << fmt::format("  plan       {} work item{}, cheapest big wins first:\n", report.plan.size(),
                       report.plan.size() == 1 ? "" : "s");
    for (size_t i = 0; i < std::min(kTop, report.plan.size()); ++i) {
      const WorkItem& w = report.plan[i];
      out << fmt::format("    {}. {:<32} +{:<5.1f} {}, {} finding{} ({})\n", i + 1, "'" + w.subject + "'", w.score_gain,
                         hours_range_text(w.hours), w.findings, w.findings == 1 ? "" : "s", w.first_location);
      if (!w.parts.empty()) out << fmt::format("       with {}\n", parts_summary(w));
    }
    if (report.plan.size() > kTop) out << fmt::format("    ... {} more in the JSON, Markdown or HTML report\n", report.plan.size() - kTop);
  }
}

}  // namespace tpulint::report
