#include "report/text_report.h"

#include <fmt/format.h>
#include <map>

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
  const uint32_t start = std::max(f.start.column, 1u) - 1;  // 0-based columns, `end` past the last
  const uint32_t end = f.end.line == f.start.line ? std::max(f.end.column, 1u) - 1 : count_code_points(line);
  const size_t from = column_offset(line, start), to = column_offset(line, std::max(start, end));
  const uint32_t past_the_end = start - count_code_points(line.substr(0, from));  // a start beyond the line
  const uint32_t width = std::max(count_code_points(visible_text(line.substr(from, to - from))), 1u);

  std::string num = std::to_string(f.start.line);
  std::string gutter(num.size(), ' ');
  out << fmt::format("  {} {}\n", gutter, st.dim("|"));
  out << fmt::format("  {} {} {}\n", st.dim(num), st.dim("|"), visible_text(line));
  out << fmt::format("  {} {} {}{}{}\n", gutter, st.dim("|"), blank_like(visible_text(line.substr(0, from))),
                     std::string(past_the_end, ' '), st.wrap("1;31", std::string(width, '^')));
}

void write_finding(const Finding& f, std::ostream& out, const Style& st) {
  out << fmt::format("  {}:{}  {}  {}  {}\n", f.start.line, f.start.column, st.severity(f.severity),
                     st.bold(f.check_id), visible_text(f.message));
  if (!f.source_line.empty()) {
    write_code_frame(f, out, st);
    if (!f.hint.empty())
      out << fmt::format("  {} {} hint: {}\n", std::string(std::to_string(f.start.line).size(), ' '), st.dim("="),
                         visible_text(f.hint));
  } else if (!f.hint.empty()) {
    out << fmt::format("    hint: {}\n", visible_text(f.hint));
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
  for (const auto& [glob, w] : report.path_weights.rules) out << fmt::format("; {}={:g}", visible_text(glob), w);
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
  out << fmt::format("  effort     {}\n", hours_text(s.hours));
  out << fmt::format("  verdict    {}: {}\n", st.bold(to_string(s.verdict)), visible_text(s.verdict_reason));
  if (!report.plan.empty()) {
    constexpr size_t kTop = 5;
    out << fmt::format("  plan       {} work item{}, cheapest big wins first:\n", report.plan.size(),
                       report.plan.size() == 1 ? "" : "s");
    for (size_t i = 0; i < std::min(kTop, report.plan.size()); ++i) {
      const WorkItem& w = report.plan[i];
      out << fmt::format("    {}. {:<32} +{:<5.1f} {}, {} finding{} ({})\n", i + 1, "'" + visible_text(w.subject) + "'",
                         w.score_gain, hours_range_text(w.hours), w.findings, w.findings == 1 ? "" : "s",
                         visible_text(w.first_location));
      if (!w.parts.empty()) out << fmt::format("       with {}\n", visible_text(parts_summary(w)));
    }
    if (report.plan.size() > kTop) out << fmt::format("    ... {} more in the JSON, Markdown or HTML report\n", report.plan.size() - kTop);
  }
}

}  // namespace tpulint::report
