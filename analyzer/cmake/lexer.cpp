#include "cmake/lexer.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/source_file.h"

namespace tpulint::cmake {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool is_identifier_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_identifier_char(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9'); }

// Thrown inside the lexer only, caught in lex(): one way out of every nested loop.
struct Stop {
  uint32_t at;
  std::string message;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text), line_starts_(line_starts(text)) {}

  Lexed run() {
    Lexed out;
    try {
      while (true) {
        skip_space_and_comments();
        if (pos_ >= text_.size()) break;
        out.commands.push_back(command());
      }
    } catch (const Stop& s) {
      uint32_t end = std::min<uint32_t>(s.at + 1, uint32_t(text_.size()));
      out.error = LexError{{s.at, std::max(end, s.at)}, position(s.at), s.message};
    }
    return out;
  }

 private:
  char peek(size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool at_end() const { return pos_ >= text_.size(); }

  Position position(uint32_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    uint32_t line = uint32_t(it - line_starts_.begin());
    uint32_t start = line_starts_[line - 1];
    return {line, 1 + count_code_points(text_.substr(start, offset - start))};
  }

  // `#[==[` at pos_ (after '#' when `comment`): the number of '=' of a bracket opening, or -1.
  int bracket_level(size_t at) const {
    if (at >= text_.size() || text_[at] != '[') return -1;
    size_t i = at + 1;
    while (i < text_.size() && text_[i] == '=') ++i;
    return i < text_.size() && text_[i] == '[' ? int(i - at - 1) : -1;
  }

  // Reads a bracket opened at pos_ with `level` '='s; returns its content. CMake drops a
  // newline right after the opening bracket.
  std::string bracket(int level, std::string_view what) {
    uint32_t open = uint32_t(pos_);
    pos_ += size_t(level) + 2;
    if (peek() == '\r' && peek(1) == '\n') pos_ += 2;
    else if (peek() == '\n') ++pos_;
    std::string close(size_t(level) + 2, '=');  // "]==]"
    close.front() = close.back() = ']';
    size_t end = text_.find(close, pos_);
    if (end == std::string_view::npos) throw Stop{open, fmt::format("unterminated bracket {}", what)};
    std::string content(text_.substr(pos_, end - pos_));
    pos_ = end + close.size();
    return content;
  }

  void comment() {
    ++pos_;  // '#'
    if (int level = bracket_level(pos_); level >= 0) {
      bracket(level, "comment");
      return;
    }
    while (!at_end() && peek() != '\n' && peek() != '\r') ++pos_;
  }

  void skip_space_and_comments() {
    while (!at_end()) {
      if (is_space(peek())) ++pos_;
      else if (peek() == '#') comment();
      else break;
    }
  }

  Command command() {
    Command c;
    uint32_t begin = uint32_t(pos_);
    if (!is_identifier_start(peek()))
      throw Stop{begin, fmt::format("expected a command name, found '{}'", peek())};
    while (!at_end() && is_identifier_char(peek())) ++pos_;
    c.name_span = {begin, uint32_t(pos_)};
    c.start = position(begin);
    c.name.reserve(pos_ - begin);
    for (char ch : text_.substr(begin, pos_ - begin)) c.name.push_back(char(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch));
    while (peek() == ' ' || peek() == '\t') ++pos_;
    if (peek() != '(') throw Stop{uint32_t(pos_), fmt::format("expected '(' after the command name '{}'", c.name)};
    ++pos_;
    arguments(c, begin);
    return c;
  }

  void arguments(Command& c, uint32_t command_begin) {
    size_t depth = 0;  // nested parentheses: CMake passes them on as arguments "(" and ")"
    while (true) {
      skip_space_and_comments();
      if (at_end()) throw Stop{command_begin, fmt::format("missing ')' closing the arguments of '{}'", c.name)};
      uint32_t begin = uint32_t(pos_);
      char ch = peek();
      if (ch == ')' || ch == '(') {
        ++pos_;
        if (ch == ')' && depth == 0) return;
        depth = ch == '(' ? depth + 1 : depth - 1;
        c.arguments.push_back({std::string(1, ch), ArgumentKind::Unquoted, {begin, begin + 1}, position(begin)});
        continue;
      }
      Argument a;
      if (ch == '"') {
        a.kind = ArgumentKind::Quoted;
        a.text = quoted();
      } else if (int level = bracket_level(pos_); level >= 0) {
        a.kind = ArgumentKind::Bracket;
        a.text = bracket(level, "argument");
      } else {
        a.text = unquoted();
      }
      a.span = {begin, uint32_t(pos_)};
      a.start = position(begin);
      c.arguments.push_back(std::move(a));
    }
  }

  // A backslash escape at pos_ (the '\'), appended to `out`. `\;` stays escaped: it keeps a
  // ';' from splitting a list. A backslash before a newline continues the line (quoted only).
  void escape(std::string& out, bool quoted) {
    uint32_t at = uint32_t(pos_);
    ++pos_;
    if (at_end()) throw Stop{at, "a backslash at the end of the file"};
    char ch = peek();
    if (quoted && (ch == '\n' || ch == '\r')) {
      pos_ += ch == '\r' && peek(1) == '\n' ? 2 : 1;
      return;
    }
    ++pos_;
    switch (ch) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case ';': out += "\\;"; break;
      default: out += ch;
    }
  }

  std::string quoted() {
    uint32_t open = uint32_t(pos_);
    ++pos_;
    std::string out;
    while (true) {
      if (at_end()) throw Stop{open, "unterminated quoted argument"};
      char ch = peek();
      if (ch == '"') {
        ++pos_;
        return out;
      }
      if (ch == '\\') escape(out, true);
      else out += text_[pos_++];
    }
  }

  // Up to whitespace, a parenthesis or a comment. A quoted part inside (`-DX="a b"`, CMake's
  // legacy form) belongs to the argument.
  std::string unquoted() {
    std::string out;
    while (!at_end()) {
      char ch = peek();
      if (is_space(ch) || ch == '(' || ch == ')' || ch == '#') break;
      if (ch == '\\') {
        escape(out, false);
      } else if (ch == '"') {
        uint32_t open = uint32_t(pos_);
        size_t close = text_.find('"', pos_ + 1);
        if (close == std::string_view::npos) throw Stop{open, "unterminated quoted argument"};
        out += text_.substr(pos_, close + 1 - pos_);
        pos_ = close + 1;
      } else {
        out += text_[pos_++];
      }
    }
    return out;
  }

  std::string_view text_;
  std::vector<uint32_t> line_starts_;
  size_t pos_ = 0;
};

}  // namespace

Lexed lex(std::string_view text) { return Lexer(text).run(); }

}  // namespace tpulint::cmake
