// decode_to_utf8 and python_encoding_declaration: PEP 263 declarations, the encodings they name,
// byte-order marks, and lines and columns that stay the file's own.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "core/source_file.h"
#include "core/text_encoding.h"

using namespace tpulint;

namespace {

// The decoded text, or "error: " and why it could not be decoded.
std::string decoded(std::string text, Language language = Language::Python) {
  if (std::optional<std::string> why = decode_to_utf8(text, language)) return "error: " + *why;
  return text;
}

std::string declared(std::string_view text) {
  auto d = python_encoding_declaration(text);
  return d ? d->name + "@" + std::to_string(d->line) : "";
}

}  // namespace

TEST_CASE("python_encoding_declaration reads PEP 263's forms on line 1 or 2", "[core][encoding]") {
  CHECK(declared("# -*- coding: latin-1 -*-\nx = 1\n") == "latin-1@1");
  CHECK(declared("# vim: set fileencoding=cp1252 :\n") == "cp1252@1");
  CHECK(declared("#!/usr/bin/env python\n# coding=utf_8\n") == "utf_8@2");
  CHECK(declared("\r\n  # This Python file uses the following encoding: iso-8859-15\r\n") == "iso-8859-15@2");
  CHECK(declared("\t\f# coding:\tShift_JIS") == "Shift_JIS@1");
  // The first "coding" followed by ':' or '=' and a name.
  CHECK(declared("# decoding nothing; coding: latin1\n") == "latin1@1");
  // Not a declaration: not in a comment, after a line of code, on line 3, no name.
  CHECK(declared("x = '# coding: latin-1'\n").empty());
  CHECK(declared("import os\n# coding: latin-1\n").empty());
  CHECK(declared("#\n#\n# coding: latin-1\n").empty());
  CHECK(declared("# coding: \n").empty());
  CHECK(declared("# coding latin-1\n").empty());
  CHECK(declared("").empty());
}

TEST_CASE("decode_to_utf8 decodes the encodings Python files declare", "[core][encoding]") {
  // Latin-1 under each of its names: é is 0xE9.
  for (std::string name : {"latin-1", "latin_1", "LATIN-1", "latin1", "iso-8859-1", "ISO8859-1", "iso-latin-1", "l1",
                           "cp819", "latin-1-unix"})
    CHECK(decoded("# coding: " + name + "\ns = 'caf\xE9'\n") == "# coding: " + name + "\ns = 'caf\xC3\xA9'\n");
  // cp1252: 0x80 is the euro sign, where Latin-1 has a C1 control.
  CHECK(decoded("# -*- coding: cp1252 -*-\ns = '\x80'\n") == "# -*- coding: cp1252 -*-\ns = '\xE2\x82\xAC'\n");
  CHECK(decoded("# -*- coding: windows-1252 -*-\ns = '\x80'\n") ==
        "# -*- coding: windows-1252 -*-\ns = '\xE2\x82\xAC'\n");
  CHECK(decoded("# -*- coding: latin-1 -*-\ns = '\x80'\n") == "# -*- coding: latin-1 -*-\ns = '\xC2\x80'\n");
  // Any encoding the C library knows: Shift_JIS "日" is 0x93 0xFA.
  CHECK(decoded("# coding: shift_jis\ns = '\x93\xFA'\n") == "# coding: shift_jis\ns = '\xE6\x97\xA5'\n");
  // UTF-8 and ASCII, declared or not, are kept as they are.
  CHECK(decoded("# coding: utf-8\ns = 'caf\xC3\xA9'\n") == "# coding: utf-8\ns = 'caf\xC3\xA9'\n");
  CHECK(decoded("s = 'caf\xC3\xA9'\n") == "s = 'caf\xC3\xA9'\n");
  CHECK(decoded("# coding: ascii\nx = 1\n") == "# coding: ascii\nx = 1\n");
}

