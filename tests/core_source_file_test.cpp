// SourceFile: byte offsets to 1-based lines and code-point columns, line text, line starts,
// code-point counting and UTF-8 validation.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "core/source_file.h"

using namespace tpulint;

namespace {

SourceFile make_file(std::string text, Language language = Language::Python) {
  return SourceFile("pkg/mod.py", "/abs/pkg/mod.py", language, std::move(text));
}

Position pos(uint32_t line, uint32_t column) { return Position{line, column}; }

}  // namespace

TEST_CASE("SourceFile keeps its path, absolute path, language and text", "[core][source]") {
  SourceFile f("pkg/k.cu", "/root/pkg/k.cu", Language::Cuda, "__global__ void k() {}\n");
  CHECK(f.path() == "pkg/k.cu");
  CHECK(f.absolute_path() == std::filesystem::path("/root/pkg/k.cu"));
  CHECK(f.language() == Language::Cuda);
  CHECK(f.text() == "__global__ void k() {}\n");
  CHECK(f.line_count() == 2);
}

TEST_CASE("position() gives 1-based lines and columns for ASCII text", "[core][source]") {
  SourceFile f = make_file("import torch\nx = 1\n\ny\n");
  // Offsets:     0           12 13    18 19 20
  CHECK(f.position(0) == pos(1, 1));
  CHECK(f.position(7) == pos(1, 8));    // 't' of torch
  CHECK(f.position(12) == pos(1, 13));  // the '\n' itself belongs to line 1
  CHECK(f.position(13) == pos(2, 1));   // 'x'
  CHECK(f.position(17) == pos(2, 5));   // '1'
  CHECK(f.position(19) == pos(3, 1));   // the empty line
  CHECK(f.position(20) == pos(4, 1));   // 'y'
  CHECK(f.position(21) == pos(4, 2));
  CHECK(f.position(22) == pos(5, 1));   // end of text, after the final newline
  CHECK(f.line_count() == 5);
}

TEST_CASE("position() counts columns in code points on multi-byte UTF-8 lines", "[core][source]") {
  // "é" is 2 bytes, "日" 3 bytes, "😀" 4 bytes.
  std::string text = "s = \"\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80\" + x\nz\xC3\xA9t\n";
  SourceFile f = make_file(text);
  size_t plus = text.find('+');
  REQUIRE(plus == 16);  // 5 ASCII bytes + 2 + 3 + 4 + '"' + ' '
  // Columns: s=1 ' '=2 '='=3 ' '=4 '"'=5 é=6 日=7 😀=8 '"'=9 ' '=10 '+'=11
  CHECK(f.position(5) == pos(1, 6));    // first byte of é
  CHECK(f.position(7) == pos(1, 7));    // first byte of 日
  CHECK(f.position(10) == pos(1, 8));   // first byte of 😀
  CHECK(f.position(14) == pos(1, 9));   // closing quote
  CHECK(f.position(uint32_t(plus)) == pos(1, 11));
  size_t x = text.find('x');
  CHECK(f.position(uint32_t(x)) == pos(1, 13));
  size_t t = text.rfind('t');
  CHECK(f.position(uint32_t(t)) == pos(2, 3));  // z=1 é=2 t=3
}

TEST_CASE("position() clamps offsets past the end of the text", "[core][source]") {
  SourceFile f = make_file("ab\ncd");
  CHECK(f.position(5) == pos(2, 3));
  CHECK(f.position(6) == pos(2, 3));
  CHECK(f.position(1000) == pos(2, 3));
  CHECK(f.position(UINT32_MAX) == pos(2, 3));

  SourceFile g = make_file("ab\n");
  CHECK(g.position(3) == pos(2, 1));
  CHECK(g.position(99) == pos(2, 1));
}

TEST_CASE("an empty file has one empty line", "[core][source]") {
  SourceFile f = make_file("");
  CHECK(f.line_count() == 1);
  CHECK(f.position(0) == pos(1, 1));
  CHECK(f.position(42) == pos(1, 1));
  CHECK(f.line_text(1).empty());
  CHECK(f.line_text(0).empty());
  CHECK(f.line_text(2).empty());
}

