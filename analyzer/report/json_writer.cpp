#include "report/json_writer.h"

#include "core/byte_scan.h"
#include "report/visible_text.h"

#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <ostream>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tpulint::report {

namespace {

// What a byte needs in a JSON string: nothing, an escape, or (above 0x7F) nlohmann's UTF-8 handling
// and the escape of C1 and bidirectional controls.
enum ByteClass : uint8_t { kPlain, kEscape, kNonAscii };
constexpr std::array<uint8_t, 256> kByteClasses = [] {
  std::array<uint8_t, 256> classes{};
  for (int c = 0; c < 256; ++c)
    classes[c] = c >= 0x80 ? kNonAscii : (c < 0x20 || c == '"' || c == '\\') ? kEscape : kPlain;
  return classes;
}();

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

// Copies the run of plain bytes at the start of `s` to `at` and returns its length; `at` has
// room for s.size() bytes. With SSE2 (every x86-64), sixteen bytes are tested and copied at a
// time: the parent of a large scan writes megabytes of messages, hints and source lines. Up to
// fifteen bytes past the run may be copied too, into room the caller has not yet used.
size_t copy_plain_prefix(char* at, std::string_view s) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(at + i), v);
    // A signed comparison: bytes above 0x7F are negative, so they are "below 0x20" too.
    const __m128i special =
        _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (const unsigned mask = unsigned(_mm_movemask_epi8(special))) return i + size_t(std::countr_zero(mask));
  }
#endif
  const size_t rest = plain_prefix(s.substr(i));
  if (rest != 0) std::memcpy(at + i, s.data() + i, rest);
  return i + rest;
}

// The escape of a byte kByteClasses marks kEscape, written at `at`; returns its end.
char* write_escape(char* at, unsigned char c) {
  *at++ = '\\';
  switch (c) {
    case '"': *at++ = '"'; break;
    case '\\': *at++ = '\\'; break;
    case '\b': *at++ = 'b'; break;
    case '\f': *at++ = 'f'; break;
    case '\n': *at++ = 'n'; break;
    case '\r': *at++ = 'r'; break;
    case '\t': *at++ = 't'; break;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      std::memcpy(at, "u00", 3);
      at[3] = kHex[c >> 4];
      at[4] = kHex[c & 15];
      at += 5;
    }
  }
  return at;
}

