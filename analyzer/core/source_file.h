// SourceFile: one file's bytes as read once from disk, with what every frontend and reporter
// needs to turn byte offsets into lines and columns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace tpulint {

class NotebookMap;

class SourceFile {
 public:
  // A notebook's SourceFile holds its code cells as Python (core/notebook.h), and `notebook` maps
  // that text's lines back to the notebook.
  SourceFile(std::string path, std::filesystem::path absolute_path, Language language, std::string text,
             std::shared_ptr<const NotebookMap> notebook = nullptr);

  const std::string& path() const { return path_; }  // relative to the scan root, '/'-separated
  const std::filesystem::path& absolute_path() const { return absolute_path_; }
  Language language() const { return language_; }
  const std::string& text() const { return text_; }
  const NotebookMap* notebook() const { return notebook_.get(); }  // null: not a notebook

  uint32_t line_count() const { return uint32_t(line_starts_.size()); }
  // 1-based line and code-point column of a byte offset (clamped to the text).
  Position position(uint32_t byte_offset) const;
  // The text of a 1-based line without its line terminator ("" past the end).
  std::string_view line_text(uint32_t line) const;

 private:
  // Columns count code points from the line's start; on a line longer than a block they are
  // counted from the nearest block start instead, so that the many findings a single long line
  // can hold do not each read the line.
  static constexpr uint32_t kColumnBlock = 4096;
  uint32_t code_points_before(uint32_t offset) const;

  std::string path_;
  std::filesystem::path absolute_path_;
  Language language_;
  std::string text_;
  std::shared_ptr<const NotebookMap> notebook_;
  std::vector<uint32_t> line_starts_;  // byte offset of each line's first byte
  // The code points before each kColumnBlock-byte block of the text; empty when no line is
  // longer than a block.
  std::vector<uint32_t> code_points_before_block_;
};

// The scan root a file was found under: its absolute path less its relative one ('/'-separated).
std::filesystem::path scan_root_of(const std::filesystem::path& absolute_path, std::string_view relative_path);

// Of a '/'-separated path relative to the scan root: its directory ("" at the root), its file
// name, and how many leading bytes two paths share (which of several files is nearest another).
std::string_view directory_of(std::string_view relative_path);
std::string_view file_name_of(std::string_view relative_path);
size_t common_prefix(std::string_view a, std::string_view b);

// Line terminators are "\n", "\r\n" and a lone "\r", as in Python and C++.
std::vector<uint32_t> line_starts(std::string_view text);

// Number of Unicode code points in a UTF-8 byte range (continuation bytes are not counted,
// so invalid UTF-8 still gives a sensible column).
uint32_t count_code_points(std::string_view utf8);

// The number of lines holding code: not blank, and not starting with a comment (`#` in Python;
// `//`, `/*` or a block comment's `*` in C/C++/CUDA). What a file weighs in the share of a
// project's code: a blank or comment line is nothing to port.
uint32_t count_code_lines(std::string_view text, Language language);

// The code of one line with its comments and whitespace left out: `#` comments in Python and
// CMake (and CMake's `#[[...]]`), `//` and `/* */` in C/C++/CUDA; string and character literals
// (raw strings, CMake's `[[...]]` arguments) are kept as written, so a `#` in a string is code.
// What a baseline fingerprint hashes of a flagged line: a comment added to it, or a change of
// spacing, leaves it the same line. The line is read on its own: a line inside a multi-line
// string or block comment is taken for code.
std::string line_code(std::string_view line, Language language);

// True if the text is well-formed UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace tpulint
