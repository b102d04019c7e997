#include "report/json_writer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tpulint::report {

void append_json_string(std::string& out, std::string_view s) {
  // Text with bytes above 0x7F goes through nlohmann::json, whose handling of invalid UTF-8
  // (where one replacement character ends and the next byte starts) is the reference; plain
  // ASCII, nearly every string of a report, is escaped here.
  for (unsigned char c : s) {
    if (c >= 0x80) {
      out += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      return;
    }
  }
  out += '"';
  size_t copied = 0;  // s[copied, i) needs no escape: appended in one piece
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + copied, i - copied);
    copied = i + 1;
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
  }
  out.append(s.data() + copied, s.size() - copied);
  out += '"';
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (counts_.empty()) return;  // the top-level value
  out_ += counts_.back()++ ? ",\n" : "\n";
  out_.append(2 * counts_.size(), ' ');
}

JsonWriter& JsonWriter::key(std::string_view name) {
  before_value();
  append_json_string(out_, name);
  out_ += ": ";
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
  fmt::format_to(std::back_inserter(out_), "{}", n);
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  before_value();
  fmt::format_to(std::back_inserter(out_), "{}", n);
  return *this;
}

JsonWriter& JsonWriter::value(double x) {
  before_value();
  out_ += nlohmann::json(x).dump();  // nlohmann's shortest form ("12.0", "0.35", "null" for NaN)
  return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& strings) {
  begin_array();
  for (const std::string& s : strings) value(s);
  return end_array();
}

}  // namespace tpulint::report
