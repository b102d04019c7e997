// A streaming JSON writer whose output is byte for byte what nlohmann::json's dump(2) gives for
// the same document (two-space indent, "key": value, [] and {} when empty, invalid UTF-8
// replaced by U+FFFD), without building the document first: the JSON report of a large scan
// is written at the speed of its bytes. Keys and values go out in the order they are given.
#pragma once

#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tpulint::report {

class JsonWriter {
 public:
  // Bytes are gathered in a buffer of its own and passed on to `out` when it is full, on
  // flush() and when the writer is destroyed: a report of tens of MB is never held whole.
  explicit JsonWriter(std::string& out);
  explicit JsonWriter(std::ostream& out);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void flush();

  // A writer of a run of elements of an array `depth` containers deep, the run coming after at
  // least one element; its text is put back with elements(). So a long array can be formatted
  // in pieces on other threads.
  struct LaterElements {
    size_t depth;
  };
  JsonWriter(std::string& out, LaterElements at);
  // `n` elements of the innermost array, as a LaterElements writer at this depth wrote
  // them (a separator first); the separator is dropped if they are the array's first.
  JsonWriter& elements(std::string_view text, size_t n);

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  // A member's name: a string literal, checked as it is compiled to be at most kMaxName bytes
  // of printable ASCII without '"' or '\\', so that it is written as it is, unexamined. A
  // report has about twenty members per finding.
  class Name {
   public:
    consteval Name(const char* text) : text_(text) {
      while (text[size_] != 0) {
        const char c = text[size_++];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') throw "a member name needs no escape";
      }
      if (size_ > kMaxName) throw "a member name is at most kMaxName bytes";
    }
    const char* data() const { return text_; }
    size_t size() const { return size_; }

   private:
    const char* text_;
    size_t size_ = 0;
  };

  // The next value or container is this member's. Inline, so that a literal name's length is
  // known where it is written: a report writes about twenty members per finding, and the
  // separator, indent, quoted name and ": " then go out as a few fixed-size copies.
  JsonWriter& key(Name name) {
    if (!after_key_ && !counts_.empty() && counts_.size() <= kMaxLeadDepth) [[likely]] {
      char* at = lead(room(kMaxLead + 1 + kMaxName + 3));
      *at++ = '"';
      std::memcpy(at, name.data(), name.size());
      at += name.size();
      std::memcpy(at, "\": ", 3);
      pos_ = at + 3;
      after_key_ = true;
      return *this;
    }
    return piecewise_key(name);
  }

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
  JsonWriter& member(Name name, const T& v) {
    key(name);
    return value(v);
  }

 private:
  static constexpr size_t kBufferBytes = size_t(1) << 16;  // small enough to stay in cache
  // The separator, newline and indent the next element of the innermost container needs take
  // at most kMaxLead bytes up to a depth of kMaxLeadDepth.
  static constexpr size_t kMaxLeadDepth = 64, kMaxLead = 2 + 2 * kMaxLeadDepth;
  static constexpr size_t kMaxName = 64;
  static constexpr char kSpaces[2 * kMaxLeadDepth + 1] =
      "                                                                "
      "                                                                ";
  static_assert(sizeof kSpaces == 2 * kMaxLeadDepth + 1);
  // The longest string written in one piece: escaped, each byte takes at most six ("\u001f").
  static constexpr size_t kMaxWholeString = (kBufferBytes - 2) / 6;

  // A place for `n` more bytes (n <= kBufferBytes) at pos_; the caller moves pos_ past what it wrote.
  char* room(size_t n) {
    if (size_t(end_ - pos_) < n) drain();
    return pos_;
  }
  void drain();                                  // the buffer's bytes to the output
  void put(std::string_view bytes);              // any length
  // The lead (a separator but before the first element, a newline and the indent) at `at`, for
  // a depth of at most kMaxLeadDepth; returns its end.
  char* lead(char* at) {
    if (counts_.back()++ != 0) *at++ = ',';
    return indent(at);
  }
  // A newline and the current depth's indent at `at`: spaces are copied in a fixed size (16, or
  // the longest indent; the buffer has room for it) and the end put where this depth's ends.
  char* indent(char* at) const {
    *at++ = '\n';
    const size_t n = 2 * counts_.size();
    if (n <= 16) std::memcpy(at, kSpaces, 16);
    else std::memcpy(at, kSpaces, 2 * kMaxLeadDepth);
    return at + n;
  }
  // key() where its fixed-size pieces do not apply: at the top level, deeper than
  // kMaxLeadDepth, or right after another key (a misuse the writer still writes out).
  JsonWriter& piecewise_key(Name name);
  void before_value();                           // the lead, where an element needs it
  void newline();                                // a newline and the indent of the current depth
  void string(std::string_view s);               // `s` as a string literal
  void long_string(std::string_view s);          // the same, for a string too long for the buffer
  void begin(char open);
  void end(char close);

  std::string* string_out_ = nullptr;
  std::ostream* stream_out_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  char* pos_;
  char* end_;
  std::vector<uint32_t> counts_;  // per open container: elements written so far
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included, as nlohmann::json writes it.
void append_json_string(std::string& out, std::string_view s);
// A double as nlohmann::json's dump() writes it (its shortest form: "12.0", "0.35", "null" for NaN).
void append_json_number(std::string& out, double x);

}  // namespace tpulint::report
