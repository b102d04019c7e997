// Header-free mode, part 1: headers of the scanned project found by name. An
// `#include "pytorch_cuda_helper.hpp"` or `<mylib/kernels.cuh>` that names a file somewhere in
// the scanned tree resolves to it (the include directory that makes it resolve is added), so a
// kernel declared in a project header is known where it is launched. Clang-free.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/source_file.h"
#include "core/source_tree.h"

namespace tpulint::cxx {

// An #include target as spelled, with whether it is quoted.
struct SpelledInclude {
  std::string path;
  bool quoted = false;
};

struct HeaderResolution {
  std::vector<std::string> include_dirs;  // to add with -I, in the order found
  // A torch/ATen/c10/pybind11 header is included (directly or by a project header) and is not
  // in the tree: the built-in torch declarations (torch_shim.cpp) stand in for it.
  bool torch_missing = false;
  // The standard library headers included (directly or by a project header), sorted: what the
  // parse may load precompiled (clang_frontend.cpp).
  std::vector<std::string> standard_headers;
  // The file's leading #includes (leading_includes) that a precompiled preamble may hold, in
  // order: they stop at the first project header with no include guard (the file would then
  // read it a second time after the preamble) or that the resolver did not read, at an absolute
  // path, and are none when a header the file reaches includes the file itself; 48 at most.
  std::vector<SpelledInclude> preamble;
};

// Follows the file's #includes, and those of the project headers they resolve to (a bounded
// number), through an index of the tree's headers built once per scan root. Reads nothing
// outside `tree` and follows no symlink.
HeaderResolution resolve_project_headers(const SourceFile& file, const SourceTree& tree);

// Each of the file's own #includes with the header beneath the root it resolves to, as
// resolve_project_headers and then Clang resolve it ("" when it is not one of the tree's), in
// order. Reads no header.
std::vector<std::pair<SpelledInclude, std::string>> main_include_headers(const SourceFile& file,
                                                                          const SourceTree& tree);

// Whether `spelled` names a header of the C++17 standard library or of its C library.
bool is_standard_library_header(std::string_view spelled);

// The #include targets of a C/C++ text, as spelled.
std::vector<SpelledInclude> spelled_includes(std::string_view text);

// The #include lines a C/C++ text opens with, as spelled and in order: after comments, blank
// lines, `#pragma once` and an include guard's #ifndef and #define, up to the first other line.
// What a file's parse may load precompiled before the rest of it (clangd's preamble, of includes
// only).
std::vector<SpelledInclude> leading_includes(std::string_view text);

// Whether a header's text opens with `#pragma once` or an include guard (#ifndef NAME, then
// #define NAME): reading it a second time adds nothing.
bool has_include_guard(std::string_view text);

// Whether C/C++ text holds device code by its words: `__global__`, `__device__`, `__shared__`,
// `__constant__`, `__managed__`, `__launch_bounds__`, `__CUDA_ARCH__`, a `<<<` launch, a device
// attribute (`__attribute__((device))`), or inline assembly (`asm`); compiled as CUDA
// (`cuda`), a `constexpr` function too, which Clang makes a host and device function.
bool mentions_device_code(std::string_view text, bool cuda);

// Macros #defined in a set of files: which files define each name, and which names expand to
// device code (their body mentions it, or names another such macro of the set), compiled as C++
// and as CUDA.
struct MacroIndex {
  std::unordered_map<std::string, std::vector<std::string>> defined_in;  // name -> the defining files
  std::unordered_set<std::string> device;
  std::unordered_set<std::string> device_in_cuda;  // holds `device`
  // Function-like macros whose body calls one of their parameters (`decltype(name(args...))`),
  // directly or through another such macro: a use names a call its tokens do not show.
  std::unordered_set<std::string> calls_parameter;
};

// The macros of `texts` (each a file's path and text).
MacroIndex macros_of(const std::vector<std::pair<std::string, std::string_view>>& texts);

// The macros of the scanned tree's headers (the files resolve_project_headers may follow, by
// their paths beneath the root), built once per root and shared by all workers. Reads nothing
// outside `tree`. Like a parse's, a result that depends on them is cached under the key of the
// headers the scan discovers (is_cxx_header_path): a `.cu` or `.inc` file that another includes is
// read but not in that key.
std::shared_ptr<const MacroIndex> project_macros(const SourceTree& tree);

}  // namespace tpulint::cxx