TEST_CASE("line_text() strips \\n, \\r\\n and lone \\r terminators", "[core][source]") {
  SECTION("\\n") {
    SourceFile f = make_file("first\nsecond\n\nlast");
    REQUIRE(f.line_count() == 4);
    CHECK(f.line_text(1) == "first");
    CHECK(f.line_text(2) == "second");
    CHECK(f.line_text(3) == "");
    CHECK(f.line_text(4) == "last");  // no terminator on the last line
  }
  SECTION("\\r\\n") {
    SourceFile f = make_file("first\r\nsecond\r\n\r\nlast\r\n");
    REQUIRE(f.line_count() == 5);
    CHECK(f.line_text(1) == "first");
    CHECK(f.line_text(2) == "second");
    CHECK(f.line_text(3) == "");
    CHECK(f.line_text(4) == "last");
    CHECK(f.line_text(5) == "");
    CHECK(f.position(7) == pos(2, 1));   // 's' of second
    CHECK(f.position(5) == pos(1, 6));   // the '\r'
    CHECK(f.position(6) == pos(1, 7));   // the '\n' of the same "\r\n"
  }
  SECTION("lone \\r") {
    SourceFile f = make_file("first\rsecond\r\rlast");
    REQUIRE(f.line_count() == 4);
    CHECK(f.line_text(1) == "first");
    CHECK(f.line_text(2) == "second");
    CHECK(f.line_text(3) == "");
    CHECK(f.line_text(4) == "last");
    CHECK(f.position(6) == pos(2, 1));
    CHECK(f.position(14) == pos(4, 1));
  }
  SECTION("mixed terminators, and \\n\\r is two line breaks") {
    SourceFile f = make_file("a\nb\r\nc\rd\n\re");
    REQUIRE(f.line_count() == 6);
    CHECK(f.line_text(1) == "a");
    CHECK(f.line_text(2) == "b");
    CHECK(f.line_text(3) == "c");
    CHECK(f.line_text(4) == "d");
    CHECK(f.line_text(5) == "");
    CHECK(f.line_text(6) == "e");
  }
  SECTION("line 0 and lines past the end are empty") {
    SourceFile f = make_file("x = 1\n");
    CHECK(f.line_text(0) == "");
    CHECK(f.line_text(3) == "");
    CHECK(f.line_text(UINT32_MAX) == "");
  }
  SECTION("multi-byte text is returned intact") {
    SourceFile f = make_file("# caf\xC3\xA9\r\n");
    CHECK(f.line_text(1) == "# caf\xC3\xA9");
  }
}

TEST_CASE("line_starts() gives the byte offset of each line's first byte", "[core][source]") {
  using V = std::vector<uint32_t>;
  CHECK(line_starts("") == V{0});
  CHECK(line_starts("abc") == V{0});
  CHECK(line_starts("a\nb") == V{0, 2});
  CHECK(line_starts("a\n") == V{0, 2});
  CHECK(line_starts("a\r\nb") == V{0, 3});
  CHECK(line_starts("a\rb") == V{0, 2});
  CHECK(line_starts("\n\n") == V{0, 1, 2});
  CHECK(line_starts("\r\n\r\n") == V{0, 2, 4});
  CHECK(line_starts("\n\r") == V{0, 1, 2});      // "\n" then a lone "\r"
  CHECK(line_starts("\r\r\n") == V{0, 1, 3});    // a lone "\r" then "\r\n"
  CHECK(line_starts("\r") == V{0, 1});
  CHECK(line_starts("x\xC3\xA9\ny") == V{0, 4});  // byte offsets, not code points
  // Line ends after eight or more bytes, and across the eight-byte words the scan reads.
  CHECK(line_starts("0123456789abcdef\n0123456\r\n89abcdef\r01234567") == V{0, 17, 26, 35});
  CHECK(line_starts("0123456\r\n\n\r\n\r89abcdef\n") == V{0, 9, 10, 12, 13, 22});
  CHECK(line_starts(std::string(100, 'x') + "\r") == V{0, 101});
}

