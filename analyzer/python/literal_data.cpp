#include "python/literal_data.h"

#include <algorithm>
#include <array>

namespace tpulint::python {

namespace {

constexpr bool is_word_start(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80; }
constexpr bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Word characters by byte: the scan's busiest test.
constexpr auto kWordChars = [] {
  std::array<bool, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = is_word_start(static_cast<unsigned char>(c)) || is_digit(static_cast<unsigned char>(c));
  return table;
}();
bool is_word_char(unsigned char c) { return kWordChars[c]; }
bool is_quote(unsigned char c) { return c == '\'' || c == '"' || c == '`'; }
bool is_operator(unsigned char c) { return std::string_view("+-*/%<>=!&|^~@:").find(char(c)) != std::string_view::npos; }

// One left-to-right pass over the tokens, as tree-sitter-python's lexer and scanner split them:
// comments, strings (f-strings with their replacement fields, nested), line continuations,
// numbers, words, operators and brackets. A stack of the open brackets tracks, in each, the
// current element between commas and the run of literal elements it ends.
class Scan {
 public:
  Scan(std::string_view text, uint32_t min_run) : t_(text), min_run_(min_run) {}

  std::vector<ByteSpan> runs() {
    code(0);
    if (failed_ || !frames_.empty()) return {};
    return std::move(runs_);
  }

 private:
  // An f-string's replacement field is a frame too: its commas are its own, and a `:` or `!` in
  // it (outside inner brackets) ends its expression.
  struct Frame {
    char closer;
    bool field;
    bool element_empty = true;
    bool element_literal = true;
    bool all_literal = true;  // every element so far
    uint32_t element_end = 0;  // past the current element's last token
    uint32_t run = 0;          // literal elements in a row, up to the last ended one
    uint32_t run_cut = 0;      // past the comma after the run's first element
    uint32_t run_end = 0;      // past the run's last element, and past the comma after it if any
  };
  // f-strings inside f-strings, each a level of recursion: deeper than this is not scanned.
  static constexpr int kMaxStringNesting = 64;

  unsigned char at(size_t i) const { return i < t_.size() ? static_cast<unsigned char>(t_[i]) : 0; }

  // Tokens until the frames shrink below `depth` (a replacement field ends), or the text does.
  void code(size_t depth) {
    while (i_ < t_.size() && !failed_ && frames_.size() >= depth) {
      const unsigned char c = at(i_);
      const auto start = uint32_t(i_);  // where a bracket or a comma is
      if (c == ' ' || c == '\t' || c == '\f' || c == '\r' || c == '\n') {
        ++i_;
      } else if (c == '#') {
        i_ = std::min(t_.find('\n', i_), t_.size());
      } else if (c == '\\') {
        // A line continuation; any other backslash outside a string is not Python.
        ++i_;
        if (at(i_) == '\r') ++i_;
        if (at(i_) == '\n') ++i_;
        else if (at(i_ - 1) != '\r' && i_ < t_.size()) failed_ = true;
      } else if (!frames_.empty() && frames_.back().field && frames_.size() == depth && (c == ':' || (c == '!' && at(i_ + 1) != '='))) {
        ++i_;
        if (c == ':') format_spec();
      } else if (is_quote(c)) {
        token(string_literal(false));
      } else if (is_word_start(c)) {
        while (is_word_char(at(i_))) ++i_;
        std::string_view word = t_.substr(start, i_ - start);
        if (is_quote(at(i_)) && word.find_first_not_of("rRbBuUfFtT") == std::string_view::npos) {
          token(string_literal(word.find_first_of("fFtT") != std::string_view::npos));
        } else {
          token(word == "True" || word == "False" || word == "None");
        }
      } else if (is_digit(c) || (c == '.' && is_digit(at(i_ + 1)))) {
        const bool hex = c == '0' && (at(i_ + 1) == 'x' || at(i_ + 1) == 'X');
        for (++i_; is_word_char(at(i_)) || at(i_) == '.' ||
                   ((at(i_) == '+' || at(i_) == '-') && !hex && (at(i_ - 1) == 'e' || at(i_ - 1) == 'E'));)
          ++i_;
        token(true);
      } else if (c == '.') {
        const bool ellipsis = t_.substr(i_, 3) == "...";
        i_ += ellipsis ? 3 : 1;
        token(ellipsis);
      } else if (c == '(' || c == '[' || c == '{') {
        ++i_;
        frames_.push_back({c == '(' ? ')' : c == '[' ? ']' : '}', false});
      } else if (c == ')' || c == ']' || c == '}') {
        ++i_;
        close(char(c), start);
      } else if (c == ',') {
        ++i_;
        if (!frames_.empty()) end_element(frames_.back(), start, true);
      } else {
        ++i_;
        token(is_operator(c));
      }
    }
  }

