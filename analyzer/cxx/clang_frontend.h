// The C/C++/CUDA frontend on Clang LibTooling. This header is Clang-free: Clang's headers are
// included by clang_frontend.cpp alone, so nothing else pays for them at compile time.
//
// Two depths:
// - header-free (the default): each file is parsed on its own with synthesized flags (CUDA as
//   `-x cuda -nocudainc -nocudalib` with a built-in shim declaring the CUDA builtins), no
//   CUDA SDK, torch or third-party headers needed; a missing #include is recorded and skipped
//   so the rest of the file is still analyzed. Headers of the scanned tree are found by name
//   (project_headers.h), and missing torch headers are replaced by built-in declarations.
// - with a compile database (`-p DIR`, or compile_commands.json at the root or under build/):
//   the file's flags are used, as far as compile_database.h allows them.
//
// Either way Clang reads files through a file system that lets it read nothing outside the
// scanned tree but its own built-in headers (a `#include "/etc/passwd"`, a `</dev/zero>`, a
// header reached through a symlink are missing headers), no FIFO or device, and, with a
// database given by the user (-p), the header directories its command names.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/source_file.h"
#include "cxx/compile_database.h"
#include "cxx/native_facts.h"

namespace tpulint::cxx {

struct ClangFrontendOptions {
  std::shared_ptr<const CompileDatabase> compile_database;  // may be null
  // The scanned tree: Clang reads beneath it only (see above). Empty: the analyzed file's
  // directory.
  std::filesystem::path tree_root;
  // CPU time one file's parse may use (its passes together); past it Clang is stopped and the
  // file's facts come from its tokens alone (NativeFile::over_budget). Zero: no budget.
  std::chrono::milliseconds time_budget{0};
  // Whether header-free C++ and CUDA parses load the standard library precompiled, once per
  // parser and kind of parse (C++, CUDA host, CUDA device), instead of parsing its headers in
  // each file. Off only to compare the facts with and without it.
  bool precompile_standard_library = true;
  // Whether header-free C++ and CUDA parses load the #include lines a file opens with
  // precompiled, when a parser met the same lines (or a longer run of them) before. Off only to
  // compare the facts with and without it.
  bool precompile_preambles = true;
  // Whether a file that only instantiates templates defined elsewhere, with nothing in it the
  // preprocessor must decide, is read in its tokens instead of parsed (the facts are the same).
  // Off only to compare the facts with and without it.
  bool read_instantiation_files_in_tokens = true;
  // Whether a file with no device code (no kernel, device function or launch, in its words or in
  // the project macros it uses) whose preprocessor conditions can be decided without its headers
  // is read in its tokens instead of parsed: the facts are the same but for its host function
  // definitions, which it does not list (NativeFile::functions). Off only to compare the facts
  // with and without it.
  bool read_host_files_in_tokens = true;
};

// What the Clang module implements: one parser per worker.
class NativeParser {
 public:
  virtual ~NativeParser() = default;
  // Parses `file` (its text as already loaded, not re-read from disk) and records its facts.
  // Throws std::runtime_error if Clang could not build an AST at all.
  virtual NativeFile parse(const SourceFile& file) = 0;
  // The facts of several headers, in their order, each as `parse` would find them: headers parsed
  // the same way (the same flags and passes, without a compile database) share one parse that
  // includes them in turn, so that what they include is read once, not once per header. A header
  // may then see macros an earlier one defined without its including that one. One the shared
  // parse never entered (another header defined its include guard), and every header of a shared
  // parse that failed (a fatal error, past the time budget, which is the budget per header times
  // the headers), is parsed alone. A header's `error_count` in a shared parse counts the errors
  // written in it.
  virtual std::vector<NativeFile> parse_together(std::span<const SourceFile> files) = 0;
  // The clang command line of each pass `parse` would run on `file` (device, then host), for
  // comparing with clang-19 -fsyntax-only (`tpulint clang-commands`). The built-in shims are
  // named by their virtual paths (kCudaShimPath, kTorchShimPath). The precompiled standard library
  // (ClangFrontendOptions) is not among the flags: it is the same headers, read once.
  virtual std::vector<std::vector<std::string>> commands(const SourceFile& file) = 0;
};

// One per worker thread. Clang and LLVM (~100 MB of shared libraries whose loading costs more
// than a cached scan) live in a module, libtpulint_clang.so, loaded when the first
// ClangFrontend or compile database is made: a scan without C/C++ files never loads them.
class ClangFrontend {
 public:
  // Throws std::runtime_error, naming the path tried, when the module cannot be loaded.
  explicit ClangFrontend(ClangFrontendOptions options);
  ~ClangFrontend();
  ClangFrontend(const ClangFrontend&) = delete;
  ClangFrontend& operator=(const ClangFrontend&) = delete;

  NativeFile parse(const SourceFile& file) { return parser_->parse(file); }
  std::vector<NativeFile> parse_together(std::span<const SourceFile> files) { return parser_->parse_together(files); }
  std::vector<std::vector<std::string>> commands(const SourceFile& file) { return parser_->commands(file); }

 private:
  std::unique_ptr<NativeParser> parser_;
};

// Loads the Clang module now, if it is not loaded yet (once per process). Throws
// std::runtime_error, naming the paths tried, when it cannot be loaded.
void load_clang_module();

// The module a C/C++ parse would load, named by path, size and modification time, found
// without loading it: the result cache keys on it, so that a rebuilt or reinstalled frontend
// never reuses an older one's results. "linked in" when the binary contains the frontend.
std::string clang_module_identity();

// The module's entry point: the interface it was built with (kClangInterface, a hash of the
// headers it shares with the binary: it must be the binary's own), its version and its factory.
// `interface` stays the first member in every build, so a binary can read it from any module.
struct ClangModule {
  std::string_view interface;
  std::string_view version;
  std::unique_ptr<NativeParser> (*make_parser)(ClangFrontendOptions options);
};
// Named anew when ClangModule began with `interface`: a module older than that has no such entry.
inline constexpr char kClangModuleEntry[] = "tpulint_clang_module_v2";
inline constexpr char kClangModuleFile[] = "libtpulint_clang.so";

// The built-in header force-included in header-free CUDA parses (cuda_shim.cpp).
extern const char kCudaShimPath[];
extern const char kCudaShim[];
// The built-in torch/ATen/c10/pybind11 declarations, force-included in header-free C++/CUDA
// parses of files that include those headers when they are missing (torch_shim.cpp).
extern const char kTorchShimPath[];
extern const char kTorchShim[];

}  // namespace tpulint::cxx
