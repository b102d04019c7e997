// A streaming JSON writer whose output is byte for byte what nlohmann::json's dump(2) gives for
// the same document (two-space indent, "key": value, [] and {} when empty, invalid UTF-8
// replaced by U+FFFD), without building the document first: the JSON report of a large scan
// is written at the speed of its bytes. Keys and values go out in the order they are given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint::report {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);  // the next value or container is this member's

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(int64_t n);
  JsonWriter& value(uint64_t n);
  JsonWriter& value(int n) { return value(int64_t(n)); }
  JsonWriter& value(unsigned n) { return value(uint64_t(n)); }
  JsonWriter& value(double x);
  JsonWriter& value(const std::vector<std::string>& strings);  // an array of strings

  // `key(name).value(v)` in one call.
  template <typename T>
  JsonWriter& member(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

 private:
  // The separator, newline and indent the next element of the innermost container needs,
  // written at `at` (room for kMaxLead bytes, at a depth of at most kMaxLeadDepth); returns their end.
  static constexpr size_t kMaxLeadDepth = 64, kMaxLead = 2 + 2 * kMaxLeadDepth;
  char* lead(char* at);
  void before_value();  // lead(), appended, where an element needs it
  void begin(char open);
  void end(char close);

  std::string& out_;
  std::vector<uint32_t> counts_;  // per open container: elements written so far
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included, as nlohmann::json writes it.
void append_json_string(std::string& out, std::string_view s);
// A double as nlohmann::json's dump() writes it (its shortest form: "12.0", "0.35", "null" for NaN).
void append_json_number(std::string& out, double x);

}  // namespace tpulint::report