TEST_CASE("line_starts() matches a byte-by-byte reading on generated text", "[core][source]") {
  // Every string of up to 20 bytes over {a, \n, \r} whose length and position vary against
  // the eight-byte words: compared with the definition, one byte at a time.
  auto by_bytes = [](std::string_view text) {
    std::vector<uint32_t> starts{0};
    for (uint32_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (text[i] == '\n' || text[i] == '\r') starts.push_back(i + 1);
    }
    return starts;
  };
  uint32_t seed = 12345;
  for (int n = 0; n < 3000; ++n) {
    std::string text;
    seed = seed * 1103515245 + 12345;
    size_t len = seed % 21;
    for (size_t k = 0; k < len; ++k) {
      seed = seed * 1103515245 + 12345;
      text += "aaaaa\n\r"[(seed >> 16) % 7];
    }
    INFO(text);
    CHECK(line_starts(text) == by_bytes(text));
  }
}

TEST_CASE("line_starts() agrees with line_count() and position()", "[core][source]") {
  std::string text = "def f():\r\n    return 1\r\n\n# \xE2\x82\xAC\rend";
  SourceFile f = make_file(text);
  auto starts = line_starts(text);
  REQUIRE(f.line_count() == starts.size());
  for (size_t i = 0; i < starts.size(); ++i) {
    INFO("line " << i + 1);
    CHECK(f.position(starts[i]) == pos(uint32_t(i + 1), 1));
  }
}

TEST_CASE("count_code_points() counts code points, not bytes", "[core][source]") {
  CHECK(count_code_points("") == 0);
  CHECK(count_code_points("abc") == 3);
  CHECK(count_code_points("\xC3\xA9") == 1);                      // é
  CHECK(count_code_points("\xE2\x82\xAC") == 1);                  // €
  CHECK(count_code_points("\xF0\x9F\x98\x80") == 1);              // 😀
  CHECK(count_code_points("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E") == 3);  // 日本語
  CHECK(count_code_points("a\xC3\xA9z\xF0\x9F\x98\x80") == 4);
  // Invalid UTF-8 still gives a sensible count: stray continuation bytes are not counted,
  // a lone lead byte counts as one.
  CHECK(count_code_points("\x80\x80") == 0);
  CHECK(count_code_points("a\x80" "b") == 2);
  CHECK(count_code_points("\xC3") == 1);
  CHECK(count_code_points("\xFF") == 1);
  CHECK(count_code_points(std::string_view("a\0b", 3)) == 3);
}

TEST_CASE("is_valid_utf8() accepts well-formed UTF-8", "[core][source]") {
  CHECK(is_valid_utf8(""));
  CHECK(is_valid_utf8("plain ascii\n\t~"));
  CHECK(is_valid_utf8(std::string_view("nul\0inside", 10)));
  CHECK(is_valid_utf8("\x7F"));                  // U+007F, the largest 1-byte form
  CHECK(is_valid_utf8("\xC2\x80"));              // U+0080, the smallest 2-byte form
  CHECK(is_valid_utf8("\xC3\xA9"));              // é
  CHECK(is_valid_utf8("\xDF\xBF"));              // U+07FF
  CHECK(is_valid_utf8("\xE0\xA0\x80"));          // U+0800, the smallest 3-byte form
  CHECK(is_valid_utf8("\xE2\x82\xAC"));          // €
  CHECK(is_valid_utf8("\xED\x9F\xBF"));          // U+D7FF, just below the surrogates
  CHECK(is_valid_utf8("\xEE\x80\x80"));          // U+E000, just above the surrogates
  CHECK(is_valid_utf8("\xEF\xBF\xBF"));          // U+FFFF
  CHECK(is_valid_utf8("\xF0\x90\x80\x80"));      // U+10000, the smallest 4-byte form
  CHECK(is_valid_utf8("\xF0\x9F\x98\x80"));      // 😀
  CHECK(is_valid_utf8("\xF4\x8F\xBF\xBF"));      // U+10FFFF, the largest code point
  CHECK(is_valid_utf8("x = '\xE6\x97\xA5\xE6\x9C\xAC' # \xC3\xA9\n"));
  CHECK(is_valid_utf8("0123456789abcdef\xC3\xA9 then eight or more ascii bytes \xF0\x9F\x98\x80"));
}

