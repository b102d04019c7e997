// How the formats people read show a scanned repository's text: controls as visible escapes
// (visible_text, visible_field), Markdown metacharacters escaped, JSON with C1 and bidirectional
// controls as \u escapes; and the text report's carets still under the flagged code when an
// escape widens the line before them.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "checks/registry.h"
#include "core/scan.h"
#include "report/formats.h"
#include "report/github_report.h"
#include "report/markdown_report.h"
#include "report/visible_text.h"

using namespace tpulint;

namespace {

// One file, one TPU401 finding at `column` (1-based) over `subject` in `source`.
ScanReport report_with(const std::string& path, const std::string& source, uint32_t column, const std::string& subject,
                       const std::string& message) {
  const CheckInfo& info = *checks::registry().find("TPU401");
  Finding f;
  f.check_id = info.id;
  f.check_name = std::string(info.name);
  f.category = info.category();
  f.severity = info.severity;
  f.effort = info.effort;
  f.hours = info.hours;
  f.path = path;
  f.start = {1, column};
  f.end = {1, column + uint32_t(subject.size())};
  f.message = message;
  f.subject = subject;
  f.source_line = source;
  std::vector<FileResult> files(1);
  files[0].path = path;
  files[0].language = Language::Python;
  files[0].analyzed = true;
  files[0].findings = {f};
  return build_report(Discovery{}, files, [](std::string_view) { return true; }, PathWeights{});
}

std::string render(std::string_view format, const ScanReport& report, const report::ReportOptions& options = {}) {
  std::ostringstream out;
  report::write_report(format, report, checks::registry(), options, out);
  return out.str();
}

}  // namespace

TEST_CASE("visible_text shows controls, C1 and bidirectional controls and bytes that are not UTF-8 as escapes",
          "[report][escape]") {
  using report::visible_field;
  using report::visible_text;
  CHECK(visible_text("plain: détecteur, 数据, 🙂, a\\b") == "plain: détecteur, 数据, 🙂, a\\b");
  CHECK(visible_text("a\x1b[31mred\x07\r\nerror TPU101") == "a\\x1b[31mred\\x07\\r\\nerror TPU101");
  CHECK(visible_text(std::string("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  CHECK(visible_text("tab\tkept") == "tab\tkept");
  CHECK(visible_text("csi\xc2\x9b" "2J nel\xc2\x85") == "csi\\x9b2J nel\\x85");  // U+009B, U+0085
  CHECK(visible_text("rlo\xe2\x80\xae lri\xe2\x81\xa6 alm\xd8\x9c lrm\xe2\x80\x8e") ==
        "rlo\\u202e lri\\u2066 alm\\u061c lrm\\u200e");
  CHECK(visible_text("latin-1 \xe9t\xe9") == "latin-1 \\xe9t\\xe9");
  CHECK(visible_text("overlong \xc0\xaf, surrogate \xed\xa0\x80, cut \xe2\x80") ==
        "overlong \\xc0\\xaf, surrogate \\xed\\xa0\\x80, cut \\xe2\\x80");
  CHECK(visible_field("a\tb\\c\nd") == "a\\tb\\\\c\\nd");
}

TEST_CASE("json_with_escaped_controls writes C1 and bidirectional controls as \\u escapes, the same strings",
          "[report][escape]") {
  const std::string text = "x\xc2\x9b y\xe2\x80\xae z\xc3\xa9";
  const std::string json = nlohmann::json(text).dump();
  const std::string escaped = report::json_with_escaped_controls(json);
  CHECK(escaped == "\"x\\u009b y\\u202e z\xc3\xa9\"");
  CHECK(nlohmann::json::parse(escaped).get<std::string>() == text);
  CHECK(report::json_with_escaped_controls("{\"a\": \"\xc3\xa9\"}") == "{\"a\": \"\xc3\xa9\"}");
}

TEST_CASE("the text report's carets stay under the flagged code when an escape widens the line before it",
          "[report][escape]") {
  // ".cuda()" starts at column 11 of the source; shown, ESC takes four columns instead of one.
  auto out = render("text", report_with("m.py", "m = \x1b[0m x.cuda()", 11, ".cuda()", "'.cuda()' moves it"));
  std::istringstream lines(out);
  std::string line, source, carets;
  while (std::getline(lines, line)) {
    if (line.find(".cuda()") != std::string::npos && line.find(" | ") != std::string::npos) {
      source = line;
      std::getline(lines, carets);
      break;
    }
  }
  REQUIRE(source == "  1 | m = \\x1b[0m x.cuda()");
  CHECK(carets.find('^') == source.find(".cuda()"));
  CHECK(carets.substr(carets.find('^')) == "^^^^^^^");
}

TEST_CASE("github annotations: a line break or control in a path or message cannot end the command", "[report][escape]") {
  auto out = render("github", report_with("a\r\n::error file=forged.py::b.py", "x.cuda()", 2, ".cuda()",
                                          "'.cuda()'\n::warning::forged \x1b[2J"));
  std::istringstream lines(out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) CHECK(line.rfind("::", 0) == 0);
  CHECK(n == 2);  // the finding and the score
  CHECK(out.find("file=a\\r\\n%3A%3Aerror file=forged.py%3A%3Ab.py,") != std::string::npos);
  CHECK(out.find("::'.cuda()'\\n::warning::forged \\x1b[2J\n") != std::string::npos);
  CHECK(report::github_escape_data("100%\n") == "100%25\\n");
}

TEST_CASE("markdown: links, emphasis, code, HTML and table pipes in a path or message are literal text",
          "[report][escape]") {
  CHECK(report::markdown_text("[click](https://evil.example) *b* _i_ `c` ~s~ $m$ !x | <img src=x> & \\") ==
        "\\[click\\]\\(https://evil.example\\) \\*b\\* \\_i\\_ \\`c\\` \\~s\\~ \\$m\\$ \\!x \\| &lt;img src=x&gt; &amp; "
        "\\\\");
  CHECK(report::markdown_text("a\nb\x1b") == "a\\\\nb\\\\x1b");
  report::ReportOptions options;
  options.link_base = "https://example.com/blob/main/";
  auto out = render("markdown", report_with("[x](y) |é.py", "x.cuda()", 2, ".cuda()", "'.cuda()' `moves` it | ok"),
                    options);
  CHECK(out.find("[\\[x\\]\\(y\\) \\|é.py:1](https://example.com/blob/main/%5Bx%5D%28y%29%20%7C%C3%A9.py#L1)") !=
        std::string::npos);
  CHECK(out.find("| '.cuda\\(\\)' \\`moves\\` it \\| ok |") != std::string::npos);
}
