#include "python/embedded_cuda.h"

#include <vector>

#include "python/syntax.h"

namespace tpulint::python {

namespace {

// Copies the contents of the string literal `s` (between its prefix and quotes) into `out`.
void copy_contents(Node s, std::string_view text, std::string& out) {
  if (s.child_count() < 2) return;
  const uint32_t begin = s.child(0).span().end, end = s.child(s.child_count() - 1).span().begin;
  std::string_view start = s.child(0).text();
  const bool raw = start.find_first_of("rR") != std::string_view::npos;
  for (uint32_t i = begin; i < end; ++i) {
    if (!raw && text[i] == '\\' && i + 1 < end) {
      // An escape sequence stays blank but for an escaped quote (`extern \"C\"` is `extern "C"`)
      // and a newline (the lines stay the file's).
      ++i;
      if (text[i] == '"' || text[i] == '\'' || text[i] == '\n') out[i] = text[i];
      continue;
    }
    out[i] = text[i];
  }
}

}  // namespace

std::string embedded_cuda_source(std::string_view text) {
  if (text.find("__global__") == std::string_view::npos) return {};
  Parser parser;
  std::unique_ptr<Tree> tree = parser.parse(text);
  std::string out;
  for (uint32_t id = 0; id < tree->node_count(); ++id) {
    Node s(tree.get(), id);
    if (s.kind() != Kind::String || s.text().find("__global__") == std::string_view::npos) continue;
    if (out.empty()) {
      out.assign(text.size(), ' ');
      for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') out[i] = '\n';
    }
    // `("__global__ void k(...) {\n" "  ...\n" "}\n")`: the literals concatenated with it.
    Node parent = s.parent();
    bool concatenated = parent.kind() == Kind::ConcatenatedString;
    for (uint32_t i = 0; concatenated && i < parent.child_count(); ++i)
      concatenated = parent.child(i).kind() == Kind::String;
    if (concatenated)
      for (uint32_t i = 0; i < parent.child_count(); ++i) copy_contents(parent.child(i), text, out);
    else
      copy_contents(s, text, out);
  }
  return out;
}

}  // namespace tpulint::python
