#include "core/notebook.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace tpulint {

bool is_notebook_path(std::string_view path) { return path.ends_with(".ipynb"); }

namespace {

// IPython cell magics whose body IPython runs as Python.
constexpr std::array kPythonCellMagics = {std::string_view("time"), std::string_view("timeit"),
                                          std::string_view("capture"), std::string_view("prun")};
// Line magics whose argument is a Python statement, kept.
constexpr std::array kPythonLineMagics = {std::string_view("time"), std::string_view("timeit")};

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         (static_cast<unsigned char>(c) & 0x80) != 0;
}

size_t indentation(std::string_view line) {
  size_t n = line.find_first_not_of(" \t\f");
  return n == std::string_view::npos ? line.size() : n;
}

std::string_view magic_name(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && is_word_char(s[n])) ++n;
  return s.substr(0, n);
}

// `a = !ls`, `a, b = %sx ls`: IPython's assignment from a shell escape or a magic.
bool is_assigned_escape(std::string_view s) {
  size_t i = 0;
  for (;;) {  // names, dotted, separated by commas
    const size_t name = i;
    while (i < s.size() && (is_word_char(s[i]) || s[i] == '.')) ++i;
    if (i == name) return false;
    while (i < s.size() && s[i] == ' ') ++i;
    if (i < s.size() && s[i] == ',') {
      ++i;
      while (i < s.size() && s[i] == ' ') ++i;
      continue;
    }
    break;
  }
  if (i >= s.size() || s[i] != '=' || (i + 1 < s.size() && s[i + 1] == '=')) return false;
  ++i;
  while (i < s.size() && s[i] == ' ') ++i;
  return i < s.size() && (s[i] == '%' || (s[i] == '!' && (i + 1 == s.size() || s[i + 1] != '=')));
}

// `torch.cuda?`, `?torch.cuda`, `f??`: IPython's help.
bool is_help(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  const bool before = s.starts_with('?'), after = s.ends_with('?');
  if (!before && !after) return false;
  while (s.starts_with('?')) s.remove_prefix(1);
  while (s.ends_with('?')) s.remove_suffix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_word_char(c) || c == '.'; });
}

}  // namespace

std::vector<uint32_t> blank_ipython_syntax(std::vector<std::string>& lines) {
  std::vector<uint32_t> shifts(lines.size(), 0);
  size_t first = 0;
  while (first < lines.size() && indentation(lines[first]) == lines[first].size()) ++first;
  if (first < lines.size() && lines[first].starts_with("%%")) {
    const std::string_view name = magic_name(std::string_view(lines[first]).substr(2));
    const bool python = std::find(kPythonCellMagics.begin(), kPythonCellMagics.end(), name) != kPythonCellMagics.end();
    if (!python) {
      for (std::string& l : lines) l.clear();
      return shifts;
    }
    lines[first].clear();
  }
  bool continued = false;  // the line before was IPython syntax ending in a backslash
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string& line = lines[i];
    const size_t indent = indentation(line);
    const std::string_view rest = std::string_view(line).substr(indent);
    const bool escape = rest.starts_with('%') || (rest.starts_with('!') && !rest.starts_with("!="));
    if (!continued && !escape && !is_assigned_escape(rest) && !is_help(rest)) continue;
    const bool continues = rest.ends_with('\\');
    if (!continued && rest.starts_with('%') && !rest.starts_with("%%")) {
      const std::string_view name = magic_name(rest.substr(1));
      std::string_view statement = rest.substr(1 + name.size());
      const size_t spaces = statement.find_first_not_of(" \t");
      if (std::find(kPythonLineMagics.begin(), kPythonLineMagics.end(), name) != kPythonLineMagics.end() &&
          spaces != std::string_view::npos && spaces > 0 && statement[spaces] != '-' && !continues) {
        statement.remove_prefix(spaces);
        shifts[i] = count_code_points(rest.substr(0, rest.size() - statement.size()));
        line = line.substr(0, indent) + std::string(statement);
        continue;
      }
    }
    continued = continues;
    line.resize(indent);
    line += "pass";
  }
  return shifts;
}

namespace {

// A character iterator that records how far the JSON parser has read: at each SAX event, the
// parser has read its token and nothing beyond it (a string through its closing quote).
struct ReadingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  const char* at = nullptr;
  const char** furthest = nullptr;

  reference operator*() const { return *at; }
  ReadingIterator& operator++() {
    *furthest = ++at;
    return *this;
  }
  ReadingIterator operator++(int) {
    ReadingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const ReadingIterator& o) const { return at == o.at; }
};

