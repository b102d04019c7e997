// Jupyter notebooks: reading nbformat 4 code cells, blanking IPython syntax, refusing what is not
// a notebook, and placing findings in the cells and in the JSON text.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/analyzer_notes.h"
#include "core/notebook.h"

using namespace tpulint;

namespace {

// A notebook whose cells are given as JSON text, one cell per line.
std::string notebook_json(const std::vector<std::string>& cells, std::string_view extra = "") {
  std::string out = "{\n \"cells\": [\n";
  for (size_t i = 0; i < cells.size(); ++i) out += "  " + cells[i] + (i + 1 < cells.size() ? ",\n" : "\n");
  out += " ],\n \"metadata\": {" + std::string(extra) + "},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
  return out;
}

Notebook read_ok(const std::string& json) {
  auto r = read_notebook("nb.ipynb", json);
  if (auto* why = std::get_if<std::string>(&r)) FAIL("not read: " << *why);
  return std::move(std::get<Notebook>(r));
}

std::string reason(const std::string& json) {
  auto r = read_notebook("nb.ipynb", json);
  auto* why = std::get_if<std::string>(&r);
  return why ? *why : std::string("(read)");
}

// The finding a check would report at `start`..`end` of the code, placed in the notebook.
Finding placed(const Notebook& nb, Position start, Position end) {
  Finding f;
  f.category = Category::CudaApi;
  f.start = start;
  f.end = end;
  nb.map.place(std::span(&f, 1));
  return f;
}

}  // namespace

TEST_CASE("notebook: code cells in order as one module, sources as lists or strings", "[core][notebook]") {
  Notebook nb = read_ok(notebook_json({
      R"j({"cell_type": "markdown", "metadata": {}, "source": ["# Title\n", "model.cuda()\n"]})j",
      R"j({"cell_type": "code", "metadata": {}, "outputs": [], "source": ["import torch\n", "x = 1"]})j",
      R"j({"cell_type": "raw", "metadata": {}, "source": "model.cuda()"})j",
      R"j({"cell_type": "code", "metadata": {}, "outputs": [], "source": "y = torch.ones(2)\nz = y.cuda()\n"})j",
      R"j({"cell_type": "code", "metadata": {}, "outputs": [], "source": []})j",
  }));
  CHECK(nb.code == "import torch\nx = 1\ny = torch.ones(2)\nz = y.cuda()\n");
  auto lines = nb.map.lines();
  REQUIRE(lines.size() == 4);
  CHECK((lines[0].cell == 2 && lines[0].cell_line == 1));
  CHECK((lines[1].cell == 2 && lines[1].cell_line == 2));
  CHECK((lines[2].cell == 4 && lines[2].cell_line == 1));
  CHECK((lines[3].cell == 4 && lines[3].cell_line == 2));
}

TEST_CASE("notebook: a finding is placed in its cell and in the JSON text", "[core][notebook]") {
  const std::string json = notebook_json({
      R"j({"cell_type": "markdown", "metadata": {}, "source": ["text"]})j",
      R"j({"cell_type": "code", "metadata": {}, "source": [
    "import torch\n",
    "x = torch.zeros(2, device=\"cuda\").cuda()\n"
   ]})j",
      R"j({"cell_type": "code", "metadata": {}, "source": "a = 1\nb = torch.ones(1).to(\"cuda\")"})j",
  });
  Notebook nb = read_ok(json);
  SECTION("a source list: the string's line; columns count the JSON's escapes") {
    // `.cuda()` after `device="cuda")`: code columns 34..41 of code line 2 (cell 2, line 2).
    Finding f = placed(nb, {2, 34}, {2, 41});
    CHECK(f.cell == CellPosition{2, {2, 34}, {2, 41}});
    // JSON line 6 is `    "x = torch.zeros(2, device=\"cuda\").cuda()\n"`: the string opens at
    // column 5, its first character is column 6, and two `\"` before `.cuda()` add two columns.
    CHECK(f.start == Position{6, 6 + 33 + 2});
    CHECK(f.end == Position{6, 6 + 40 + 2});
  }
  SECTION("a single string: every line on the string's line, columns past the escaped line breaks") {
    Finding f = placed(nb, {4, 5}, {4, 6});  // `torch` on the cell's second line
    CHECK(f.cell == CellPosition{3, {2, 5}, {2, 6}});
    const std::string_view line8 =
        R"j(  {"cell_type": "code", "metadata": {}, "source": "a = 1\nb = torch.ones(1).to(\"cuda\")"})j";
    CHECK(f.start.line == 8);
    CHECK(f.start.column == line8.find("torch") + 1);
    CHECK(f.end.column == line8.find("torch") + 2);
  }
  SECTION("a note about the whole file stays where it is") {
    Finding note = file_note(notes::kAnalysisFailed, "nb.ipynb", "analysis failed: a reason");
    nb.map.place(std::span(&note, 1));
    CHECK(note.cell.index == 0);
    CHECK(note.start == Position{1, 1});
    Finding f = placed(nb, {1, 1}, {1, 1});  // a finding at the code's first character is placed
    CHECK(f.cell.index == 2);
    Finding none = placed(nb, {99, 1}, {99, 1});
    CHECK(none.cell.index == 0);
    CHECK(none.start == Position{99, 1});
  }
}

