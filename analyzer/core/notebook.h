// Jupyter notebooks (.ipynb, nbformat 4): their code cells as one Python module, and the map
// from that module's lines back to the cells and to the notebook's JSON text (docs/notebooks.md).
//
// A notebook runs top to bottom in one namespace, so its code cells are analyzed as one module:
// a name imported in cell 1 is known in cell 5. IPython's own syntax is not Python and is not
// analyzed: line magics (`%pip install x`), shell escapes (`!nvidia-smi`, `files = !ls`), help
// (`torch.cuda?`) become `pass` at their indentation, and a cell magic (`%%bash`, `%%writefile`)
// blanks its whole cell, except those whose body IPython runs as Python (`%%time`, `%%timeit`,
// `%%capture`, `%%prun`), of which only the magic's line is blanked. `%time stmt` and
// `%timeit stmt` keep their statement. Every cell line stays one line of the module, so
// findings and suppression comments keep their lines.
//
// The notebook is untrusted JSON: it is read by nlohmann's SAX parser (no document is built for
// outputs and attachments, and nesting costs no stack), and anything but an nbformat 4 notebook
// of Python (malformed JSON, nbformat 3, a cell's source that is not text, a notebook of another
// language) is a reason not to analyze it, never a partial analysis.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/finding.h"
#include "core/source_file.h"

namespace tpulint {

// True for a notebook's file name (`.ipynb`).
bool is_notebook_path(std::string_view path);

// Where each line of a notebook's code is in the notebook, to place findings there.
class NotebookMap {
 public:
  struct Line {
    uint32_t cell = 0;       // 1-based, counting every cell (code, Markdown, raw) as the notebook shows them
    uint32_t cell_line = 0;  // 1-based line in the cell's source
    uint32_t raw_begin = 0;  // the JSON text's byte offset of the line's first character (inside a string)
    uint32_t raw_end = 0;    // and of what ends the line there (an escaped line break, or the string's end)
    // Code points of the cell's line left out of the code line before its statement (`%time `),
    // and the cell's line as written, when the code line is not (empty otherwise).
    uint32_t shift = 0;
    std::string written;
  };

  NotebookMap(std::string path, std::string json, std::vector<Line> lines);

  // Moves findings given in the code's lines and columns into the notebook: `cell` holds the
  // cell and the position in it, `start` and `end` become positions in the JSON text (a column
  // counts the JSON's characters, escapes included), and a line quoted from the code is the
  // cell's line as written. A note about the whole file (is_file_note) is left as it is.
  void place(std::span<Finding> findings) const;

  std::string_view json() const { return json_.text(); }
  std::span<const Line> lines() const { return lines_; }

 private:
  SourceFile json_;  // for lines and columns in the JSON text
  std::vector<Line> lines_;
};

struct Notebook {
  std::string code;  // the code cells' lines, one after another, IPython syntax blanked
  NotebookMap map;
};

// Reads a notebook's JSON text (UTF-8). Returns the notebook, or why it is not analyzed
// ("not valid JSON (line 3, column 7)", "nbformat 3, not 4: ...").
std::variant<Notebook, std::string> read_notebook(std::string path, std::string json);

// A cell's source lines with IPython syntax made Python (see above), in place: a line becomes
// `pass` at its indentation, empty, or its statement. For each line, how many code points were
// taken from before its statement (`%time `): 0 for the others. Exposed for tests.
std::vector<uint32_t> blank_ipython_syntax(std::vector<std::string>& lines);

}  // namespace tpulint