// Text with bytes above 0x7F goes through nlohmann::json, whose handling of invalid UTF-8
// (where one replacement character ends and the next byte starts) is the reference.
std::string nlohmann_string(std::string_view s) {
  return json_with_escaped_controls(nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// `x` as nlohmann writes it, at `at` (room for 32 bytes); returns its end.
char* write_number(char* at, double x) {
  // The report's numbers are hours and scores rounded to two decimals. Such a value is written
  // as its hundredths (12.0, 0.35, 1461.5) when h / 100, correctly rounded, is exactly the
  // double: then the text reads back as it, which makes it the shortest form, nlohmann's.
  // Anything else is nlohmann's to write.
  if (std::isfinite(x) && x != 0 && std::fabs(x) < 1e13) {
    const double hundredths = std::round(x * 100);
    if (double(int64_t(hundredths)) / 100 == x) {
      const int64_t h = int64_t(hundredths);
      const uint64_t magnitude = uint64_t(h < 0 ? -h : h);
      if (h < 0) *at++ = '-';
      at = std::to_chars(at, at + 24, magnitude / 100).ptr;
      *at++ = '.';
      *at++ = char('0' + magnitude % 100 / 10);
      *at++ = char('0' + magnitude % 10);
      if (at[-1] == '0') --at;  // "0.30" -> "0.3", "12.00" -> "12.0"
      if (at[-1] == '0' && at[-2] != '.') --at;
      return at;
    }
  }
  const std::string text = nlohmann::json(x).dump();  // at most 24 bytes ("-1.7976931348623157e+308")
  std::memcpy(at, text.data(), text.size());
  return at + text.size();
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) { JsonWriter(out).value(s); }

void append_json_number(std::string& out, double x) { JsonWriter(out).value(x); }

JsonWriter::JsonWriter(std::string& out)
    : string_out_(&out), buffer_(new char[kBufferBytes]), pos_(buffer_.get()), end_(pos_ + kBufferBytes) {}

JsonWriter::JsonWriter(std::ostream& out)
    : stream_out_(&out), buffer_(new char[kBufferBytes]), pos_(buffer_.get()), end_(pos_ + kBufferBytes) {}

JsonWriter::~JsonWriter() { drain(); }

JsonWriter::JsonWriter(std::string& out, LaterElements at) : JsonWriter(out) { counts_.assign(at.depth, 1); }

JsonWriter& JsonWriter::elements(std::string_view text, size_t n) {
  if (n == 0) return *this;
  if (counts_.back() == 0 && text.starts_with(',')) text.remove_prefix(1);
  put(text);
  counts_.back() += uint32_t(n);
  return *this;
}

void JsonWriter::flush() {
  drain();
  if (stream_out_) stream_out_->flush();
}

void JsonWriter::drain() {
  const size_t n = size_t(pos_ - buffer_.get());
  if (string_out_) string_out_->append(buffer_.get(), n);
  if (stream_out_) stream_out_->write(buffer_.get(), std::streamsize(n));
  pos_ = buffer_.get();
}

void JsonWriter::put(std::string_view bytes) {
  while (!bytes.empty()) {
    if (pos_ == end_) drain();
    const size_t n = std::min(bytes.size(), size_t(end_ - pos_));
    std::memcpy(pos_, bytes.data(), n);
    pos_ += n;
    bytes.remove_prefix(n);
  }
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (counts_.empty()) return;  // the top-level value
  if (counts_.size() <= kMaxLeadDepth) {
    pos_ = lead(room(kMaxLead));
  } else {
    if (counts_.back()++ != 0) put(",");
    newline();
  }
}

void JsonWriter::newline() {
  if (counts_.size() <= kMaxLeadDepth) {
    pos_ = indent(room(kMaxLead));
  } else {
    put("\n");
    for (size_t i = 0; i < counts_.size(); ++i) put("  ");
  }
}

void JsonWriter::string(std::string_view s) {
  if (s.size() > kMaxWholeString) return long_string(s);
  // The whole literal fits in the buffer from `start`, so a non-ASCII byte found halfway can
  // take back what was written of it.
  char* const start = room(6 * s.size() + 2);
  const std::string_view whole = s;
  char* at = start;
  *at++ = '"';
  for (;;) {
    const size_t plain = copy_plain_prefix(at, s);
    at += plain;
    if (plain == s.size()) break;
    const unsigned char c = static_cast<unsigned char>(s[plain]);
    if (kByteClasses[c] == kNonAscii) {
      pos_ = start;
      return put(nlohmann_string(whole));
    }
    at = write_escape(at, c);
    s.remove_prefix(plain + 1);
  }
  *at++ = '"';
  pos_ = at;
}

void JsonWriter::long_string(std::string_view s) {
  const size_t plain_or_escape = bytes::plain_run(
      s, [](uint64_t w) { return bytes::any_byte_above_7f(w); }, [](unsigned char c) { return c < 0x80; });
  if (plain_or_escape < s.size()) return put(nlohmann_string(s));
  put("\"");
  for (;;) {
    const size_t plain = plain_prefix(s);
    put(s.substr(0, plain));
    if (plain == s.size()) break;
    pos_ = write_escape(room(6), static_cast<unsigned char>(s[plain]));
    s.remove_prefix(plain + 1);
  }
  put("\"");
}

JsonWriter& JsonWriter::piecewise_key(Name name) {
  before_value();
  put("\"");
  put(std::string_view(name.data(), name.size()));
  put("\": ");
  after_key_ = true;
  return *this;
}

void JsonWriter::begin(char open) {
  before_value();
  *room(1) = open;
  ++pos_;
  counts_.push_back(0);
}

void JsonWriter::end(char close) {
  bool empty = counts_.back() == 0;
  counts_.pop_back();
  if (!empty) newline();
  *room(1) = close;
  ++pos_;
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
  string(s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  put(b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(int64_t n) {
  before_value();
  pos_ = std::to_chars(room(24), end_, n).ptr;
  return *this;
}

JsonWriter& JsonWriter::value(uint64_t n) {
  before_value();
  pos_ = std::to_chars(room(24), end_, n).ptr;
  return *this;
}

JsonWriter& JsonWriter::value(double x) {
  before_value();
  pos_ = write_number(room(32), x);
  return *this;
}

JsonWriter& JsonWriter::value(const std::vector<std::string>& strings) {
  begin_array();
  for (const std::string& s : strings) value(s);
  return end_array();
}

}  // namespace tpulint::report
