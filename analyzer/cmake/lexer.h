// The CMake frontend's lexer: CMake's command-invocation syntax (the cmake-language(7) grammar)
// read as text, never run. A file is a list of commands `name(arguments)`; arguments are
// quoted ("..."), bracket ([[...]], [=[...]=]) or unquoted, separated by whitespace and
// comments (`#...`, `#[[...]]`), with nested parentheses and line continuations. Malformed
// input (an unterminated quote or bracket, a missing ')') stops the lexer with an error: the
// commands before it are kept.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace tpulint::cmake {

enum class ArgumentKind : uint8_t {
  Unquoted,  // expanded, then split on ';' into several values
  Quoted,    // expanded, one value; escapes and line continuations already applied
  Bracket,   // taken literally, never expanded
};

struct Argument {
  std::string text;  // without quotes or brackets
  ArgumentKind kind = ArgumentKind::Unquoted;
  ByteSpan span;     // the argument as written, quotes included
  Position start;
};

struct Command {
  std::string name;  // lower case: CMake command names are case-insensitive
  ByteSpan name_span;
  Position start;    // of the name
  std::vector<Argument> arguments;
};

struct LexError {
  ByteSpan at;
  Position start;
  std::string message;  // lower case, no final period
};

struct Lexed {
  std::vector<Command> commands;
  std::optional<LexError> error;  // set when the lexer stopped early
};

Lexed lex(std::string_view text);

}  // namespace tpulint::cmake