TEST_CASE("is_valid_utf8() rejects overlong forms", "[core][source]") {
  CHECK_FALSE(is_valid_utf8("\xC0\x80"));          // U+0000 in 2 bytes
  CHECK_FALSE(is_valid_utf8("\xC0\xAF"));          // '/' in 2 bytes
  CHECK_FALSE(is_valid_utf8("\xC1\xBF"));          // U+007F in 2 bytes
  CHECK_FALSE(is_valid_utf8("\xE0\x80\x80"));      // U+0000 in 3 bytes
  CHECK_FALSE(is_valid_utf8("\xE0\x9F\xBF"));      // U+07FF in 3 bytes
  CHECK_FALSE(is_valid_utf8("\xF0\x80\x80\x80"));  // U+0000 in 4 bytes
  CHECK_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));  // U+FFFF in 4 bytes
  CHECK_FALSE(is_valid_utf8("ok \xC0\xAF ok"));
  CHECK_FALSE(is_valid_utf8("0123456789abcdef\xC0\xAF and ascii after it"));  // past the eight-byte words
  CHECK_FALSE(is_valid_utf8("0123456789abcdef\xC3\xA9 ok \xE2\x82"));       // cut short at the end
}

TEST_CASE("is_valid_utf8() rejects surrogates and code points past U+10FFFF", "[core][source]") {
  CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));      // U+D800
  CHECK_FALSE(is_valid_utf8("\xED\xAD\xBF"));      // U+DB7F
  CHECK_FALSE(is_valid_utf8("\xED\xB0\x80"));      // U+DC00
  CHECK_FALSE(is_valid_utf8("\xED\xBF\xBF"));      // U+DFFF
  CHECK_FALSE(is_valid_utf8("\xED\xA0\xBD\xED\xB8\x80"));  // a CESU-8 surrogate pair
  CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  CHECK_FALSE(is_valid_utf8("\xF7\xBF\xBF\xBF"));  // U+1FFFFF
  CHECK_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));  // lead byte F5 can never be valid
}

TEST_CASE("is_valid_utf8() rejects invalid lead bytes, stray continuations and truncation",
          "[core][source]") {
  CHECK_FALSE(is_valid_utf8("\x80"));              // a continuation byte alone
  CHECK_FALSE(is_valid_utf8("a\xBF" "b"));
  CHECK_FALSE(is_valid_utf8("\xF8\x88\x80\x80\x80"));  // 5-byte form
  CHECK_FALSE(is_valid_utf8("\xFC\x84\x80\x80\x80\x80"));  // 6-byte form
  CHECK_FALSE(is_valid_utf8("\xFE"));
  CHECK_FALSE(is_valid_utf8("\xFF"));
  // Truncated sequences, at the end of the text and followed by other bytes.
  CHECK_FALSE(is_valid_utf8("\xC3"));
  CHECK_FALSE(is_valid_utf8("\xE2\x82"));
  CHECK_FALSE(is_valid_utf8("\xF0\x9F\x98"));
  CHECK_FALSE(is_valid_utf8("abc\xE2\x82"));
  CHECK_FALSE(is_valid_utf8("\xC3" "A"));
  CHECK_FALSE(is_valid_utf8("\xE2\x82" "A"));
  CHECK_FALSE(is_valid_utf8("\xF0\x9F\x98" "A"));
  CHECK_FALSE(is_valid_utf8("\xE2\xC3\xA9"));      // a new lead byte where a continuation belongs
}

