// Hostile and strange input: each case gives the documented note for its file, the exit code
// stays as documented, and the findings of a good file scanned beside it are intact.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "app/engine.h"
#include "cli_runner.h"
#include "repeated_text.h"
#include "core/address_sanitizer.h"
#include "core/discovery.h"

namespace fs = std::filesystem;
using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;
using tpulint::testing::repeat;

namespace {

const std::string kGood = "import torch\nidx = torch.nonzero(mask)\n";

struct Scan {
  int exit_code;
  std::map<std::string, std::vector<std::string>> ids;  // path -> finding IDs
  std::map<std::string, std::string> skipped;            // path -> reason
  json doc;
};

// `env`: a shell prefix, such as the address-space cap `ulimit -v 1000000 &&`.
Scan scan(const TempDir& dir, const std::string& extra = "", const std::string& env = "") {
  auto r = run_tpulint("scan '" + dir.str() + "' --format json " + extra, TPULINT_SOURCE_DIR, env);
  INFO(r.err);
  Scan s{r.exit_code, {}, {}, json()};
  if (r.exit_code != 0 && r.exit_code != 1) return s;
  s.doc = json::parse(r.out);
  for (const json& f : s.doc.at("findings")) s.ids[f.at("path")].push_back(f.at("id"));
  for (const json& k : s.doc.at("files").at("skipped")) s.skipped[k.at("path")] = k.at("reason");
  return s;
}

// Writes the good file beside the bad one and checks the good one's finding is there.
void check_good_intact(const Scan& s) {
  REQUIRE(s.exit_code == 0);
  CHECK(s.ids.at("good.py") == std::vector<std::string>{"TPU201"});
}

}  // namespace