TEST_CASE("notebook: line magics, shell escapes and help become pass, lines kept", "[core][notebook]") {
  std::vector<std::string> lines = {"%matplotlib inline",
                                    "!nvidia-smi",
                                    "gpus = !nvidia-smi -L",
                                    "a, b = %sx ls",
                                    "torch.cuda?",
                                    "??model",
                                    "for i in range(2):",
                                    "    !echo $i",
                                    "!pip install \\",
                                    "    torch",
                                    "x = a != b",
                                    "y = (1 !=",
                                    "     2)",
                                    "s = 'why?'  # really?",
                                    "z = x % 2"};
  std::vector<uint32_t> shifts = blank_ipython_syntax(lines);
  CHECK(lines == std::vector<std::string>{"pass", "pass", "pass", "pass", "pass", "pass", "for i in range(2):",
                                          "    pass", "pass", "    pass", "x = a != b", "y = (1 !=", "     2)",
                                          "s = 'why?'  # really?", "z = x % 2"});
  CHECK(std::all_of(shifts.begin(), shifts.end(), [](uint32_t s) { return s == 0; }));
}

TEST_CASE("notebook: %time and %timeit keep their statement, shifted", "[core][notebook]") {
  std::vector<std::string> lines = {"%time y = x.cuda()", "    %timeit  model(x)", "%timeit -n 10 model(x)", "%time"};
  std::vector<uint32_t> shifts = blank_ipython_syntax(lines);
  CHECK(lines == std::vector<std::string>{"y = x.cuda()", "    model(x)", "pass", "pass"});
  CHECK(shifts == std::vector<uint32_t>{6, 9, 0, 0});
}

TEST_CASE("notebook: a cell magic blanks its cell unless its body is Python", "[core][notebook]") {
  for (std::string magic : {"%%bash", "%%writefile train.py", "%%sh", "%%html", "%%script python"}) {
    std::vector<std::string> lines = {"", magic, "import torch", "x = torch.zeros(1).cuda()"};
    blank_ipython_syntax(lines);
    INFO(magic);
    CHECK(lines == std::vector<std::string>{"", "", "", ""});
  }
  for (std::string magic : {"%%time", "%%timeit -n 3", "%%capture out", "%%prun"}) {
    std::vector<std::string> lines = {magic, "x = torch.zeros(1).cuda()", "!ls"};
    blank_ipython_syntax(lines);
    INFO(magic);
    CHECK(lines == std::vector<std::string>{"", "x = torch.zeros(1).cuda()", "pass"});
  }
}

TEST_CASE("notebook: the quoted line of a rewritten line is the cell's, and columns are the cell's", "[core][notebook]") {
  Notebook nb = read_ok(notebook_json({R"j({"cell_type": "code", "metadata": {}, "source": ["%time y = x.cuda()\n"]})j"}));
  CHECK(nb.code == "y = x.cuda()\n");
  Finding f = placed(nb, {1, 6}, {1, 11});  // `.cuda()` in the code line
  CHECK(f.cell == CellPosition{1, {1, 12}, {1, 17}});
  CHECK(f.source_line == "%time y = x.cuda()");
  const std::string_view line3 = R"j(  {"cell_type": "code", "metadata": {}, "source": ["%time y = x.cuda()\n"]})j";
  CHECK(f.start == Position{3, uint32_t(line3.find("%time") + 12)});
}

