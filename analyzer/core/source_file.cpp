#include "core/source_file.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/byte_scan.h"

namespace tpulint {

SourceFile::SourceFile(std::string path, std::filesystem::path absolute_path, Language language,
                       std::string text, std::shared_ptr<const NotebookMap> notebook)
    : path_(std::move(path)),
      absolute_path_(std::move(absolute_path)),
      language_(language),
      text_(std::move(text)),
      notebook_(std::move(notebook)),
      line_starts_(line_starts(text_)) {
  uint32_t longest = 0;
  for (size_t i = 0; i < line_starts_.size(); ++i)
    longest = std::max(longest, (i + 1 < line_starts_.size() ? line_starts_[i + 1] : uint32_t(text_.size())) - line_starts_[i]);
  if (longest <= kColumnBlock) return;
  code_points_before_block_.reserve(text_.size() / kColumnBlock + 1);
  uint32_t before = 0;
  for (size_t block = 0; block <= text_.size() / kColumnBlock; ++block) {
    code_points_before_block_.push_back(before);
    before += count_code_points(std::string_view(text_).substr(block * kColumnBlock, kColumnBlock));
  }
}

std::vector<uint32_t> line_starts(std::string_view text) {
  std::vector<uint32_t> starts{0};
  // Lines end in "\n", "\r\n" or a lone "\r"; what lies between is passed eight bytes at a time.
  for (size_t i = 0;;) {
    i += bytes::plain_run(
        text.substr(i), [](uint64_t w) { return bytes::any_byte_equal(w, '\n') | bytes::any_byte_equal(w, '\r'); },
        [](unsigned char c) { return c != '\n' && c != '\r'; });
    if (i == text.size()) return starts;
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
    starts.push_back(uint32_t(++i));
  }
}

uint32_t count_code_points(std::string_view utf8) {
  uint32_t n = 0;
  for (unsigned char c : utf8) n += (c & 0xC0) != 0x80;
  return n;
}

uint32_t count_code_lines(std::string_view text, Language language) {
  uint32_t lines = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find_first_of("\r\n", begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    size_t first = line.find_first_not_of(" \t\f\v");
    if (first == std::string_view::npos) continue;
    line.remove_prefix(first);
    const bool comment = language == Language::Python
                             ? line.starts_with('#')
                             : line.starts_with("//") || line.starts_with("/*") || line.starts_with('*');
    lines += !comment;
  }
  return lines;
}

namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Past a quoted literal opening at line[open] (its quote repeated three times in Python's
// triple-quoted strings): a backslash escapes the next character; one never closed runs to
// the end of the line.
size_t quoted_end(std::string_view line, size_t open, bool triple) {
  const std::string_view quote = line.substr(open, triple ? 3 : 1);
  for (size_t i = open + quote.size(); i < line.size(); ++i) {
    if (line[i] == '\\') {
      ++i;
    } else if (line.substr(i, quote.size()) == quote) {
      return i + quote.size();
    }
  }
  return line.size();
}

// Past CMake's bracket `[==[ ... ]==]` whose `[` is at line[open] (a bracket argument, or a
// comment after its `#`); npos when line[open] opens none; the end of the line when unclosed.
size_t cmake_bracket_end(std::string_view line, size_t open) {
  size_t i = open + 1;
  while (i < line.size() && line[i] == '=') ++i;
  if (line.substr(open, 1) != "[" || i >= line.size() || line[i] != '[') return std::string_view::npos;
  const std::string close = "]" + std::string(i - open - 1, '=') + "]";
  const size_t end = line.find(close, i + 1);
  return end == std::string_view::npos ? line.size() : end + close.size();
}

// Past a C++ raw string `R"delim( ... )delim"` whose `R` is at line[at]; npos when none opens
// there (the `R` ends an identifier other than a literal prefix u8, u, U, L).
size_t raw_string_end(std::string_view line, size_t at) {
  if (line.substr(at, 2) != "R\"") return std::string_view::npos;
  size_t word = at;
  while (word > 0 && is_identifier_char(line[word - 1])) --word;
  const std::string_view prefix = line.substr(word, at - word);
  if (!prefix.empty() && prefix != "u8" && prefix != "u" && prefix != "U" && prefix != "L") return std::string_view::npos;
  const size_t paren = line.find('(', at + 2);
  if (paren == std::string_view::npos) return std::string_view::npos;
  const std::string close = ")" + std::string(line.substr(at + 2, paren - at - 2)) + "\"";
  const size_t end = line.find(close, paren + 1);
  return end == std::string_view::npos ? line.size() : end + close.size();
}

}  // namespace

std::string line_code(std::string_view line, Language language) {
  const bool python = language == Language::Python, cmake = language == Language::Cmake;
  const bool c_like = language == Language::Cxx || language == Language::Cuda;
  std::string out;
  for (size_t i = 0; i < line.size();) {
    const char c = line[i];
    const std::string_view next2 = line.substr(i, 2);
    size_t end = std::string_view::npos;  // past a literal kept whole
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
      ++i;
      continue;
    }
    if ((python || cmake) && c == '#') {
      const size_t bracket = cmake ? cmake_bracket_end(line, i + 1) : std::string_view::npos;
      if (bracket == std::string_view::npos) break;  // to the end of the line
      i = bracket;
      continue;
    }
    if (c_like && next2 == "//") break;
    if (c_like && next2 == "/*") {
      const size_t close = line.find("*/", i + 2);
      if (close == std::string_view::npos) break;
      i = close + 2;
      continue;
    }
    if (c == '"' || (c == '\'' && !cmake)) {
      // C++14 digit separators (1'000'000) are no character literal.
      const bool separator = c_like && i > 0 && std::isdigit(static_cast<unsigned char>(line[i - 1])) &&
                             i + 1 < line.size() && std::isxdigit(static_cast<unsigned char>(line[i + 1]));
      if (!separator) end = quoted_end(line, i, python && line.substr(i, 3) == std::string(3, c));
    } else if (cmake && c == '[') {
      end = cmake_bracket_end(line, i);
    } else if (c_like && c == 'R') {
      end = raw_string_end(line, i);
    }
    if (end == std::string_view::npos) end = i + 1;
    out.append(line.substr(i, end - i));
    i = end;
  }
  return out;
}

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  for (;;) {
    // Source is mostly ASCII: it is passed eight bytes at a time up to the next multi-byte form.
    i += bytes::plain_run(
        s.substr(i), [](uint64_t w) { return bytes::any_byte_above_7f(w); }, [](unsigned char c) { return c < 0x80; });
    if (i == s.size()) return true;
    unsigned char c = s[i];
    size_t len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = s[i + k];
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return false;
    i += len;
  }
}

