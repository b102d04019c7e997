#include "report/visible_text.h"

#include <fmt/format.h>

namespace tpulint::report {

namespace {

// The length of the well-formed UTF-8 sequence that starts `s`, with its code point in `cp`, or 0:
// no overlong form, no surrogate, nothing past U+10FFFF (RFC 3629).
size_t decode_utf8(std::string_view s, char32_t& cp) {
  const unsigned char lead = s[0];
  size_t length = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    cp = lead & 0x0F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    cp = lead & 0x07;
  } else {
    return 0;
  }
  if (s.size() < length) return 0;
  for (size_t i = 1; i < length; ++i) {
    const unsigned char c = s[i];
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  if ((length == 3 && cp < 0x800) || (length == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return length;
}

bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

std::string escape(std::string_view text, bool field) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = text[i];
    if (c >= 0x20 && c < 0x7F) {
      if (field && c == '\\') out += '\\';
      out += char(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else if (c == '\t') out += field ? "\\t" : "\t";
      else out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const size_t length = decode_utf8(text.substr(i), cp);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    if (cp <= 0x9F) out += fmt::format("\\x{:02x}", unsigned(cp));
    else if (is_bidi_control(cp)) out += fmt::format("\\u{:04x}", unsigned(cp));
    else out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

}  // namespace

std::string json_with_escaped_controls(std::string json) {
  // Every such control is encoded with a lead byte 0xC2 (C1), 0xD8 (U+061C) or 0xE2.
  if (json.find_first_of("\xC2\xD8\xE2") == std::string::npos) return json;
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size();) {
    char32_t cp = 0;
    const size_t length = static_cast<unsigned char>(json[i]) < 0x80 ? 0 : decode_utf8(std::string_view(json).substr(i), cp);
    if (length && (cp <= 0x9F || is_bidi_control(cp))) {
      out += fmt::format("\\u{:04x}", unsigned(cp));
      i += length;
    } else {
      out += json[i++];
    }
  }
  return out;
}

std::string visible_text(std::string_view text) { return escape(text, false); }

std::string visible_field(std::string_view text) { return escape(text, true); }

}  // namespace tpulint::report