// A string of a cell's source: its value and where its text is in the JSON (between the quotes).
struct SourcePiece {
  std::string text;
  uint32_t raw_begin = 0;
  uint32_t raw_end = 0;
};

struct Cell {
  uint32_t number = 0;
  std::optional<std::string> type;
  std::vector<SourcePiece> source;
  bool has_source = false;
};

using json = nlohmann::json;

// Collects what a notebook's analysis needs: nbformat, the language, and each cell's type and
// source. Keys are followed four containers deep; deeper nesting (outputs) is counted only.
class NotebookReader final : public nlohmann::json_sax<json> {
 public:
  NotebookReader(std::string_view text, const char** read) : text_(text), read_(read) {}

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t v) override { return number(v); }
  bool number_unsigned(number_unsigned_t v) override { return number(number_integer_t(std::min<number_unsigned_t>(v, 1000))); }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }

  bool string(string_t& value) override {
    const uint32_t end = offset() - 1;  // the closing quote
    const uint32_t begin = uint32_t(text_.find('"', last_) + 1);
    last_ = offset();
    if (depth_ == 0) return fail("the file is a JSON string, not a notebook");
    if (depth_ == 2 && in_cells()) return not_a_cell();
    if (in_cell() && key(3) == "cell_type") {
      cell_.type = std::move(value);
    } else if (in_cell() && key(3) == "source") {
      cell_.source = {{std::move(value), begin, end}};
      cell_.has_source = true;
    } else if (in_source_list()) {
      cell_.source.push_back({std::move(value), begin, end});
    } else if (depth_ == 3 && key(1) == "metadata" &&
               ((key(2) == "kernelspec" && key(3) == "language") || (key(2) == "language_info" && key(3) == "name"))) {
      language_ = std::move(value);
    }
    return true;
  }

  bool key(string_t& k) override {
    last_ = offset();
    if (depth_ <= kDepth) keys_[size_t(depth_)] = k.size() <= 16 ? std::move(k) : std::string();
    return true;
  }

  bool start_object(std::size_t) override { return open(false); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  // `byte` counts the characters read, the one in error included (or the end, past the text).
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception&) override {
    if (byte > text_.size()) return fail("not valid JSON: the text ends before the notebook does");
    const SourceFile text("", {}, Language::None, std::string(text_.substr(0, byte)));
    const Position at = text.position(uint32_t(byte ? byte - 1 : 0));
    return fail(fmt::format("not valid JSON (line {}, column {})", at.line, at.column));
  }

  // Why the notebook cannot be analyzed, once it is read; nothing if it can.
  std::optional<std::string> problem() const {
    if (error_) return error_;
    if (!saw_object_) return "the file is not a JSON object";
    if (!nbformat_) return "not a Jupyter notebook: no 'nbformat' key";
    if (*nbformat_ != 4)
      return fmt::format("nbformat {}, not 4: only nbformat 4 notebooks are analyzed (convert it with "
                         "'jupyter nbconvert --to notebook')",
                         *nbformat_);
    if (!saw_cells_) return "not a Jupyter notebook: no 'cells' list";
    if (language_) {
      std::string lower;
      for (char c : *language_) lower += char(c >= 'A' && c <= 'Z' ? c + 32 : c);
      if (lower != "python" && lower != "python3" && lower != "ipython")
        return fmt::format("a notebook in '{}', not Python", language_->substr(0, 40));
    }
    return std::nullopt;
  }

  std::vector<Cell>& code_cells() { return code_cells_; }

 private:
  static constexpr int kDepth = 4;

  uint32_t offset() const { return uint32_t(*read_ - text_.data()); }
  const std::string& key(int depth) const { return keys_[size_t(depth)]; }
  // Inside the cells list; in a cell's object, directly; in a cell's source list, directly.
  bool in_cells() const { return depth_ >= 2 && arrays_[2] && key(1) == "cells"; }
  bool in_cell() const { return depth_ == 3 && in_cells() && !arrays_[3]; }
  bool in_source_list() const { return depth_ == 4 && in_cells() && !arrays_[3] && key(3) == "source" && arrays_[4]; }
  // The value being read is a cell's source.
  bool source_value() const { return in_cell() && key(3) == "source"; }

  bool fail(std::string why) {
    error_ = std::move(why);
    return false;
  }
  bool not_a_cell() { return fail(fmt::format("cell {} is not a JSON object", cells_ + 1)); }
  bool scalar() {
    last_ = offset();
    if (depth_ == 0) return fail("the file is not a JSON object");
    if (depth_ == 2 && in_cells()) return not_a_cell();
    if (source_value() || in_source_list()) return fail(fmt::format("cell {}: 'source' is not text", cell_.number));
    return true;
  }
  bool number(number_integer_t v) {
    if (depth_ == 1 && key(1) == "nbformat") nbformat_ = v;
    return scalar();
  }
  bool open(bool array) {
    last_ = offset();
    if (depth_ == 0 && array) return fail("the file is a JSON array, not a notebook");
    if (depth_ == 2 && in_cells() && array) return not_a_cell();
    if (source_value() && !array) return fail(fmt::format("cell {}: 'source' is not text", cell_.number));
    if (in_source_list()) return fail(fmt::format("cell {}: 'source' is not text", cell_.number));
    ++depth_;
    if (depth_ <= kDepth) {
      arrays_[size_t(depth_)] = array;
      keys_[size_t(depth_)].clear();
    }
    if (depth_ == 1) saw_object_ = true;
    if (depth_ == 2 && array && key(1) == "cells") saw_cells_ = true;
    if (in_cell()) cell_ = Cell{++cells_, {}, {}, false};
    if (in_source_list()) {  // just opened
      cell_.source.clear();
      cell_.has_source = true;
    }
    return true;
  }
  bool close() {
    last_ = offset();
    if (in_cell()) {
      if (!cell_.type) return fail(fmt::format("cell {} has no 'cell_type'", cell_.number));
      if (*cell_.type == "code") {
        if (!cell_.has_source) return fail(fmt::format("cell {} has no 'source'", cell_.number));
        code_cells_.push_back(std::move(cell_));
      }
    }
    --depth_;
    return true;
  }

  std::string_view text_;
  const char** read_;
  size_t last_ = 0;  // where the parser had read to at the previous event
  int depth_ = 0;
  std::array<std::string, kDepth + 1> keys_;  // the key last read in each object, 1..kDepth deep
  std::array<bool, kDepth + 1> arrays_{};     // whether each container 1..kDepth deep is an array
  bool saw_object_ = false, saw_cells_ = false;
  std::optional<number_integer_t> nbformat_;
  std::optional<std::string> language_;
  std::optional<std::string> error_;
  uint32_t cells_ = 0;
  Cell cell_;
  std::vector<Cell> code_cells_;
};

