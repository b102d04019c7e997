// A compile_commands.json, read without Clang, and the arguments of its commands that Clang
// may be given. Clang-free: the scan loads it in the parent (a Python-only scan never loads
// Clang), and the Clang module turns a command into a parse.
//
// A compile database is untrusted input: one found in the scanned tree (or named by its
// configuration) was written by whoever wrote the tree, and even the user's own (`-p`) was
// written by the tree's build scripts. Its commands are cut down to an allow-list of the kinds
// of arguments a syntax-only parse needs (macros, include paths, language and standard,
// target and CUDA architecture, warnings, a few language switches); everything else is left
// out: output and dependency files, diagnostics and module-cache files, plugins, response
// files (`@file`), every pass-through (`-Xclang`, `-mllvm`, `-Xcompiler`, `-Wp,` ...), other
// input files, and nvcc's own options.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace tpulint::cxx {

// Who wrote the compile database decides what its commands may make Clang read.
enum class DatabaseOrigin {
  Tree,  // found at the scan root or under build/, or named by the tree's configuration:
         // Clang reads nothing outside the tree (and tpulint's own files)
  User,  // given with -p: the header directories its commands name may be read too
};

struct CompileDatabaseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One file's command, ready for Clang.
struct CompileCommand {
  std::string directory;               // the working directory of the command (absolute)
  std::vector<std::string> arguments;  // allowed arguments, without the compiler and the input file
};

class CompileDatabase {
 public:
  // Parses the JSON text of `dir`/compile_commands.json. Throws CompileDatabaseError saying
  // what is wrong (not JSON, not an array of entries, an entry without a file or a command).
  static CompileDatabase parse(std::string_view json, const std::filesystem::path& dir, DatabaseOrigin origin);

  DatabaseOrigin origin() const { return origin_; }
  size_t size() const { return entries_.size(); }

  // The command for `file` (absolute, lexically normal) of `language`: its own entry, else
  // that of the listed file nearest to it in the tree (a header gets the flags of a source
  // beside it); nullopt when there is none. A CUDA file is parsed as CUDA whatever `-x` its
  // entry says.
  std::optional<CompileCommand> command_for(const std::filesystem::path& file, Language language) const;

 private:
  struct Entry {
    std::string file;                    // absolute, lexically normal
    std::string directory;               // absolute
    std::vector<std::string> arguments;  // as written, the compiler first
  };
  std::vector<Entry> entries_;  // sorted by file
  DatabaseOrigin origin_ = DatabaseOrigin::Tree;
};

// A shell-style command line split into arguments as Clang's JSON compile database splits a
// "command" (whitespace separates; '...' is literal; "..." and a backslash escape).
std::vector<std::string> split_command_line(std::string_view command);

// The arguments of `arguments` (a compiler's command line, the compiler first) that Clang may
// be given, in order, without the compiler and without any input file (relative paths in them
// stay relative to the command's directory). `language` is what tpulint analyzes the file as:
// a CUDA file is parsed as CUDA whatever `-x` the command says. A sysroot is kept from the
// user's own database only; a target only when it is a plain triple.
std::vector<std::string> allowed_arguments(std::span<const std::string> arguments, Language language,
                                           DatabaseOrigin origin);

// The include directories `arguments` (allowed arguments) name, absolute and lexically normal,
// relative ones taken from `directory`.
std::vector<std::filesystem::path> include_directories(std::span<const std::string> arguments,
                                                       const std::filesystem::path& directory);

// Whether a file name's extension (".cuh", with its dot) is a C/C++/CUDA header's.
bool is_header_extension(std::string_view ext);

}  // namespace tpulint::cxx
