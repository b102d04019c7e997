// End-to-end: Jupyter notebooks scanned by the real binary (docs/notebooks.md): found, analyzed
// as one module, located by cell in text and by JSON line in JSON and SARIF, suppressed, cached.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"
#include "json_schema.h"

using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

// Cells 1 (Markdown) and 2 set up; cell 3's second line holds `.cuda()`; cell 4 is a shell cell.
// JSON lines: cell 3's source strings are on lines 17 and 18.
constexpr const char* kNotebook = R"j({
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Train\n", "`model.cuda()` here is prose.\n"]},
  {
   "cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
   "source": [
    "!pip install -q torch\n",
    "%matplotlib inline\n",
    "import torch\n",
    "model = torch.nn.Linear(4, 4)"
   ]
  },
  {
   "cell_type": "code", "execution_count": 2, "metadata": {},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["model.cuda()\n"]}],
   "source": [
    "x = torch.zeros(2, device=\"cpu\")\n",
    "model = model.cuda()\n"
   ]
  },
  {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["%%bash\n", "python -c 'import torch; torch.zeros(1).cuda()'\n"]}
 ],
 "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
)j";

json scan_json(const TempDir& dir, const std::string& extra = "") {
  auto r = run_tpulint("scan '" + dir.str() + "' --format json " + extra);
  INFO(r.err);
  REQUIRE(r.exit_code != 2);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("a notebook's finding is located by cell and line in text, and by JSON line in JSON and SARIF",
          "[e2e][notebook]") {
  TempDir dir;
  dir.write("train.ipynb", kNotebook);

  auto text = run_tpulint("scan '" + dir.str() + "'");
  INFO(text.out << text.err);
  CHECK(text.out.find("train.ipynb\n  cell 3:2:15  error  TPU401") != std::string::npos);
  CHECK(text.out.find("  2 | model = model.cuda()\n") != std::string::npos);
  CHECK(text.out.find("(train.ipynb:cell 3:2)") != std::string::npos);  // the plan's first location

  json r = scan_json(dir);
  REQUIRE(r.at("findings").size() == 1);  // not the prose, the output or the shell cell
  const json& f = r.at("findings")[0];
  CHECK(f.at("id") == "TPU401");
  CHECK(f.at("path") == "train.ipynb");
  // JSON line 18: `    "model = model.cuda()\n"`; the string's text starts at column 6.
  CHECK(f.at("line") == 18);
  CHECK(f.at("column") == 6 + 14);
  CHECK(f.at("end_line") == 18);
  CHECK(f.at("end_column") == 6 + 20);
  CHECK(f.at("cell") == json{{"index", 3}, {"line", 2}, {"column", 15}, {"end_line", 2}, {"end_column", 21}});
  CHECK(f.at("source_line") == "model = model.cuda()");
  CHECK(tpulint::testing::schema_errors(tpulint::testing::kReportSchema, r.dump()).empty());

  auto sarif_run = run_tpulint("scan '" + dir.str() + "' --format sarif");
  json sarif = json::parse(sarif_run.out);
  const json& result = sarif.at("runs")[0].at("results")[0];
  const json& region = result.at("locations")[0].at("physicalLocation").at("region");
  CHECK(region.at("startLine") == 18);
  CHECK(region.at("startColumn") == 20);
  CHECK(region.at("endColumn") == 26);
  CHECK(result.at("properties").at("cell").at("index") == 3);
  CHECK(tpulint::testing::schema_errors(tpulint::testing::kSarifSchema, sarif_run.out).empty());

  auto markdown = run_tpulint("scan '" + dir.str() + "' --format markdown");
  CHECK(markdown.out.find("[train.ipynb:cell 3:2](train.ipynb#L18)") != std::string::npos);
}

TEST_CASE("a suppression comment in a notebook cell suppresses its line", "[e2e][notebook]") {
  TempDir dir;
  std::string nb = kNotebook;
  const std::string line = "\"model = model.cuda()\\n\"";
  nb.replace(nb.find(line), line.size(), "\"model = model.cuda()  # tpulint: ignore[TPU401]\\n\"");
  dir.write("train.ipynb", nb);
  json r = scan_json(dir);
  CHECK(r.at("findings").empty());
  // An unused one is reported at its cell's line.
  dir.write("train.ipynb", std::string(kNotebook).replace(std::string(kNotebook).find("\"import torch\\n\""), 16,
                                                          "\"import torch  # tpulint: ignore[TPU401]\\n\""));
  json unused = scan_json(dir);
  REQUIRE(unused.at("findings").size() == 2);
  CHECK(unused.at("findings")[0].at("id") == "TPU904");
  CHECK(unused.at("findings")[0].at("cell").at("index") == 2);
  CHECK(unused.at("findings")[0].at("cell").at("line") == 3);
  CHECK(unused.at("findings")[0].at("line") == 9);
}

TEST_CASE("a directory of only notebooks is analyzed and scored", "[e2e][notebook]") {
  TempDir dir;
  dir.write("nb/train.ipynb", kNotebook);
  dir.write("nb/empty.ipynb", R"({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})");
  auto r = run_tpulint("scan '" + dir.str("nb") + "' --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j.at("files").at("analyzed") == 2);
  CHECK(j.at("score").get<double>() < 100);
  CHECK(j.at("verdict") != "tpu-ready");
}

TEST_CASE("a notebook that cannot be read is listed as not analyzed, with why", "[e2e][notebook]") {
  TempDir dir;
  dir.write("good.py", "import torch\nx = torch.ones(1).cuda()\n");
  dir.write("broken.ipynb", "{\"cells\": [\n  {\"cell_type\": \"code\", \"source\": [\"x = 1\"]\n");  // cut short
  dir.write("old.ipynb", R"({"nbformat": 3, "nbformat_minor": 0, "worksheets": []})");
  dir.write("excluded/skip.ipynb", "not even JSON");
  json r = scan_json(dir, "--exclude excluded");
  const json& skipped = r.at("files").at("skipped");
  REQUIRE(skipped.size() == 2);
  CHECK(skipped[0].at("path") == "broken.ipynb");
  CHECK(skipped[0].at("reason").get<std::string>() == "notebook: not valid JSON: the text ends before the notebook does");
  CHECK(skipped[1].at("path") == "old.ipynb");
  CHECK(skipped[1].at("reason").get<std::string>().starts_with("notebook: nbformat 3, not 4"));
  size_t notes = 0;
  for (const json& f : r.at("findings")) notes += f.at("id") == "TPU902";
  CHECK(notes == 2);
  auto text = run_tpulint("scan '" + dir.str() + "' --exclude excluded");
  CHECK(text.err.find("2 code files were not analyzed") != std::string::npos);
}

TEST_CASE("a notebook's cached result follows its JSON lines when only its outputs change", "[e2e][notebook][cache]") {
  TempDir dir, cache;
  dir.write("train.ipynb", kNotebook);
  const std::string cached = "--cache-dir '" + cache.str() + "'";
  CHECK(scan_json(dir, cached).at("findings")[0].at("line") == 18);
  CHECK(scan_json(dir, cached).at("findings")[0].at("line") == 18);  // from the cache
  // The same code, two lines lower in the file: an output saved in cell 2.
  std::string moved = kNotebook;
  const std::string outputs = "\"execution_count\": 1, \"metadata\": {}, \"outputs\": [],";
  moved.replace(moved.find(outputs), outputs.size(),
                "\"execution_count\": 1, \"metadata\": {},\n   \"outputs\": [\n    {\"output_type\": \"stream\", \"name\": \"stdout\", \"text\": []}],");
  dir.write("train.ipynb", moved);
  json r = scan_json(dir, cached);
  CHECK(r.at("findings")[0].at("line") == 20);
  CHECK(r.at("findings")[0].at("cell").at("line") == 2);
}

TEST_CASE("notebooks beside a package's code weigh as auxiliary code, alone, they are the code", "[e2e][notebook]") {
  TempDir dir;
  dir.write("explore.ipynb", kNotebook);
  // Notebooks alone: the `.cuda()` of cell 3 is a core error.
  json alone = scan_json(dir, "--no-cache");
  CHECK(alone.at("verdict") == "portable");
  CHECK(alone.at("scoring").at("path_weights").empty());

  // Beside a package: a demo, weighed like examples; the rule is in the report.
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/model.py", "import torch\n\n\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n");
  json beside = scan_json(dir, "--no-cache");
  CHECK(beside.at("verdict") == "tpu-ready");
  REQUIRE(beside.at("scoring").at("path_weights").size() == 1);
  CHECK(beside.at("scoring").at("path_weights")[0].at("glob") == "*.ipynb");
  CHECK(beside.at("scoring").at("path_weights")[0].at("weight") == 0.25);
  bool listed = false;
  for (const json& f : beside.at("findings")) listed |= f.at("path") == "explore.ipynb" && f.at("id") == "TPU401";
  CHECK(listed);  // still reported

  // A rule of the user's for notebooks wins.
  json weighed = scan_json(dir, "--no-cache --path-weight '*.ipynb=1'");
  CHECK(weighed.at("verdict") == "portable");
}
