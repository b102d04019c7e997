// The lexical passes over a C/C++/CUDA file's tokens: what Clang's AST loses without headers
// (statements mentioning unknown names, code after a fatal error, macros it has no definition
// for) is still written in the tokens. Clang-free: clang_frontend.cpp lexes the file with
// Clang's raw lexer and hands the tokens over; the passes only add facts the AST lacks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cxx/native_facts.h"

namespace tpulint::cxx {

struct LexToken {
  enum Kind : uint8_t { Identifier, String, Number, Punct, LaunchOpen, LaunchClose, Other };
  Kind kind = Other;
  bool in_directive = false;  // part of a preprocessor directive line (#define bodies included)
  uint32_t offset = 0;
  std::string_view text;      // a view into the file's text
};

class LexicalFile {
 public:
  // `inactive`: byte ranges the preprocessor skipped (inactive #if branches) in every pass.
  LexicalFile(std::string_view text, std::vector<LexToken> tokens, std::vector<ByteSpan> inactive);

  const std::vector<LexToken>& tokens() const { return tokens_; }
  std::string_view text() const { return text_; }
  bool inactive(uint32_t offset) const;
  // Code tokens: not in a directive line nor in an inactive branch.
  bool is_code(size_t i) const { return !tokens_[i].in_directive && !inactive(tokens_[i].offset); }
  bool is(size_t i, std::string_view text) const { return i < tokens_.size() && tokens_[i].text == text; }
  bool identifier(size_t i) const { return i < tokens_.size() && tokens_[i].kind == LexToken::Identifier; }
  // The index of the bracket closing the one at `open` ((, [, {), or tokens().size().
  size_t closing(size_t open) const;
  size_t index_at(uint32_t offset) const;  // the first token at or after `offset`
  uint32_t end_of(size_t i) const { return tokens_[i].offset + uint32_t(tokens_[i].text.size()); }
  uint32_t lines(ByteSpan span) const;     // lines from the span's first to its last byte

 private:
  std::string_view text_;
  std::vector<LexToken> tokens_;
  std::vector<ByteSpan> inactive_;
};

// Adds `name<<<...>>>(...)` launches the AST does not have (same start offset = same launch),
// and names those the AST has without a callee name.
void add_lexical_launches(const LexicalFile& file, NativeFile& out);
// Adds `__global__` definitions the AST does not have (Clang stopped early, or dropped them).
void add_lexical_kernels(const LexicalFile& file, NativeFile& out);
// A run of adjacent string literals (raw or not) in the file's code that holds `__global__`: a
// kernel source compiled at run time. `code` is the file's text of `span` with what is not the
// source blanked out, byte for byte (quotes, prefixes, raw delimiters, escape sequences): lexed as
// code, its tokens keep their offsets in the file.
struct KernelSource {
  ByteSpan span;
  std::string code;
};
std::vector<KernelSource> kernel_source_strings(const LexicalFile& file);
// Adds the `__global__` definitions of a kernel source (`source`: the tokens of one
// KernelSource's code), measured, as runtime_compiled kernels. Names may be format placeholders:
// `__global__ void {KERNEL_NAME}(...)`.
void add_runtime_compiled_kernels(const LexicalFile& source, NativeFile& out);
// Fills the metrics of every kernel and device function but the runtime-compiled ones (measured
// in their source).
void measure_device_code(const LexicalFile& file, NativeFile& out);
// Each directive of the file as the token range [begin, end) from its line-opening '#'.
std::vector<std::pair<size_t, size_t>> directives(const LexicalFile& file);
// What is known of a macro where a condition tests it.
enum class MacroState { Defined, Undefined, Unknown };
// The byte ranges of the file's inactive #if branches, as Clang's preprocessor reports them
// skipped (from the '#' of the directive opening a skipped branch to the end of the line of the
// one closing it), when every condition the preprocessor evaluates can be decided from `state`
// and the file's own #define and #undef lines before it: #ifdef, #ifndef, and #if/#elif of
// integers, names, defined(), !, &&, ||, == and !=; nullopt when one cannot. A name `state`
// calls Undefined counts as 0 in #if.
std::optional<std::vector<ByteSpan>> inactive_branches(const LexicalFile& file,
                                                       const std::function<MacroState(std::string_view)>& state);
// The token ranges [begin, end) of the replacement lists of the file's #define directives: the
// macros' bodies, in every preprocessor branch.
std::vector<std::pair<size_t, size_t>> define_bodies(const LexicalFile& file);
// Adds calls written as `name(` or `ns::name(` that the AST does not have (undeclared callees
// with undeclared arguments are dropped whole), those in the bodies of #defines of active code
// included (CallFact::in_macro_body), and names each call's enclosing function.
void add_lexical_calls(const LexicalFile& file, NativeFile& out);
// Records upper-case function-like names (TORCH_LIBRARY_IMPL, AT_DISPATCH_*) and qualified
// names (thrust::sort, cutlass::gemm::...) as written; qualified names in every preprocessor
// branch, those of inactive ones marked so.
void add_macro_uses(const LexicalFile& file, NativeFile& out);
void add_qualified_names(const LexicalFile& file, NativeFile& out);
// Adds the #include directives written in the file, when Clang's preprocessor did not record
// them (its parse was stopped: see NativeFile::over_budget). Each counts as found: whether the
// header exists is not known.
void add_lexical_includes(const LexicalFile& file, NativeFile& out);
// Adds the #include directives in inactive branches (marked inactive), which Clang's
// preprocessor skipped.
void add_inactive_includes(const LexicalFile& file, NativeFile& out);
// Records every identifier's uses (NativeFile::names).
void add_name_uses(const LexicalFile& file, NativeFile& out);
// Sets `instantiated_templates` when the file only specializes or instantiates templates
// defined elsewhere (see NativeFile).
void add_template_instantiations(const LexicalFile& file, NativeFile& out);

}  // namespace tpulint::cxx
