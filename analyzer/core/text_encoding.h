// A source file's bytes as UTF-8. Files are decoded once, as they are read, so that every
// frontend, check and reporter works on UTF-8 alone.
//
// Decoding keeps every line terminator where it was, so a finding's line is the file's line, and
// a column (which counts code points, SourceFile::position) counts the file's characters as an
// editor that reads the file in its encoding shows them; a byte-order mark is not one of them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/types.h"

namespace tpulint {

// A PEP 263 encoding declaration: `# -*- coding: latin-1 -*-`, `# vim: set fileencoding=cp1252 :`.
struct EncodingDeclaration {
  std::string name;   // as written
  uint32_t line = 0;  // 1 or 2
};

// The declaration of a Python file's encoding: on its first line, or on its second when the first
// holds only a comment or nothing (as CPython's tokenizer reads it).
std::optional<EncodingDeclaration> python_encoding_declaration(std::string_view text);

// True if the text starts with a UTF-16 byte-order mark, in either byte order.
bool starts_with_utf16_bom(std::string_view text);

// Turns a file's bytes into UTF-8 in place; returns why it cannot (the file is then not
// analyzed), or nothing.
// - A UTF-16 byte-order mark (either order) means UTF-16, in any language. A UTF-8 one is dropped.
// - Otherwise a Python file is in the encoding its PEP 263 declaration names (decoded with iconv,
//   so any encoding the C library knows; Python's aliases such as `latin-1` are mapped to it), or
//   UTF-8 when there is none. An unknown encoding is read as UTF-8 if the bytes are UTF-8.
// - Other languages are kept as they are: compilers take Latin-1 comments and strings as bytes.
std::optional<std::string> decode_to_utf8(std::string& text, Language language);

}  // namespace tpulint
