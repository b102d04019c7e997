#include "report/text_report.h"

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
    uint32_t line_len = count_code_points(f.source_line);
    uint32_t end_col = f.end.line == f.start.line ? f.end.column : line_len + 1;
    uint32_t width = end_col > f.start.column ? end_col - f.start.column : 1;
    out << fmt::format("  {} {} {}{}\n", gutter, st.dim("|"), pad_like(f.source_line, f.start.column - 1),
                       st.wrap("1;31", std::string(width, '^')));
    if (!f.hint.empty()) out << fmt::format("  {} {} hint: {}\n", gutter, st.dim("="), f.hint);
  } else if (!f.hint.empty()) {
    out << fmt::format("    hint: {}\n", f.hint);
  }
}

std::string hours_text(HoursRange h) {
  return fmt::format("{:.1f}-{:.1f} engineer-hours ({:.1f}-{:.1f} engineer-days)", h.low, h.high, h.low / 8,
                     h.high / 8);
}

}  // namespace

void write_text(const ScanReport& report, std::ostream& out, const TextOptions& options) {
  Style st{options.color};
  const std::string* current = nullptr;
  for (const Finding& f : report.findings) {
    if (!current || *current != f.path) {
      if (current) out << "\n";
      out << st.bold(f.path) << "\n";
      current = &f.path;
    }
    write_finding(f, out, st);
  }
  if (current) out << "\n";

  std::map<Category, size_t> by_category;
  for (const Finding& f : report.findings) ++by_category[f.category];
  out << st.bold("Summary") << "\n";
  out << fmt::format("  files      {} analyzed, {} skipped\n", report.analyzed, report.skipped.size());
  std::string counts;
  for (const auto& [cat, n] : by_category) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", to_string(cat), n);
  out << fmt::format("  findings   {}{}\n", report.findings.size(), counts.empty() ? "" : " (" + counts + ")");
  const ScoreSummary& s = report.score;
  out << fmt::format("  score      {} / 100\n", st.bold(fmt::format("{:.1f}", s.score)));
  for (const CategoryScore& c : s.categories)
    out << fmt::format("    {:<48} {:>5.1f}  ({} finding{})\n", display_name(c.category), c.score, c.findings,
                       c.findings == 1 ? "" : "s");
  out << fmt::format("  effort     {}\n", hours_text(s.hours));
  out << fmt::format("  verdict    {}: {}\n", st.bold(to_string(s.verdict)), s.verdict_reason);
}

}  // namespace tpulint::report