  // From a string's opening quote to past its closing one; whether it is a literal (not an f- or
  // t-string, whose replacement fields hold code, nor a backquoted one, Python 2's repr).
  bool string_literal(bool format) {
    const unsigned char quote = at(i_);
    const bool triple = quote != '`' && at(i_ + 1) == quote && at(i_ + 2) == quote;
    i_ += triple ? 3 : 1;
    if (++nesting_ > kMaxStringNesting) failed_ = true;
    while (!failed_) {
      if (i_ >= t_.size()) {
        failed_ = true;
        break;
      }
      const unsigned char c = at(i_);
      if (c == '\\') {
        // An escaped character (in a raw string too, the backslash keeps a quote from ending it).
        i_ += at(i_ + 1) == '\r' && at(i_ + 2) == '\n' ? 3 : 2;
      } else if (c == quote && (!triple || (at(i_ + 1) == quote && at(i_ + 2) == quote))) {
        i_ += triple ? 3 : 1;
        break;
      } else if (c == '\n' && !triple) {
        failed_ = true;
      } else if (format && c == '{' && at(i_ + 1) != '{') {
        ++i_;
        frames_.push_back({'}', true});
        code(frames_.size());
      } else {
        i_ += format && (c == '{' || c == '}') && at(i_ + 1) == c ? 2 : 1;
      }
    }
    --nesting_;
    return !format && quote != '`';
  }

  // A replacement field's format spec, up to the `}` that ends the field (which it pops); it may
  // hold replacement fields of its own.
  void format_spec() {
    while (!failed_) {
      const unsigned char c = at(i_);
      if (i_ >= t_.size() || c == '\n') {
        failed_ = true;
      } else if (c == '}') {
        ++i_;
        frames_.pop_back();
        return;
      } else if (c == '{') {
        ++i_;
        frames_.push_back({'}', true});
        code(frames_.size());
      } else {
        ++i_;
      }
    }
  }

  // A token of the innermost bracket's current element, which ends at i_.
  void token(bool literal) {
    if (frames_.empty()) return;
    Frame& f = frames_.back();
    f.element_empty = false;
    f.element_literal = f.element_literal && literal;
    f.element_end = uint32_t(i_);
  }

  void close(char closer, uint32_t at) {
    if (frames_.empty() || frames_.back().closer != closer) {
      failed_ = true;
      return;
    }
    Frame& f = frames_.back();
    end_element(f, at, false);
    end_run(f);
    const bool literal = f.all_literal && !f.field;
    frames_.pop_back();
    token(literal);  // the brackets are a token of the element around them
  }

  void end_element(Frame& f, uint32_t at, bool comma) {
    if (f.element_empty) {
      // Two commas in a row, or one after the opening bracket: not an element list.
      if (comma) {
        f.all_literal = false;
        end_run(f);
      }
      return;
    }
    if (f.element_literal) {
      if (f.run == 0) f.run_cut = at + 1;
      ++f.run;
      f.run_end = comma ? at + 1 : f.element_end;
    } else {
      f.all_literal = false;
      end_run(f);
    }
    f.element_empty = true;
    f.element_literal = true;
  }

  void end_run(Frame& f) {
    if (f.run >= min_run_) runs_.push_back({f.run_cut, f.run_end});
    f.run = 0;
  }

  std::string_view t_;
  uint32_t min_run_;
  size_t i_ = 0;
  int nesting_ = 0;
  bool failed_ = false;
  std::vector<Frame> frames_;
  std::vector<ByteSpan> runs_;
};

}  // namespace

std::vector<ByteSpan> literal_data(std::string_view text, uint32_t min_run) {
  // A run needs as many commas: most files have fewer and are not scanned.
  if (size_t(std::count(text.begin(), text.end(), ',')) + 1 < min_run) return {};
  std::vector<ByteSpan> runs = Scan(text, min_run).runs();
  // A run inside an element of a longer one is blanked with it.
  std::sort(runs.begin(), runs.end(), [](ByteSpan a, ByteSpan b) { return a.begin < b.begin; });
  std::vector<ByteSpan> disjoint;
  for (ByteSpan r : runs)
    if (disjoint.empty() || r.begin >= disjoint.back().end) disjoint.push_back(r);
  return disjoint;
}

std::string blank(std::string_view text, std::span<const ByteSpan> spans) {
  std::string out(text);
  for (ByteSpan s : spans)
    for (uint32_t i = s.begin; i < s.end; ++i)
      if (out[i] != '\n' && out[i] != '\r') out[i] = ' ';
  return out;
}

}  // namespace tpulint::python
