#include "core/finding.h"

#include <tuple>

namespace tpulint {

bool finding_less(const Finding& a, const Finding& b) {
  return std::tie(a.path, a.start, a.check_id, a.end, a.message) <
         std::tie(b.path, b.start, b.check_id, b.end, b.message);
}

namespace {
Finding from_check(const CheckInfo& check) {
  Finding f;
  f.check_id = std::string(check.id);
  f.check_name = std::string(check.name);
  f.category = check.category();
  f.severity = check.severity;
  f.effort = check.effort;
  f.hours = check.hours;
  return f;
}
}  // namespace

Finding& FindingSink::add(const CheckInfo& check, ByteSpan span, std::string message, std::string hint,
                          std::string subject) {
  Finding f = from_check(check);
  f.path = file_.path();
  f.start = file_.position(span.begin);
  f.end = file_.position(span.end > span.begin ? span.end : span.begin);
  f.message = std::move(message);
  f.hint = std::move(hint);
  f.subject = std::move(subject);
  f.source_line = std::string(file_.line_text(f.start.line));
  out_.push_back(std::move(f));
  return out_.back();
}

Finding file_note(const CheckInfo& note, std::string path, std::string message) {
  Finding f = from_check(note);
  f.path = std::move(path);
  f.start = f.end = {1, 1};
  f.message = std::move(message);
  return f;
}

}  // namespace tpulint
