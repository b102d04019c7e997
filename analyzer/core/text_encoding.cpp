#include "core/text_encoding.h"

#include <iconv.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "core/source_file.h"

namespace tpulint {

namespace {

// The end of the line that starts at `begin`: its terminator's offset, or the text's size.
size_t line_end(std::string_view text, size_t begin) {
  size_t end = text.find_first_of("\r\n", begin);
  return end == std::string_view::npos ? text.size() : end;
}

// The start of the line after the one ending at `end` ("\r\n" is one terminator).
size_t next_line(std::string_view text, size_t end) {
  if (end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
  return std::min(end + 1, text.size());
}

// PEP 263's `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` on one line, with ASCII word characters as
// CPython's tokenizer has them.
std::optional<std::string> declared_in(std::string_view line) {
  const size_t hash = line.find_first_not_of(" \t\f");
  if (hash == std::string_view::npos || line[hash] != '#') return std::nullopt;
  auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
  };
  for (size_t at = line.find("coding", hash); at != std::string_view::npos; at = line.find("coding", at + 1)) {
    size_t p = at + 6;
    if (p >= line.size() || (line[p] != ':' && line[p] != '=')) continue;
    for (++p; p < line.size() && (line[p] == ' ' || line[p] == '\t');) ++p;
    size_t end = p;
    while (end < line.size() && name_char(line[end])) ++end;
    if (end > p) return std::string(line.substr(p, end - p));
  }
  return std::nullopt;
}

// The name iconv knows an encoding by, for the name a Python file declares: Python's own
// aliases of the encodings declared most (its tokenizer's and encodings/aliases.py) that the C
// library spells otherwise; any other name as written, lower-case with '-' for '_' (iconv
// ignores case and knows both spellings of most names).
std::string iconv_name(std::string_view declared) {
  std::string name;
  for (char c : declared) name += c == '_' ? '-' : char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  auto has_prefix = [&](std::string_view p) { return name == p || name.starts_with(std::string(p) + "-"); };
  if (has_prefix("utf-8") || name == "utf8" || name == "u8" || name == "utf" || name == "cp65001") return "UTF-8";
  if (has_prefix("latin-1") || has_prefix("iso-8859-1") || has_prefix("iso-latin-1") || name == "latin" ||
      name == "8859" || name == "iso8859")
    return "ISO-8859-1";
  if (name == "646" || name == "us") return "ASCII";
  return name;
}

bool is_ascii(std::string_view text) {
  for (unsigned char c : text)
    if (c >= 0x80) return false;
  return true;
}

struct Converter {
  iconv_t cd;
  explicit Converter(const char* from) : cd(iconv_open("UTF-8", from)) {}
  ~Converter() {
    if (ok()) iconv_close(cd);
  }
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;
  bool ok() const { return cd != reinterpret_cast<iconv_t>(-1); }
};

// Converts `text` from offset `from` on to UTF-8 into `out` with `converter`; or says why it cannot,
// naming the encoding as `what` and the place by its line (counted in what was decoded before it,
// the same lines whatever the encoding).
std::optional<std::string> convert(Converter& converter, std::string& text, size_t from, std::string_view what,
                                   std::string& out) {
  out.assign(2 * (text.size() - from) + 16, '\0');
  char* in = text.data() + from;
  size_t in_left = text.size() - from;
  char* o = out.data();
  size_t o_left = out.size();
  while (in_left > 0) {
    if (iconv(converter.cd, &in, &in_left, &o, &o_left) != size_t(-1)) break;
    const size_t used = size_t(o - out.data());
    if (errno == E2BIG) {
      out.resize(2 * out.size());
      o = out.data() + used;
      o_left = out.size() - used;
      continue;
    }
    const size_t line = line_starts(std::string_view(out).substr(0, used)).size();
    if (errno == EILSEQ)
      return fmt::format("not valid {}: byte 0x{:02X} on line {}", what, static_cast<unsigned char>(*in), line);
    if (errno == EINVAL) return fmt::format("not valid {}: it ends inside a character", what);
    return fmt::format("cannot decode {}: {}", what, std::strerror(errno));
  }
  out.resize(size_t(o - out.data()));
  return std::nullopt;
}

std::optional<std::string> decode_utf16(std::string& text, const char* byte_order) {
  Converter converter(byte_order);
  if (!converter.ok()) return fmt::format("cannot decode UTF-16: {}", std::strerror(errno));
  std::string decoded;
  if (auto why = convert(converter, text, 2, "UTF-16", decoded)) return why;
  text = std::move(decoded);
  return std::nullopt;
}

}  // namespace

std::optional<EncodingDeclaration> python_encoding_declaration(std::string_view text) {
  size_t begin = 0;
  for (uint32_t line = 1; line <= 2 && begin < text.size(); ++line) {
    const size_t end = line_end(text, begin);
    const std::string_view s = text.substr(begin, end - begin);
    if (auto name = declared_in(s)) return EncodingDeclaration{std::move(*name), line};
    // The second line counts only after a first that holds a comment or nothing.
    const size_t first = s.find_first_not_of(" \t\f");
    if (first != std::string_view::npos && s[first] != '#') break;
    begin = next_line(text, end);
  }
  return std::nullopt;
}

bool starts_with_utf16_bom(std::string_view text) { return text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF"); }

std::optional<std::string> decode_to_utf8(std::string& text, Language language) {
  if (text.starts_with("\xFF\xFE")) return decode_utf16(text, "UTF-16LE");
  if (text.starts_with("\xFE\xFF")) return decode_utf16(text, "UTF-16BE");
  const bool utf8_bom = text.starts_with("\xEF\xBB\xBF");
  if (utf8_bom) text.erase(0, 3);
  if (language != Language::Python) return std::nullopt;
  if (utf8_bom) {  // the mark decides, whatever a declaration says
    if (is_valid_utf8(text)) return std::nullopt;
    return std::string("not valid UTF-8, which its byte-order mark says it is");
  }

  const std::optional<EncodingDeclaration> declared = python_encoding_declaration(text);
  if (!declared) {
    if (is_valid_utf8(text)) return std::nullopt;
    return std::string("not valid UTF-8, and no encoding is declared (PEP 263: '# -*- coding: NAME -*-' on line 1 or 2)");
  }
  const std::string charset = iconv_name(declared->name);
  if (charset == "UTF-8") {
    if (is_valid_utf8(text)) return std::nullopt;
    return fmt::format("not valid UTF-8, the encoding declared on line {}", declared->line);
  }
  // Every encoding a declaration can be written in reads ASCII as itself.
  if (is_ascii(text)) return std::nullopt;
  Converter converter(charset.c_str());
  if (!converter.ok()) {
    if (is_valid_utf8(text)) return std::nullopt;  // read as the UTF-8 it is
    return fmt::format("unknown encoding '{}' declared on line {}, and not valid UTF-8", declared->name,
                       declared->line);
  }
  const std::string what = fmt::format("'{}' (declared on line {})", declared->name, declared->line);
  std::string decoded;
  if (auto why = convert(converter, text, 0, what, decoded)) return why;
  // An encoding that is not a superset of ASCII (UTF-16, EBCDIC) cannot have been the one the
  // declaration was written in: what it decodes would not even hold the declaration.
  const size_t declaration_end = line_end(text, declared->line == 1 ? 0 : next_line(text, line_end(text, 0)));
  if (!decoded.starts_with(std::string_view(text).substr(0, declaration_end)))
    return fmt::format("encoding {} does not read its own declaration as written", what);
  text = std::move(decoded);
  return std::nullopt;
}

}  // namespace tpulint