TEST_CASE("code lines: blank and comment lines are not code", "[core][source]") {
  using tpulint::count_code_lines;
  using tpulint::Language;
  CHECK(count_code_lines("", Language::Python) == 0);
  CHECK(count_code_lines("x = 1\n\n  \t\n# a comment\n  # indented\ny = 2  # trailing\n", Language::Python) == 2);
  CHECK(count_code_lines("x = 1", Language::Python) == 1);  // no final line break
  CHECK(count_code_lines("a\r\nb\rc\n", Language::Python) == 3);
  CHECK(count_code_lines("// c\n/* block\n * more\n */\nint x;\n  int y; // z\n#include <a>\n", Language::Cuda) == 3);
  CHECK(count_code_lines("# not a comment in C\n", Language::Cxx) == 1);
}

TEST_CASE("generated files: the tool that wrote a file, from its first lines", "[core][source]") {
  using tpulint::generator_of;
  CHECK(generator_of("/* Generated by Cython 0.20.1 on Wed Oct  5 13:15:30 2016 */\n#define PY_SSIZE_T_CLEAN\n") == "Cython");
  CHECK(generator_of("// Generated by the protocol buffer compiler.  DO NOT EDIT!\n// source: a.proto\n") ==
        "the protocol buffer compiler");
  CHECK(generator_of("# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n") ==
        "the protocol buffer compiler");
  CHECK(generator_of("/* ----\n * This file was automatically generated by SWIG (https://www.swig.org).\n") == "SWIG");
  CHECK(generator_of("// @generated by tools/codegen.py\nint x;\n") == "a code generator (@generated)");
  CHECK(generator_of("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n") == "a code generator (DO NOT EDIT)");
  // Near misses: hand-written code that mentions generation, and a marker past the header.
  CHECK(generator_of("// Code generated here is checked by hand.\n// DO NOT EDIT the table below without tests.\n").empty());
  CHECK(generator_of("def generated_by(tool):\n    return f'Generated by {tool}'\n").empty());
  CHECK(generator_of(std::string(4096, ' ') + "/* Generated by Cython */").empty());
  CHECK(generator_of("").empty());
}

TEST_CASE("hand-written part: none of a generated file, what precedes a Cython section pasted after code",
          "[core][source]") {
  using tpulint::hand_written_part;
  const std::string kernel = "__global__ void nms_kernel(int n) {}\n";
  CHECK(hand_written_part(kernel) == kernel);
  CHECK(hand_written_part(kernel + "\n/* Generated by Cython 0.24 */\n#define PY_SSIZE_T_CLEAN\nint x;\n") ==
        kernel + "\n");
  CHECK(hand_written_part("/* Generated by Cython 0.29 */\nint x;\n").empty());
  // Only a line opening the marker: a mention inside a comment's text or a string is code.
  const std::string mention = "// see /* Generated by Cython */ in gpu_nms.cpp\nint x;\n";
  CHECK(hand_written_part(std::string(4096, '/') + "\n" + mention) == std::string(4096, '/') + "\n" + mention);
  CHECK(tpulint::count_code_lines(hand_written_part(kernel + "/* Generated by Cython */\nint a;\nint b;\n"),
                                  Language::Cuda) == 1);
}

TEST_CASE("position() on a line longer than a block counts the same columns as from the line's start",
          "[core][source]") {
  // A 100 KB line of mixed one- to four-byte characters, after a short line: the columns there are
  // counted from block starts (so many findings on one line do not each read it), and must agree
  // with counting every code point from the line's start.
  std::string line;
  for (int i = 0; line.size() < 100000; ++i) line += i % 7 == 0 ? "\xC3\xA9" : i % 11 == 0 ? "\xF0\x9F\x98\x80" : "a";
  std::string text = "x = 1\n" + line + "\nz\n";
  SourceFile f = make_file(text);
  for (uint32_t offset = 6; offset < 6 + line.size(); offset += 997) {
    if ((static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) continue;
    INFO(offset);
    CHECK(f.position(offset) == pos(2, count_code_points(std::string_view(text).substr(6, offset - 6)) + 1));
  }
  CHECK(f.position(uint32_t(text.size() - 2)) == pos(3, 1));
  CHECK(f.position(uint32_t(text.size())) == pos(4, 1));
}