// The bytes of the UTF-8 sequence `lead` starts (text nlohmann validated as UTF-8).
uint32_t utf8_sequence_size(unsigned char lead) { return lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

// The JSON text's bytes from `at` that hold one character of a string's value: an escape
// (a surrogate pair's two `\u` escapes are one character) or one UTF-8 sequence.
uint32_t raw_character_size(std::string_view json, uint32_t at) {
  auto hex4 = [&](uint32_t p) {
    if (p + 6 > json.size()) return -1;
    unsigned v = 0;
    for (uint32_t k = p + 2; k < p + 6; ++k) {
      char c = json[k];
      v = v * 16 + unsigned(c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10);
    }
    return int(v);
  };
  if (json[at] == '\\') {
    if (at + 1 < json.size() && json[at + 1] == 'u') {
      const int v = hex4(at);
      if (v >= 0xD800 && v <= 0xDBFF && at + 7 < json.size() && json[at + 6] == '\\' && json[at + 7] == 'u') return 12;
      return 6;
    }
    return 2;
  }
  return utf8_sequence_size(static_cast<unsigned char>(json[at]));
}

// A cell's source as lines: each line's text and where it is in the JSON text. Lines end in
// "\n", "\r\n" or "\r" as SourceFile's do; a line that goes on in the next string of a source list
// is placed in the string it starts in.
struct CellLine {
  std::string text;
  uint32_t raw_begin = 0;
  uint32_t raw_end = 0;
};

std::vector<CellLine> cell_lines(std::string_view json, const std::vector<SourcePiece>& source) {
  std::vector<CellLine> lines;
  bool open = false;  // the last line has no line break yet
  for (const SourcePiece& piece : source) {
    const std::string& v = piece.text;
    if (v.empty()) continue;
    uint32_t raw = piece.raw_begin;
    bool own = !open;  // the line being read started in this piece
    if (!open) lines.push_back({{}, raw, piece.raw_end});
    open = true;
    auto step = [&] { raw += raw < piece.raw_end ? raw_character_size(json, raw) : 0; };
    for (size_t i = 0; i < v.size();) {
      const char c = v[i];
      if (c == '\n' || c == '\r') {
        if (own) lines.back().raw_end = raw;
        step();
        ++i;
        if (c == '\r' && i < v.size() && v[i] == '\n') {
          step();
          ++i;
        }
        open = i < v.size();
        if (open) lines.push_back({{}, raw, piece.raw_end});
        own = true;
        continue;
      }
      const size_t n = utf8_sequence_size(static_cast<unsigned char>(c));
      lines.back().text.append(v, i, n);
      i += n;
      step();
    }
  }
  return lines;
}

}  // namespace