TEST_CASE("bad input: binary content, NUL bytes, cut UTF-16, invalid UTF-8 and empty files", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("elf.py", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0", 12) + std::string(200, '\0'));
  dir.write("elf.cu", std::string("\x7f" "ELF\x02\x01\x01\0", 8));
  dir.write("nul.py", std::string("import torch\nx = 1\0\ny = torch.nonzero(z)\n", 40));
  dir.write("utf16.py", std::string("\xff\xfe" "i\0m\0p\0o\0r\0t", 13));  // ends inside a character
  dir.write("latin1.py", "# caf\xe9\nimport torch\nx = torch.unique(y)\n");
  dir.write("latin1.cu", "// caf\xe9\n__global__ void k(float* x) {}\n");
  dir.write("empty.py", "");
  dir.write("empty.cu", "");
  Scan s = scan(dir);
  check_good_intact(s);
  CHECK(s.skipped.at("elf.py").find("binary") != std::string::npos);
  CHECK(s.skipped.at("elf.cu").find("binary") != std::string::npos);
  CHECK(s.skipped.at("nul.py").find("binary") != std::string::npos);
  CHECK(s.skipped.at("utf16.py").find("not valid UTF-16") != std::string::npos);
  CHECK(s.skipped.at("latin1.py").find("not valid UTF-8, and no encoding is declared") != std::string::npos);
  for (const char* p : {"elf.py", "elf.cu", "nul.py", "utf16.py", "latin1.py"})
    CHECK(s.ids.at(p) == std::vector<std::string>{"TPU902"});
  // C/C++ tolerates Latin-1 in comments, as compilers do: analyzed.
  CHECK(s.ids.at("latin1.cu") == std::vector<std::string>{"TPU101"});
  CHECK_FALSE(s.ids.count("empty.py"));
  CHECK_FALSE(s.ids.count("empty.cu"));
  CHECK(s.doc.at("files").at("analyzed") == 4);  // good.py, latin1.cu, empty.py, empty.cu
}

// Issue 36: a PEP 263 Latin-1 file was skipped as "not valid UTF-8", and its `.cuda()` missed.
TEST_CASE("bad input: declared encodings and UTF-16 are decoded, at the file's own lines and columns", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  // "é" is one byte in Latin-1 and cp1252, two in UTF-8; columns count characters.
  dir.write("latin1.py", "# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\xe9'; model = Net().cuda()\n");
  dir.write("cp1252.py", "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nname = 'caf\xe9'; model = Net().cuda()  # \x80\n");
  std::string le = "\xff\xfe", be = "\xfe\xff";
  for (char c : std::string("import torch\nname = 'caf\xe9'; model = Net().cuda()\n")) {  // é is U+00E9
    le += std::string{c, '\0'};
    be += std::string{'\0', c};
  }
  dir.write("utf16le.py", le);
  dir.write("utf16be.py", be);
  dir.write("undeclared.py", "import torch\nname = 'caf\xe9'; model = Net().cuda()\n");
  Scan s = scan(dir);
  check_good_intact(s);
  for (const char* p : {"latin1.py", "cp1252.py", "utf16le.py", "utf16be.py"}) {
    INFO(p);
    CHECK_FALSE(s.skipped.count(p));
    CHECK(s.ids[p] == std::vector<std::string>{"TPU401"});
  }
  for (const json& f : s.doc.at("findings")) {
    if (f.at("id") != "TPU401") continue;
    INFO(f.dump());
    CHECK(f.at("line") == (f.at("path") == "cp1252.py" || f.at("path") == "latin1.py" ? 3 : 2));
    // The method, after "name = 'café'; model = Net().": 29 characters (30 bytes in UTF-8).
    CHECK(f.at("column") == 30);
    CHECK(f.at("source_line").get<std::string>().starts_with("name = 'caf\xc3\xa9'; model"));
    if (f.at("path") == "cp1252.py") CHECK(f.at("source_line").get<std::string>().ends_with("# \xe2\x82\xac"));
  }
  CHECK(s.skipped.at("undeclared.py").find("not valid UTF-8, and no encoding is declared") != std::string::npos);
  CHECK(s.doc.at("files").at("unanalyzed").size() == 1);
}

TEST_CASE("bad input: CRLF and lone CR line endings keep lines and columns right", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("crlf.py", "import torch\r\n\r\nx = torch.unique(y)\r\n");
  dir.write("cr.py", "import torch\r\rx = torch.unique(y)\r");
  Scan s = scan(dir);
  check_good_intact(s);
  for (const char* p : {"crlf.py", "cr.py"}) {
    INFO(p);
    REQUIRE(s.ids.at(p) == std::vector<std::string>{"TPU201"});
  }
  for (const json& f : s.doc.at("findings")) {
    if (f.at("path") == "good.py") continue;
    CHECK(f.at("line") == 3);
    CHECK(f.at("column") == 5);
    CHECK(f.at("source_line") == "x = torch.unique(y)");
  }
}

TEST_CASE("bad input: too large, a 5 MB single line, and deep nesting", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("big.py", "x = 1\n" + std::string(3 * 1024 * 1024, '#') + "\n");
  std::string line = "import torch\ndata = [";
  while (line.size() < 5 * 1024 * 1024) line += "1, ";
  dir.write("one_line.py", line + "torch.nonzero(m)]\n");
  dir.write("deep.py", "import torch\nx = " + std::string(100000, '(') + "1" + std::string(100000, ')') +
                           "\ny = torch.unique(z)\n");
  dir.write("deep_brackets.py", "x = " + std::string(100000, '[') + std::string(100000, ']') + "\n");
  dir.write("deep_attrs.py", "import torch\nx = torch" + [] {
    std::string s;
    for (int i = 0; i < 100000; ++i) s += ".a";
    return s;
  }() + "\n");
  Scan s = scan(dir, "--max-file-size 6000000");
  check_good_intact(s);
  CHECK(s.skipped.count("big.py") == 0);
  CHECK(s.ids.at("one_line.py") == std::vector<std::string>{"TPU201"});
  CHECK(s.ids.at("deep.py") == std::vector<std::string>{"TPU201"});
  CHECK_FALSE(s.ids.count("deep_brackets.py"));  // analyzed, nothing to report, no crash
  CHECK_FALSE(s.ids.count("deep_attrs.py"));

  Scan capped = scan(dir, "--max-file-size 2000000");
  CHECK(capped.skipped.at("big.py").find("--max-file-size") != std::string::npos);
  CHECK(capped.skipped.at("one_line.py").find("--max-file-size") != std::string::npos);
}

// A 10 MiB list of numbers on one line took 2 GB (3.5 million elements, each a few tree-sitter nodes
// and entries of the frontend's node table), a list of strings 2.7 GB: under this cap the worker
// died and the file's finding was lost.
TEST_CASE("bad input: 10 MiB lists of numbers and of strings are analyzed in 1 GB of address space", "[e2e][badinput]") {
  if (tpulint::kAddressSanitizer) return;  // its shadow memory takes terabytes of address space
  TempDir dir;
  dir.write("good.py", kGood);
  std::string numbers = "import torch\ndata = [", strings = "import torch\nwords = [";
  for (int i = 0; numbers.size() < 10 * 1024 * 1024 - 100; ++i) numbers += std::to_string(i % 1000) + ", ";
  while (strings.size() < 10 * 1024 * 1024 - 100) strings += "'ab', ";
  dir.write("numbers.py", numbers + "torch.nonzero(m)]\n");
  dir.write("strings.py", strings + "]\nx = torch.unique(y)\n");
  Scan s = scan(dir, "", "ulimit -v 1000000 &&");
  check_good_intact(s);
  CHECK(s.ids["numbers.py"] == std::vector<std::string>{"TPU201"});
  CHECK(s.ids["strings.py"] == std::vector<std::string>{"TPU201"});
}

// Each took time growing with the square of its length: at every link of a nest the scopes of a
// name were found by climbing every ancestor, at every link of a chain its root was walked to,
// and every dotted prefix of a long name was looked up. 150,000 nested calls took 107 s, 300,000
// subscripts over five minutes, 500,000 attributes over a minute.
TEST_CASE("bad input: nests and chains of hundreds of thousands of links are analyzed", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  const std::string tail = "\nimport torch\ny = torch.unique(z)\n";
  std::string calls, subscripts, attributes;
  for (int i = 0; i < 150000; ++i) calls += "torch.relu(";
  for (int i = 0; i < 300000; ++i) subscripts += "[0]";
  for (int i = 0; i < 500000; ++i) attributes += ".a";
  dir.write("calls.py", "import torch\nx = " + calls + "m" + std::string(150000, ')') + tail);
  dir.write("subscripts.py", "import torch\nx = torch" + subscripts + tail);
  dir.write("attributes.py", "import torch\nx = torch" + attributes + tail);
  Scan s = scan(dir, "--file-timeout 60");
  check_good_intact(s);
  for (const char* p : {"calls.py", "subscripts.py", "attributes.py"}) {
    INFO(p);
    CHECK(s.ids[p] == std::vector<std::string>{"TPU201"});
  }
}

// Helpers that follow an expression's operands recurse (whether a condition is a tensor's, a mask
// or a guard, what a device string may be): 300,000 `not`s, `&`s, `or`s or conditional branches
// overflowed the 8 MB stack of a worker, and of the fuzzer (the early-exit rule's `or` chain).
TEST_CASE("bad input: conditions and operands nested 300,000 deep are analyzed, in a worker and in-process",
          "[e2e][badinput][fuzz]") {
  TempDir dir;
  dir.write("good.py", kGood);
  const int n = 300000;
  const std::string tail = "\ny = torch.unique(z)\n";
  const std::map<std::string, std::string> files = {
      {"nots.py", "import torch\ndef forward(self, x):\n    if " + repeat("not ", n) + "torch.any(x):\n        return x\n"},
      {"ands.py", "import torch\ndef forward(self, x):\n    return x[(x > 0)" + repeat(" & (x > 0)", n) + "]\n"},
      {"ors.py", "import torch\ndef f(x):\n    if not torch.cuda.is_available()" + repeat(" or not x.is_cuda", n) +
                     ":\n        return x\n    return x.cuda()\n"},
      {"branches.py", "import torch\nwith torch.autocast(" + repeat("'cuda' if a else ", n) + "'cpu'):\n    pass\n"},
      {"sums.py", "import torch\ndef forward(self, x, r):\n    return torch.repeat_interleave(x, r" + repeat(" + r", n) + ")\n"},
  };
  for (const auto& [name, text] : files) dir.write(name, text + tail);
  Scan s = scan(dir, "--file-timeout 120");
  check_good_intact(s);
  tpulint::app::Engine engine({});
  for (const auto& [name, text] : files) {
    INFO(name);
    CHECK(s.skipped.count(name) == 0);
    CHECK(std::count(s.ids[name].begin(), s.ids[name].end(), "TPU201") == 1);
    CHECK(std::find(s.ids[name].begin(), s.ids[name].end(), "TPU903") == s.ids[name].end());
    tpulint::FileResult r = engine.analyze_file(dir.path() / name, name);
    CHECK(r.analyzed);
  }
}

// TPU503 asked, for each config entry that names an op, whether it sits in a test_cfg by walking up
// to the module (80,000 nested `dict(type='DCN', a=...)`: quadratic, over a minute); the eval-mode
// rule listed the statements after each `if self.training: return` (a run of 150,000: quadratic),
// and both kinds of branch were looked up one by one.
TEST_CASE("bad input: 80,000 nested config entries and 150,000 eval-mode returns are analyzed", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  const int n = 80000, m = 150000;
  dir.write("configs.py", "x = " + repeat("dict(type='DCN', a=", n) + "1" + std::string(n, ')') + "\n");
  dir.write("returns.py", "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n" +
                              repeat("        if self.training:\n            return x\n", m) +
                              "        return torch.unique(x)\n");
  Scan s = scan(dir, "--file-timeout 60 --max-file-size 8000000");
  check_good_intact(s);
  for (const char* p : {"configs.py", "returns.py"}) {
    INFO(p);
    CHECK(s.skipped.count(p) == 0);
    CHECK(std::find(s.ids[p].begin(), s.ids[p].end(), "TPU903") == s.ids[p].end());
  }
  CHECK(std::count(s.ids["configs.py"].begin(), s.ids["configs.py"].end(), "TPU503") == n);
  CHECK(s.ids["returns.py"] == std::vector<std::string>{"TPU201"});
}

// Each guard listed the names read in its branches, so a chain of guards listed the names of all
// those inside it: 3,000 conditional expressions on a device guard took 460 MB, 5,000 over 1 GB.
TEST_CASE("bad input: a chain of 5,000 guarded conditional expressions is analyzed in 1 GB of address space",
          "[e2e][badinput]") {
  if (tpulint::kAddressSanitizer) return;  // its shadow memory takes terabytes of address space
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("guards.py", "import torch\nx = " + repeat("torch.ones(1).cuda() if torch.cuda.is_available() else ", 5000) +
                             "b\ny = torch.unique(z)\n");
  Scan s = scan(dir, "", "ulimit -v 1000000 &&");
  check_good_intact(s);
  const std::vector<std::string>& ids = s.ids["guards.py"];
  CHECK(std::count(ids.begin(), ids.end(), "TPU201") == 1);
  CHECK(std::count(ids.begin(), ids.end(), "TPU401") == 5000);
  CHECK(std::count(ids.begin(), ids.end(), "TPU903") == 0);  // was std::bad_alloc
  CHECK(s.doc.at("files").at("unanalyzed").empty());
}

// An import of a name of 80,000 parts kept each of its dotted prefixes, 6.3 GB; a file of 6,400
// broken functions re-parsed the rest of the file after each of its first 64 errors, 4 GB. Under
// this cap the worker died and the file's findings were lost.
TEST_CASE("bad input: 80,000-part imports and 6,400 syntax errors are analyzed in 1 GB of address space",
          "[e2e][badinput]") {
  if (tpulint::kAddressSanitizer) return;  // its shadow memory takes terabytes of address space
  TempDir dir;
  dir.write("good.py", kGood);
  const std::string tail = "\nimport torch\ny = torch.unique(z)\n";
  std::string name = "a", dots(80000, '.'), broken = "import torch\n";
  for (int i = 0; i < 80000; ++i) name += ".b";
  // Each copy at the top level, then inside a function.
  const std::string copy = "def fine(x):\n    return x.sum()\n\ndef broken(x)\n    return x\n\n"
                           "def after(scores):\n    return torch.nonzero(scores)\n\n";
  for (int i = 0; i < 3200; ++i) {
    broken += copy + "def wrapper():\n";
    for (size_t at = 0, end; (end = copy.find('\n', at)) != std::string::npos; at = end + 1)
      broken += (end > at ? "    " : "") + copy.substr(at, end - at + 1);
  }
  dir.write("import.py", "import " + name + "\nimport " + name + " as c\nx = c.d" + tail);
  dir.write("from_import.py", "from " + name + " import c\nfrom " + dots + " import d\nx = c.d" + tail);
  dir.write("broken.py", broken);
  auto r = run_tpulint("scan '" + dir.str() + "' --format json --file-timeout 60", TPULINT_SOURCE_DIR,
                       "ulimit -v 1000000 &&");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::map<std::string, std::map<std::string, int>> ids;
  const json doc = json::parse(r.out);
  for (const json& f : doc.at("findings")) ++ids[f.at("path")][f.at("id")];
  CHECK(ids["good.py"] == std::map<std::string, int>{{"TPU201", 1}});
  CHECK(ids["import.py"] == std::map<std::string, int>{{"TPU201", 1}});
  CHECK(ids["from_import.py"] == std::map<std::string, int>{{"TPU201", 1}});
  CHECK(ids["broken.py"] == std::map<std::string, int>{{"TPU201", 6400}, {"TPU901", 1}});
}

// Runs like these took time growing with the square of their lines (the grammar's scanner read the
// rest of the run again at each line): minutes past 20,000 lines, and a 9 MB comment block hit the
// file timeout and lost its file's findings.
TEST_CASE("bad input: 100,000-line runs of comments and of line continuations are analyzed", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  const std::string tail = "import torch\ny = torch.unique(z)\n";
  std::string comments, continuations;
  for (int i = 0; i < 100000; ++i) {
    comments += "# commented-out code: x = torch.zeros(3)\n";
    continuations += "\\\n";
  }
  dir.write("comments.py", "x = 1\n" + comments + tail);
  dir.write("comments_in_function.py", "def f():\n    x = 1\n" + comments + "    return x\n" + tail);
  dir.write("continuations.py", "x = 1\n" + continuations + tail);
  dir.write("continuations_in_expression.py", "x = 1 + \\\n" + continuations + "2\n" + tail);
  Scan s = scan(dir, "--file-timeout 60");
  check_good_intact(s);
  for (const char* p : {"comments.py", "comments_in_function.py", "continuations.py", "continuations_in_expression.py"}) {
    INFO(p);
    CHECK(s.ids[p] == std::vector<std::string>{"TPU201"});
  }
}

// 20,000 findings on one 440 KB line took 106 s and 15 GB: each finding counted its column from
// the line's start and carried the whole line into the report (8.8 GB of JSON).
TEST_CASE("bad input: 10,000 findings on one long line are reported, each with a bounded line", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  std::string line = "import torch\n";
  for (int i = 0; i < 10000; ++i) line += "a = torch.nonzero(m); ";
  dir.write("one_line.py", line + "\n");
  Scan s = scan(dir, "--file-timeout 60");
  check_good_intact(s);
  CHECK(s.ids["one_line.py"].size() == 10000);
  CHECK(s.doc.dump().size() < 10000 * 2000);
  for (const json& f : s.doc.at("findings"))
    if (f.at("path") == "one_line.py") REQUIRE(f.at("source_line").get<std::string>().size() <= tpulint::kSourceLineBytes + 3);
  auto text = run_tpulint("scan '" + dir.str("one_line.py") + "' --color never --file-timeout 60");
  CHECK(text.exit_code == 0);
  CHECK(text.out.size() < 10000 * 2000);
}

// Each enable was compared with every directive above it, each finding with every directive of its
// file: 35,000 disables and 35,000 enables of another list took 75 s.
TEST_CASE("bad input: 70,000 unmatched suppression directives are each reported", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  std::string code = kGood;
  for (int i = 0; i < 35000; ++i) code += "# tpulint: disable[TPU201]\n";
  for (int i = 0; i < 35000; ++i) code += "# tpulint: enable[TPU401]\nx = torch.unique(y)\n";
  dir.write("directives.py", code);
  Scan s = scan(dir, "--file-timeout 60");
  check_good_intact(s);
  std::map<std::string, int> ids;
  for (const std::string& id : s.ids["directives.py"]) ++ids[id];
  CHECK(ids == std::map<std::string, int>{{"TPU201", 1}, {"TPU905", 70000}});
}

TEST_CASE("bad input: 100,000-deep parentheses in CUDA stop Clang, which is reported, and the kernel after it is found",
          "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("deep.cu", "int f() { return " + std::string(100000, '(') + "1" + std::string(100000, ')') +
                           "; }\n__global__ void k(float* x) {}\n");
  Scan s = scan(dir);
  check_good_intact(s);
  CHECK(s.ids.at("deep.cu") == std::vector<std::string>{"TPU901", "TPU101"});
  for (const json& f : s.doc.at("findings"))
    if (f.at("id") == "TPU901") CHECK(f.at("message").get<std::string>().find("fatal error") != std::string::npos);
}

TEST_CASE("bad input: a C++ include cycle and a macro that expands without end", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("a.h", "#include \"b.h\"\nint a;\n");
  dir.write("b.h", "#include \"a.h\"\nint b;\n");
  dir.write("cycle.cu", "#include \"a.h\"\n__global__ void k(float* x) {}\n");
  dir.write("macro.cu",
            "#define F(x) F(x) F(x)\n#define G(x) G(G(x))\nint v = F(1) + G(2);\n"
            "#define H0 1\n#define H1 H0+H0\n#define H2 H1+H1\n#define H3 H2+H2\n#define H4 H3+H3\n#define H5 H4+H4\n"
            "#define H6 H5+H5\n#define H7 H6+H6\n#define H8 H7+H7\n#define H9 H8+H8\n#define H10 H9+H9\n"
            "#define H11 H10+H10\n#define H12 H11+H11\n#define H13 H12+H12\n#define H14 H13+H13\n#define H15 H14+H14\n"
            "#define H16 H15+H15\nint w = H16;\n__global__ void k2(float* x) {}\n");
  Scan s = scan(dir, "--file-timeout 60");
  check_good_intact(s);
  CHECK(s.ids.at("cycle.cu") == std::vector<std::string>{"TPU101"});
  CHECK(s.ids.at("macro.cu") == std::vector<std::string>{"TPU101"});
}

TEST_CASE("bad input: symlink loops and escapes, and odd file names", "[e2e][badinput]") {
  TempDir dir;
  dir.write("root/good.py", kGood);
  dir.write("outside.py", kGood);
  fs::create_symlink(dir.str("outside.py"), dir.str("root/escape.py"));
  fs::create_symlink(dir.str("root/loop_b.py"), dir.str("root/loop_a.py"));
  fs::create_symlink(dir.str("root/loop_a.py"), dir.str("root/loop_b.py"));
  fs::create_directory_symlink(dir.str("root"), dir.str("root/self"));
  dir.write("root/with space é.py", kGood);
  dir.write("root/new\nline.py", kGood);
  auto r = run_tpulint("scan '" + dir.str("root") + "' --format json");
  REQUIRE(r.exit_code == 0);
  json doc = json::parse(r.out);
  std::map<std::string, std::string> skipped;
  for (const json& k : doc.at("files").at("skipped")) skipped[k.at("path")] = k.at("reason");
  CHECK(skipped.at("escape.py") == "symlink leaves the scanned root");
  CHECK(skipped.at("loop_a.py") == "broken or looping symlink");
  CHECK(skipped.at("self").find("not followed") != std::string::npos);
  std::map<std::string, int> per_file;
  for (const json& f : doc.at("findings")) per_file[f.at("path")] += f.at("id") == "TPU201";
  CHECK(per_file["good.py"] == 1);
  CHECK(per_file["with space é.py"] == 1);
  CHECK(per_file["new\nline.py"] == 1);
  // The text report prints such names without breaking its layout into wrong files.
  auto text = run_tpulint("scan '" + dir.str("root") + "' --color never");
  CHECK(text.exit_code == 0);
}

TEST_CASE("bad input: a directory with 100,000 files", "[e2e][badinput][slow]") {
  TempDir dir;
  dir.write("good.py", kGood);
  fs::create_directories(dir.str("many"));
  for (int i = 0; i < 100000; ++i) std::ofstream(dir.str("many/f" + std::to_string(i) + (i % 50 ? ".txt" : ".py")));
  auto start = std::chrono::steady_clock::now();
  Scan s = scan(dir);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check_good_intact(s);
  CHECK(s.doc.at("files").at("analyzed") == 2001);  // good.py and every 50th file
  WARN("100,000-file directory scanned in " << seconds << " s");
}

// The recursive glob matcher, in the parent process: a .gitignore line of 100,000 "**/" took a
// stack frame each and crashed the scan with no report; stars before a letter the name lacks
// took time exponential in the name's length.
TEST_CASE("bad input: a .gitignore line of 100,000 '**/' crashed the scan, many stars hung it", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  const std::string long_name = std::string(100, 'a') + ".py";
  dir.write(long_name, kGood);
  dir.write("sub/ignored.py", kGood);
  std::string dirs;
  for (int i = 0; i < 100000; ++i) dirs += "**/";
  dir.write(".gitignore", dirs + "ignored.py\n*a*a*a*a*a*a*a*a*a*a*a*a*b\n");
  Scan s = scan(dir);
  check_good_intact(s);
  CHECK(s.ids.at(long_name) == std::vector<std::string>{"TPU201"});
  CHECK_FALSE(s.ids.count("sub/ignored.py"));
}

TEST_CASE("bad input: an unreadable file and an unreadable directory are skipped with the reason", "[e2e][badinput]") {
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("secret.py", kGood);
  dir.write("locked/x.py", kGood);
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(dir.str("good.py"), fs::perms::owner_all | fs::perms::others_read);
  fs::permissions(dir.str("secret.py"), fs::perms::none);
  fs::permissions(dir.str("locked"), fs::perms::none);
  // Root reads everything: scan as an unprivileged user then (setpriv, util-linux), so the
  // permissions bite as they do for a CI user.
  std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups env" : "";
  auto r = run_tpulint("scan '" + dir.str() + "' --format json --no-cache", TPULINT_SOURCE_DIR, as_user);
  fs::permissions(dir.str("locked"), fs::perms::owner_all);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  json doc = json::parse(r.out);
  std::map<std::string, std::string> skipped;
  for (const json& k : doc.at("files").at("skipped")) skipped[k.at("path")] = k.at("reason");
  CHECK(skipped.at("secret.py").find("unreadable") != std::string::npos);
  CHECK(skipped.at("locked").find("unreadable directory") != std::string::npos);
  std::map<std::string, std::vector<std::string>> ids;
  for (const json& f : doc.at("findings")) ids[f.at("path")].push_back(f.at("id"));
  CHECK(ids.at("good.py") == std::vector<std::string>{"TPU201"});
  CHECK(ids.at("secret.py") == std::vector<std::string>{"TPU902"});
}

TEST_CASE("bad input: a file deleted between discovery and analysis is skipped as unreadable", "[e2e][badinput]") {
  // The scan discovers the tree first and loads each file when a worker analyzes it; a file
  // removed in between (a checkout switching branches under a running scan) loses only itself.
  TempDir dir;
  dir.write("good.py", kGood);
  dir.write("vanishing.py", kGood);
  std::vector<std::string> roots{dir.str()};
  tpulint::Discovery discovery = tpulint::discover(roots, {});
  REQUIRE(discovery.files.size() == 2);
  fs::remove(dir.str("vanishing.py"));
  tpulint::app::Engine engine({});
  std::map<std::string, tpulint::FileResult> results;
  for (const auto& f : discovery.files) results[f.path] = engine.analyze_file(f.absolute_path, f.path);
  CHECK(results.at("good.py").analyzed);
  REQUIRE(results.at("good.py").findings.size() == 1);
  CHECK(results.at("good.py").findings[0].check_id == "TPU201");
  CHECK_FALSE(results.at("vanishing.py").analyzed);
  CHECK(results.at("vanishing.py").skip_reason.find("unreadable") != std::string::npos);
}

// Found by fuzz_python on its first input (an empty file): under UBSan, tree-sitter's runtime
// called the grammar's unprototyped scanner constructor through a prototyped pointer
// (-fsanitize=function). Fixed in grammars/CMakeLists.txt; `make sanitize` runs this in-process.
TEST_CASE("fuzz regression: empty and one-byte Python files parse in-process under the sanitizers", "[badinput][fuzz]") {
  TempDir dir;
  tpulint::app::Engine engine({});
  for (const std::string& text : {std::string(), std::string("\n"), std::string("("), std::string("\\")}) {
    auto path = dir.write("f.py", text);
    tpulint::FileResult r = engine.analyze_file(path, "f.py");
    CHECK(r.analyzed);
  }
}

// Found by fuzz_python (CI, 2026-12-06): a conditional expression left damaged by an unterminated
// string (`"cuda" if c else "mrema`) has no three parts, so it was its own only alternative, and
// TPU417 followed it into itself until the stack overflowed (a TPU903 crash in a scan).
TEST_CASE("fuzz regression: a damaged conditional expression handed to autocast is analyzed", "[badinput][fuzz]") {
  TempDir dir;
  tpulint::app::Engine engine({});
  const std::string text =
      "import torch\n"
      "def f(model, y):\n"
      "    mps = \"cuda\" if torch.cuda.is_available() else \"mrema    # ok\n"
      "    with torch.autocast(mps):\n"
      "        y = model(y)\n"
      "    return y\n";
  auto path = dir.write("m.py", text);
  tpulint::FileResult r = engine.analyze_file(path, "m.py");
  CHECK(r.analyzed);
  bool syntax_note = false;
  for (const auto& f : r.findings) syntax_note |= f.check_id == "TPU901";
  CHECK(syntax_note);
}