TEST_CASE("notebook: what is not an nbformat 4 notebook of Python is refused with a reason", "[core][notebook]") {
  CHECK_THAT(reason("{\"cells\": [\n  {\"cell_type\": \"code\",, }]}"), Catch::StartsWith("not valid JSON (line 2, column"));
  CHECK(reason("{\"cells\": []}\n}") == "not valid JSON (line 2, column 1)");
  CHECK(reason("") == "not valid JSON: the text ends before the notebook does");
  CHECK(reason("{\"cells\": [{\"cell_type\": \"code\", \"source\": \"x\"}") ==
        "not valid JSON: the text ends before the notebook does");
  CHECK_THAT(reason("{\"nbformat\": 3, \"nbformat_minor\": 0, \"worksheets\": [{\"cells\": []}]}"),
             Catch::StartsWith("nbformat 3, not 4"));
  CHECK_THAT(reason("{\"name\": \"package\"}"), Catch::Contains("no 'nbformat' key"));
  CHECK_THAT(reason("{\"nbformat\": 4}"), Catch::Contains("no 'cells' list"));
  CHECK_THAT(reason("[1, 2]"), Catch::Contains("JSON array"));
  CHECK_THAT(reason("\"text\""), Catch::Contains("JSON string"));
  CHECK_THAT(reason("42"), Catch::Contains("not a JSON object"));
  CHECK(reason(notebook_json({R"j({"cell_type": "code", "source": 7})j"})) == "cell 1: 'source' is not text");
  CHECK(reason(notebook_json({R"j({"cell_type": "code", "source": ["a\n", 7]})j"})) == "cell 1: 'source' is not text");
  CHECK(reason(notebook_json({R"j({"cell_type": "code", "source": {"a": "b"}})j"})) == "cell 1: 'source' is not text");
  CHECK(reason(notebook_json({R"j({"cell_type": "code", "source": [["a"]]})j"})) == "cell 1: 'source' is not text");
  CHECK(reason(notebook_json({R"j({"source": "x = 1"})j"})) == "cell 1 has no 'cell_type'");
  CHECK(reason(notebook_json({R"j({"cell_type": "code"})j"})) == "cell 1 has no 'source'");
  CHECK(reason(notebook_json({R"j("x = 1")j"})) == "cell 1 is not a JSON object");
  CHECK(reason(notebook_json({}, R"j("kernelspec": {"language": "R", "name": "ir"})j")) == "a notebook in 'R', not Python");
  CHECK(reason(notebook_json({}, R"j("language_info": {"name": "julia"})j")) == "a notebook in 'julia', not Python");
  CHECK(reason(notebook_json({}, R"j("language_info": {"name": "python", "version": "3.11"})j")) == "(read)");
  // Invalid UTF-8 in a string.
  CHECK_THAT(reason(notebook_json({"{\"cell_type\": \"code\", \"source\": \"x = '\xff'\"}"})), Catch::StartsWith("not valid JSON"));
}

TEST_CASE("notebook: empty and odd notebooks", "[core][notebook]") {
  CHECK(read_ok(notebook_json({})).code.empty());
  CHECK(read_ok(notebook_json({R"j({"cell_type": "code", "source": ""})j"})).code.empty());
  // Keys in any order, unknown keys and cell types, duplicate keys (the last one counts).
  Notebook odd = read_ok(
      "{\"nbformat_minor\": 2, \"cells\": [{\"source\": [\"a = 1\\n\"], \"x\": {\"source\": \"b = 2\"}, \"cell_type\": "
      "\"code\", \"source\": \"c = 3\"}, {\"cell_type\": \"heading\", \"source\": \"d\"}], \"nbformat\": 4}");
  CHECK(odd.code == "c = 3\n");
  // Line breaks as \r\n and \r; a line continued in the next string; a surrogate pair.
  Notebook breaks = read_ok(notebook_json(
      {R"j({"cell_type": "code", "source": ["a = 1\r\n", "b = 2\rc = ", "3\n", "s = '\ud83d\ude00'; t = x.cuda()"]})j"}));
  CHECK(breaks.code == "a = 1\nb = 2\nc = 3\ns = '\xF0\x9F\x98\x80'; t = x.cuda()\n");
  // `.cuda()` after the emoji: code column 15; in the JSON, the pair is 12 characters, not 1.
  Finding f = placed(breaks, {4, 15}, {4, 22});
  CHECK(f.cell.start == Position{4, 15});
  CHECK(f.start.column - placed(breaks, {4, 1}, {4, 1}).start.column == 14 + 11);
}

TEST_CASE("notebook: hostile input costs no stack and bounded time", "[core][notebook]") {
  // Outputs nested 200,000 deep: read without recursion.
  std::string deep = R"j({"cell_type": "code", "source": "x = 1", "outputs": [)j" + std::string(200000, '[') +
                     std::string(200000, ']') + "]}";
  CHECK(read_ok(notebook_json({deep})).code == "x = 1\n");
  // A 4 MB line of code with a finding every 9 characters, placed in one walk of the line.
  std::string code;
  for (int i = 0; i < 400000; ++i) code += "x.cuda();";
  Notebook nb = read_ok(notebook_json({R"j({"cell_type": "code", "source": [")j" + code + R"j("]})j"}));
  std::vector<Finding> findings(400000);
  for (uint32_t i = 0; i < findings.size(); ++i) {
    findings[i].start = {1, 9 * i + 2};
    findings[i].end = {1, 9 * i + 9};
  }
  nb.map.place(findings);
  CHECK(findings.back().cell.start == Position{1, 9 * 399999 + 2});
  CHECK(findings.back().start.column - findings.front().start.column == 9 * 399999);
}