std::variant<Notebook, std::string> read_notebook(std::string path, std::string json_text) {
  const char* read = json_text.data();
  NotebookReader reader(json_text, &read);
  ReadingIterator first{json_text.data(), &read}, last{json_text.data() + json_text.size(), &read};
  bool parsed = false;
  try {
    parsed = json::sax_parse(first, last, &reader, nlohmann::detail::input_format_t::json, true, false);
  } catch (const std::exception& e) {  // the reader's own failures are returned, not thrown
    return std::string("not valid JSON: ") + e.what();
  }
  if (auto why = reader.problem()) return std::move(*why);
  if (!parsed) return std::string("not valid JSON");

  std::string code;
  std::vector<NotebookMap::Line> lines;
  for (const Cell& cell : reader.code_cells()) {
    std::vector<CellLine> cell_text = cell_lines(json_text, cell.source);
    std::vector<std::string> texts;
    texts.reserve(cell_text.size());
    for (CellLine& l : cell_text) texts.push_back(l.text);
    const std::vector<uint32_t> shifts = blank_ipython_syntax(texts);
    for (size_t i = 0; i < cell_text.size(); ++i) {
      CellLine& l = cell_text[i];
      const bool rewritten = texts[i] != l.text;
      code += texts[i];
      code += '\n';
      lines.push_back({cell.number, uint32_t(i + 1), l.raw_begin, l.raw_end, shifts[i],
                       rewritten ? std::move(l.text) : std::string()});
    }
  }
  return Notebook{std::move(code), NotebookMap(std::move(path), std::move(json_text), std::move(lines))};
}

NotebookMap::NotebookMap(std::string path, std::string json, std::vector<Line> lines)
    : json_(std::move(path), {}, Language::None, std::move(json)), lines_(std::move(lines)) {}

void NotebookMap::place(std::span<Finding> findings) const {
  // Each position is found by walking its line's JSON text from the line's start; positions are
  // placed in order, so a line holding many findings is walked once, not once per finding.
  struct Query {
    Position code;  // line in the code, column in the cell's line
    Position* out;
  };
  std::vector<Query> queries;
  queries.reserve(2 * findings.size());
  const auto known = [&](uint32_t line) { return line >= 1 && line <= lines_.size(); };
  for (Finding& f : findings) {
    if (!known(f.start.line) || is_file_note(f)) continue;
    const Line& start = lines_[f.start.line - 1];
    if (!known(f.end.line)) f.end = f.start;
    const Line& end = lines_[f.end.line - 1];
    f.cell = {start.cell, {start.cell_line, f.start.column + start.shift}, {end.cell_line, f.end.column + end.shift}};
    if (end.cell != start.cell) f.cell.end = f.cell.start;
    if (!start.written.empty()) f.source_line = InternedString(start.written);
    queries.push_back({{f.start.line, f.cell.start.column}, &f.start});
    queries.push_back({{f.end.line, f.cell.end.column}, &f.end});
  }
  std::sort(queries.begin(), queries.end(), [](const Query& a, const Query& b) { return a.code < b.code; });
  const std::string_view json = json_.text();
  Position walked{};  // the position last placed, and its byte in the JSON text
  uint32_t raw = 0;
  for (const Query& q : queries) {
    const Line& line = lines_[q.code.line - 1];
    if (q.code.line != walked.line || q.code.column < walked.column) {
      walked = {q.code.line, 1};
      raw = line.raw_begin;
    }
    for (; walked.column < q.code.column && raw < line.raw_end; ++walked.column)
      raw += raw_character_size(json, raw);
    *q.out = json_.position(std::min(raw, line.raw_end));
    // A column past the line's end (the end of a line's last character) lies beyond its last byte.
    if (walked.column < q.code.column) q.out->column += q.code.column - walked.column;
  }
}

}  // namespace tpulint