TEST_CASE("decode_to_utf8 says why a Python file cannot be decoded", "[core][encoding]") {
  CHECK_THAT(decoded("s = 'caf\xE9'\n"), Catch::StartsWith("error: not valid UTF-8, and no encoding is declared"));
  CHECK_THAT(decoded("# coding: utf-8\ns = 'caf\xE9'\n"),
             Catch::Equals("error: not valid UTF-8, the encoding declared on line 1"));
  // A byte the declared encoding does not have, with its line.
  CHECK_THAT(decoded("# coding: cp1252\n\nx = '\x81'\n"),
             Catch::Equals("error: not valid 'cp1252' (declared on line 1): byte 0x81 on line 3"));
  CHECK_THAT(decoded("# coding: ascii\ns = 'caf\xE9'\n"), Catch::Contains("not valid 'ascii'"));
  // An encoding nobody knows: fine if the bytes are UTF-8 anyway, else said.
  CHECK(decoded("# coding: klingon\ns = 'caf\xC3\xA9'\n") == "# coding: klingon\ns = 'caf\xC3\xA9'\n");
  CHECK(decoded("# coding: klingon\nx = 1\n") == "# coding: klingon\nx = 1\n");
  CHECK_THAT(decoded("# coding: klingon\ns = 'caf\xE9'\n"),
             Catch::Equals("error: unknown encoding 'klingon' declared on line 1, and not valid UTF-8"));
  // An encoding its own declaration cannot be written in.
  CHECK_THAT(decoded("# coding: utf-16\ns = 'caf\xE9'\n"), Catch::Contains("does not read its own declaration"));
}

TEST_CASE("decode_to_utf8 follows byte-order marks, in any language", "[core][encoding]") {
  // UTF-16LE and BE "x.cuda()\n" with a character outside the BMP (U+1F600, a surrogate pair).
  std::string le = "\xFF\xFE";
  std::string be = "\xFE\xFF";
  for (char c : std::string("x.cuda()\n")) {
    le += std::string{c, '\0'};
    be += std::string{'\0', c};
  }
  le += std::string("\x3D\xD8\x00\xDE", 4);
  be += std::string("\xD8\x3D\xDE\x00", 4);
  CHECK(decoded(le) == "x.cuda()\n\xF0\x9F\x98\x80");
  CHECK(decoded(be, Language::Cuda) == "x.cuda()\n\xF0\x9F\x98\x80");
  CHECK_THAT(decoded(le.substr(0, le.size() - 1)), Catch::Equals("error: not valid UTF-16: it ends inside a character"));
  // A UTF-8 mark is dropped, whatever a declaration says; what follows must be UTF-8.
  CHECK(decoded("\xEF\xBB\xBF# coding: latin-1\ns = 'caf\xC3\xA9'\n") == "# coding: latin-1\ns = 'caf\xC3\xA9'\n");
  CHECK_THAT(decoded("\xEF\xBB\xBFs = 'caf\xE9'\n"), Catch::Contains("byte-order mark"));
  CHECK(decoded("\xEF\xBB\xBFint x;\n", Language::Cxx) == "int x;\n");
  // Other languages keep their bytes.
  CHECK(decoded("// caf\xE9\n", Language::Cxx) == "// caf\xE9\n");
}

TEST_CASE("decoded text has the file's lines, and columns count its characters", "[core][encoding]") {
  // Latin-1 "é" is one byte and two in UTF-8; CRLF and a lone CR stay line ends.
  std::string text = "# coding: latin-1\r\ns = '\xE9\xE9'; x.cuda()\rz\n";
  REQUIRE(decoded(text).find("error") == std::string::npos);
  SourceFile f("m.py", "/m.py", Language::Python, decoded(text));
  const std::string& utf8 = f.text();
  CHECK(f.position(uint32_t(utf8.find("cuda"))) == Position{2, 13});  // the 13th character of line 2
  CHECK(f.position(uint32_t(utf8.find('z'))) == Position{3, 1});
}