uint32_t SourceFile::code_points_before(uint32_t offset) const {
  uint32_t block = offset / kColumnBlock;
  return code_points_before_block_[block] +
         count_code_points(std::string_view(text_).substr(size_t(block) * kColumnBlock, offset % kColumnBlock));
}

Position SourceFile::position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, uint32_t(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  uint32_t line_index = uint32_t(it - line_starts_.begin()) - 1;
  uint32_t start = line_starts_[line_index];
  uint32_t column = offset - start <= kColumnBlock || code_points_before_block_.empty()
                        ? count_code_points(std::string_view(text_).substr(start, offset - start))
                        : code_points_before(offset) - code_points_before(start);
  return {line_index + 1, column + 1};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  uint32_t begin = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : uint32_t(text_.size());
  while (end > begin && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::filesystem::path scan_root_of(const std::filesystem::path& absolute_path, std::string_view relative_path) {
  std::filesystem::path root = absolute_path.parent_path();
  for (char c : relative_path)
    if (c == '/') root = root.parent_path();
  return root;
}

std::string_view directory_of(std::string_view relative_path) {
  const size_t slash = relative_path.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : relative_path.substr(0, slash);
}

std::string_view file_name_of(std::string_view relative_path) {
  const size_t slash = relative_path.rfind('/');
  return slash == std::string_view::npos ? relative_path : relative_path.substr(slash + 1);
}

size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace tpulint
