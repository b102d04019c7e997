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
//   the file's real flags are used.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "core/source_file.h"
#include "cxx/native_facts.h"

namespace tpulint::cxx {

// A loaded compile_commands.json; read-only and shared by all workers.
class CompileDatabase {
 public:
  // Loads DIR/compile_commands.json. Throws std::runtime_error with Clang's message on failure.
  static std::shared_ptr<const CompileDatabase> load(const std::filesystem::path& dir);
  // compile_commands.json at `root` or `root`/build, if there is one (nullptr otherwise).
  static std::shared_ptr<const CompileDatabase> find(const std::filesystem::path& root);
  ~CompileDatabase();

  struct Impl;
  const Impl& impl() const { return *impl_; }

 private:
  explicit CompileDatabase(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct ClangFrontendOptions {
  std::shared_ptr<const CompileDatabase> compile_database;  // may be null
};

// One per worker thread.
class ClangFrontend {
 public:
  explicit ClangFrontend(ClangFrontendOptions options);
  ~ClangFrontend();
  ClangFrontend(const ClangFrontend&) = delete;
  ClangFrontend& operator=(const ClangFrontend&) = delete;

  // Parses `file` (its text as already loaded, not re-read from disk) and records its facts.
  // Throws std::runtime_error if Clang could not build an AST at all.
  NativeFile parse(const SourceFile& file);

 private:
  ClangFrontendOptions options_;
};

// The built-in header force-included in header-free CUDA parses (cuda_shim.cpp).
extern const char kCudaShimPath[];
extern const char kCudaShim[];
// The built-in torch/ATen/c10/pybind11 declarations, force-included in header-free C++/CUDA
// parses of files that include those headers when they are missing (torch_shim.cpp).
extern const char kTorchShimPath[];
extern const char kTorchShim[];

}  // namespace tpulint::cxx
