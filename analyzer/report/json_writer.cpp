#include "report/json_writer.h"

#include "core/byte_scan.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tpulint::report {

namespace {

// What a byte needs in a JSON string: nothing, an escape, or (above 0x7F) nlohmann's UTF-8 handling.
enum ByteClass : uint8_t { kPlain, kEscape, kNonAscii };
constexpr std::array<uint8_t, 256> kByteClasses = [] {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c)
    classes[c] = c >= 0x80 ? kNonAscii : (c < 0x20 || c == '"' || c == '\\') ? kEscape : kPlain;
  return classes;
}();

}  // namespace

// The length of the run of plain bytes (printable ASCII but '"' and '\\') at the start of `s`,
// eight bytes at a time: a report's strings are long messages and hints, nearly all plain.
size_t plain_prefix(std::string_view s) {
  using namespace bytes;
  return plain_run(
      s,
      [](uint64_t w) {
        return any_byte_above_7f(w) | any_byte_below(w, 0x20) | any_byte_equal(w, '"') | any_byte_equal(w, '\\');
      },
      [](unsigned char c) { return kByteClasses[c] == kPlain; });
}

void append_json_string(std::string& out, std::string_view s) {
  // Text with bytes above 0x7F goes through nlohmann::json, whose handling of invalid UTF-8
  // (where one replacement character ends and the next byte starts) is the reference.
  const size_t start = out.size();
  const std::string_view whole = s;
  out += '"';
  for (;;) {
    const size_t plain = plain_prefix(s);
    out.append(s.data(), plain);
    if (plain == s.size()) break;
    const unsigned char c = static_cast<unsigned char>(s[plain]);
    if (kByteClasses[c] == kNonAscii) {
      out.resize(start);
      out += nlohmann::json(whole).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
    }
    s.remove_prefix(plain + 1);
  }
  out += '"';
}

void append_json_number(std::string& out, double x) {
  // The report's numbers are hours and scores rounded to two decimals. Such a value is written
  // as its hundredths (12.0, 0.35, 1461.5) when h / 100, correctly rounded, is exactly the
  // double: then the text reads back as it, which makes it the shortest form, nlohmann's.
  // Anything else is nlohmann's to write.
  if (std::isfinite(x) && x != 0 && std::fabs(x) < 1e13) {
    const double hundredths = std::round(x * 100);
    if (double(int64_t(hundredths)) / 100 == x) {
      const int64_t h = int64_t(hundredths);
      const uint64_t magnitude = uint64_t(h < 0 ? -h : h);
      char text[32];
      char* end = text;
      if (h < 0) *end++ = '-';
      end = std::to_chars(end, text + sizeof text, magnitude / 100).ptr;
      *end++ = '.';
      *end++ = char('0' + magnitude % 100 / 10);
      *end++ = char('0' + magnitude % 10);
      if (end[-1] == '0') --end;  // "0.30" -> "0.3", "12.00" -> "12.0"
      if (end[-1] == '0' && end[-2] != '.') --end;
      out.append(text, end);
      return;
    }
  }
  out += nlohmann::json(x).dump();
}

char* JsonWriter::lead(char* at) {
  if (counts_.back()++ != 0) *at++ = ',';
  *at++ = '\n';
  std::memset(at, ' ', 2 * counts_.size());
  return at + 2 * counts_.size();
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (counts_.empty()) return;  // the top-level value
  if (counts_.size() <= kMaxLeadDepth) {
    char text[kMaxLead];
    out_.append(text, size_t(lead(text) - text));
  } else {
    out_ += counts_.back()++ == 0 ? "\n" : ",\n";
    out_.append(2 * counts_.size(), ' ');
  }
}

JsonWriter& JsonWriter::key(std::string_view name) {
  // A member name is a short identifier: the separator and indent before it, the name in quotes
  // and ": " go out in one append. A report has about twenty per finding.
  constexpr size_t kMaxName = 64;
  char text[kMaxLead + 1 + kMaxName + 3];
  if (!after_key_ && !counts_.empty() && counts_.size() <= kMaxLeadDepth && name.size() <= kMaxName &&
      plain_prefix(name) == name.size()) {
    char* at = lead(text);
    *at++ = '"';
    std::memcpy(at, name.data(), name.size());
    at += name.size();
    std::memcpy(at, "\": ", 3);
    out_.append(text, size_t(at + 3 - text));
  } else {
    before_value();
    append_json_string(out_, name);
    out_ += ": ";
  }
  after_key_ = true;
  return *this;
}

void JsonWriter::begin(char open) {
  before_value();
  out_ += open;
  counts_.push_back(0);
}

void JsonWriter::end(char close) {
  bool empty = counts_.back() == 0;
  counts_.pop_back();
  if (!empty) {
    out_ += '\n';
    out_.append(2 * counts_.size(), ' ');
  }
  out_ += close;
}

JsonWriter& JsonWriter::begin_object() {
  begin('{');
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  end('}');
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  begin('[');
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  end(']');
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_json_string(out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  before_value();
  char text[24];
  out_.append(text, std::to_chars(text, text + sizeof text, n).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  before_value();
  char text[24];
  out_.append(text, std::to_chars(text, text + sizeof text, n).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(double x) {
  before_value();
  append_json_number(out_, x);
  return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& strings) {
  begin_array();
  for (const std::string& s : strings) value(s);
  return end_array();
}

}  // namespace tpulint::report
