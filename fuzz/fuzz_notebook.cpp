// libFuzzer target: bytes as a Jupyter notebook through read_notebook, the reader a scanned
// repository's .ipynb goes through (untrusted JSON). It returns a notebook or a reason, never
// throws; a notebook's map has one line per line of its code, each inside the JSON text and in
// a cell, and placing findings on every line keeps them inside the JSON text.
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/notebook.h"

using namespace tpulint;

namespace {

void require(bool ok) {
  if (!ok) __builtin_trap();
}

size_t line_count(const std::string& code) {
  if (code.empty()) return 0;
  size_t n = 1;
  for (size_t i = 0; i + 1 < code.size(); ++i) n += code[i] == '\n';
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string json(reinterpret_cast<const char*>(data), size);
  auto read = read_notebook("fuzz.ipynb", json);
  if (const std::string* reason = std::get_if<std::string>(&read)) {
    require(!reason->empty());
    return 0;
  }
  const Notebook& nb = std::get<Notebook>(read);
  const auto lines = nb.map.lines();
  require(lines.size() == line_count(nb.code));
  std::vector<Finding> findings;
  for (size_t i = 0; i < lines.size(); ++i) {
    const NotebookMap::Line& l = lines[i];
    require(l.cell >= 1 && l.cell_line >= 1);
    require(l.raw_begin <= l.raw_end && l.raw_end <= nb.map.json().size());
    Finding f;
    f.check_id = "TPU401";
    f.start = {uint32_t(i + 1), 1};
    f.end = {uint32_t(i + 1), 2};
    findings.push_back(f);
  }
  nb.map.place(findings);
  for (const Finding& f : findings) require(f.start.line >= 1 && f.start <= f.end);
  return 0;
}
