#include "core/finding.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>

namespace tpulint {

bool finding_less(const Finding& a, const Finding& b) {
  return std::tie(a.path, a.start, a.check_id, a.end, a.message) <
         std::tie(b.path, b.start, b.check_id, b.end, b.message);
}

std::string location_text(const Finding& f) {
  if (f.cell.index) return fmt::format("{}:cell {}:{}", f.path, f.cell.index, f.cell.start.line);
  return fmt::format("{}:{}", f.path, f.start.line);
}

Position shown_start(const Finding& f) { return f.cell.index ? f.cell.start : f.start; }
Position shown_end(const Finding& f) { return f.cell.index ? f.cell.end : f.end; }

namespace {
std::string_view source_line_of(std::string_view line, std::string& cut) {
  if (line.size() <= kSourceLineBytes) return line;
  size_t end = kSourceLineBytes;
  while (end > 0 && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) --end;  // not inside a code point
  cut.assign(line.substr(0, end)).append("\u2026");
  return cut;
}

// The fields a finding takes from its check.
void set_from_check(Finding& f, const CheckInfo& check) {
  f.check_id = check.id;
  f.check_name = check.name;
  f.category = check.category();
  f.severity = check.severity;
  f.effort = check.effort;
  f.hours = check.hours;
}
}  // namespace

Finding& FindingSink::add(const CheckInfo& check, ByteSpan span, std::string_view message, std::string_view hint,
                          std::string_view subject) {
  // Interned before the finding is added: a view into another finding must not move under it.
  InternedString interned_message(message), interned_hint(hint), interned_subject(subject);
  Finding& f = out_.emplace_back();  // built in place rather than moved in
  set_from_check(f, check);
  f.path = file_.path();
  f.start = file_.position(span.begin);
  f.end = file_.position(span.end > span.begin ? span.end : span.begin);
  f.message = interned_message;
  f.hint = interned_hint;
  f.subject = interned_subject;
  std::string cut;
  f.source_line = InternedString(source_line_of(file_.line_text(f.start.line), cut));
  if (offsets_) offsets_->push_back(span.begin);
  return f;
}

void FindingSink::touch(const CheckInfo& check, ByteSpan span, std::string_view subject) {
  if (!touches_) return;
  touches_->push_back({std::string(check.id), check.category(), std::string(subject), file_.position(span.begin).line});
}

void settle_touch_lines(std::vector<TouchLine>& touches, std::span<const Finding> findings) {
  std::set<std::pair<std::string_view, uint32_t>> reported;  // (check, line) of the findings
  for (const Finding& f : findings) reported.emplace(f.check_id, f.start.line);
  std::erase_if(touches, [&](const TouchLine& t) { return reported.count({t.check_id, t.line}) != 0; });
  std::sort(touches.begin(), touches.end());
  touches.erase(std::unique(touches.begin(), touches.end()), touches.end());
}

Finding file_note(const CheckInfo& note, std::string path, std::string_view message) {
  Finding f;
  set_from_check(f, note);
  f.path = std::move(path);
  f.start = f.end = {1, 1};
  f.message = InternedString(message);
  return f;
}

bool is_file_note(const Finding& f) {
  return f.category == Category::AnalyzerNote && f.start == Position{1, 1} && f.end == f.start && f.source_line.empty();
}

}  // namespace tpulint
