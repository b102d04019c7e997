// The HTML report as written (its behaviour in a browser is tests/e2e_html_report_test.cpp): text
// from the scanned repository escaped everywhere the new UI puts it (data attributes the filters
// read, titles, links), a Content-Security-Policy that lets only the page's own style and script
// run, the findings grouped by work item and by file, and source links under --link-base.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checks/registry.h"
#include "core/scan.h"
#include "report/formats.h"
#include "report/html_report.h"
#include "report/sha256.h"

using namespace tpulint;

namespace {

Finding finding(const char* id, const std::string& path, uint32_t line, const std::string& subject,
                const std::string& message, const std::string& source) {
  Finding f = file_note(*checks::registry().find(id), path, message);  // the check's fields
  f.start = {line, 5};
  f.end = {line, 5 + uint32_t(subject.size())};
  f.subject = subject;
  f.source_line = source;
  return f;
}

ScanReport report_of(std::vector<std::vector<Finding>> per_file) {
  std::vector<FileResult> files;
  for (auto& findings : per_file) {
    FileResult r;
    r.path = findings.front().path.str();
    r.language = Language::Python;
    r.analyzed = true;
    r.findings = std::move(findings);
    files.push_back(std::move(r));
  }
  return build_report(Discovery{}, files, [](std::string_view) { return true; }, PathWeights{});
}

std::string html(const ScanReport& report, const report::ReportOptions& options = {}) {
  std::ostringstream out;
  report::write_report("html", report, checks::registry(), options, out);
  return out.str();
}

std::string between(const std::string& text, const std::string& open, const std::string& close) {
  const size_t begin = text.find(open);
  REQUIRE(begin != std::string::npos);
  const size_t end = text.find(close, begin + open.size());
  REQUIRE(end != std::string::npos);
  return text.substr(begin + open.size(), end - begin - open.size());
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The page's tags, its style sheet and script left out (a script's `i < n` is no tag).
std::vector<std::string> tags(std::string page) {
  for (const char* element : {"style", "script"}) {
    const std::string open = fmt::format("<{}>", element), close = fmt::format("</{}>", element);
    const size_t begin = page.find(open), end = page.find(close);
    if (begin != std::string::npos && end != std::string::npos) page.erase(begin + open.size(), end - begin - open.size());
  }
  std::vector<std::string> out;
  std::regex tag("<[^>]*>");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

// No inline style or event handler (the policy would block them, or a name made them), and every
// attribute value quoted and free of quotes and angle brackets: nothing in a value can end it.
void check_attributes(const std::string& page) {
  std::regex attribute(R"re( ([a-zA-Z-]+)(=("[^"]*"|[^ >]*))?)re");
  for (const std::string& t : tags(page)) {
    INFO(t);
    if (!t.starts_with("<meta http-equiv=\"Content-Security-Policy\"")) CHECK(t.find('\'') == std::string::npos);
    CHECK(t.find('<', 1) == std::string::npos);
    for (auto it = std::sregex_iterator(t.begin(), t.end(), attribute); it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1].str(), value = (*it)[3].str();
      CHECK(name != "style");
      CHECK_FALSE(name.starts_with("on"));
      if ((*it)[2].matched) CHECK(value.starts_with("\""));
    }
  }
}

}  // namespace

TEST_CASE("sha256 and the CSP hash source match the standard's test vectors", "[report][html]") {
  auto hex = [](std::string_view text) {
    std::string out;
    for (uint8_t b : report::sha256(text)) out += fmt::format("{:02x}", b);
    return out;
  };
  CHECK(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Two blocks of message, and a length that leaves no room for the padding in the last one.
  CHECK(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(hex(std::string(1000, 'a')) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  CHECK(report::csp_hash_source("") == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
}

TEST_CASE("the HTML report's policy lets only its own style and script run, and it uses no style attribute",
          "[report][html]") {
  const std::string out = html(report_of({{finding("TPU401", "m.py", 3, ".cuda()", "'.cuda()' moves it", "x.cuda()")}}));
  const std::string policy = between(out, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\"");
  CHECK(policy.starts_with("default-src 'none'; "));
  CHECK(policy.find("style-src " + report::csp_hash_source(between(out, "<style>", "</style>")) + ";") !=
        std::string::npos);
  CHECK(policy.find("script-src " + report::csp_hash_source(between(out, "<script>", "</script>")) + ";") !=
        std::string::npos);
  CHECK(policy.find("unsafe") == std::string::npos);
  CHECK(count(out, "<style") == 1);
  CHECK(count(out, "<script") == 1);
  check_attributes(out);
}

TEST_CASE("the HTML report escapes a hostile path in text, in the filters' data attributes, titles and links",
          "[report][html][escape]") {
  const std::string evil = "<img src=x onerror=alert(1)>.py";
  const std::string quoted = "q\" onmouseover=\"alert(2)'.py";
  report::ReportOptions options;
  options.link_base = "https://example.com/blob/main/";
  ScanReport r = report_of({{finding("TPU401", evil, 3, ".cuda()", "'.cuda()' <b>moves</b> it", "x.cuda() # <script>")},
                            {finding("TPU401", quoted, 4, ".cuda()", "'.cuda()' moves it", "y.cuda()")}});
  r.findings[0].hint = "quote '<script>alert(4)</script>'";  // a hint may quote the scanned code too
  r.plan[0].subject = "<img src=y onerror=alert(3)>";  // a work item's subject is the scanned code's name
  r.plan[0].score_gain = 0.01;                          // "+<0.1"
  const std::string out = html(r, options);
  CHECK(out.find("<img") == std::string::npos);
  CHECK(out.find("onerror=alert") != std::string::npos);  // as text only
  CHECK(count(out, "<script") == 1);
  CHECK(out.find("<b>moves</b>") == std::string::npos);
  // The file group's path, which the path filter reads.
  CHECK(out.find("data-p=\"&lt;img src=x onerror=alert(1)&gt;.py\"") != std::string::npos);
  CHECK(out.find("data-p=\"q&quot; onmouseover=&quot;alert(2)&#39;.py\"") != std::string::npos);
  // The plan's name cell, whose title shows a name cut to fit.
  CHECK(out.find("title=\"&lt;img src=y onerror=alert(3)&gt;\">&lt;img src=y onerror=alert(3)&gt;</a>") !=
        std::string::npos);
  // The links: the path percent-encoded, then the whole URL escaped as an attribute.
  CHECK(out.find("href=\"https://example.com/blob/main/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.py#L3\" "
                 "rel=\"noopener noreferrer\"><code>&lt;img src=x onerror=alert(1)&gt;.py:3:5</code></a>") !=
        std::string::npos);
  CHECK(out.find("href=\"https://example.com/blob/main/q%22%20onmouseover%3D%22alert%282%29%27.py#L4\"") !=
        std::string::npos);
  check_attributes(out);
  CHECK(out.find("+&lt;0.1") != std::string::npos);
}

TEST_CASE("the HTML report puts the summary and the plan before the findings, grouped by work item and by file",
          "[report][html]") {
  ScanReport r = report_of({{finding("TPU401", "a.py", 3, ".cuda()", "'.cuda()' moves it", "x.cuda()"),
                             finding("TPU201", "a.py", 9, "torch.nonzero", "'torch.nonzero' is dynamic", "torch.nonzero(m)")},
                            {finding("TPU401", "b.py", 2, ".cuda()", "'.cuda()' moves it", "y.cuda()")}});
  r.findings[0].context = Context::Loop;
  REQUIRE_FALSE(r.score.verdict_reason.empty());
  const std::string out = html(r);
  const size_t summary = out.find("id=\"summary\""), plan = out.find("id=\"plan\""), findings = out.find("id=\"findings\"");
  CHECK(summary < plan);
  CHECK(plan < findings);
  CHECK(out.find("<th>effort</th><td>") < plan);
  CHECK(out.find("in the core code") < plan);
  CHECK(out.find("id=\"score-gauge\"") < summary);
  CHECK(out.find("id=\"verdict\"") < summary);
  CHECK(out.find(report::html_escape(r.score.verdict_reason)) < summary);
  // One section per work item (filled by the script) and per file; each finding written once.
  REQUIRE(r.plan.size() == 2);
  CHECK(count(out, "<details class=\"g\" id=\"w") == 2);
  CHECK(out.find("href=\"#w0\"") != std::string::npos);
  CHECK(count(out, "<details class=\"g\" data-p=") == 2);
  CHECK(count(out, "<li ") == 3);
  const size_t cuda_item = r.plan[0].subject == ".cuda()" ? 0 : 1;
  CHECK(out.find(fmt::format("<li class=\"error\" data-c=\"TPU401\" data-w=\"{}\" data-x=\"loop\">", cuda_item)) !=
        std::string::npos);
  // The filters offer what was found, and every severity and context.
  for (const char* option : {"<option value=\"TPU201\"", "<option value=\"TPU401\"", "<option value=\"cuda-api\" data-k=\"4\"",
                             "<option>error</option>", "<option>hot-path</option>", "<option>unknown</option>",
                             "<option value=\"file\">file</option>"})
    CHECK(out.find(option) != std::string::npos);
  CHECK(out.find("<option value=\"TPU101\"") == std::string::npos);
  // No link without a link base.
  CHECK(out.find("href=\"http") == std::string::npos);
}

// A report put together elsewhere (a test's, a merge's) may hold findings no plan was made with:
// the script would find no section for them.
TEST_CASE("the HTML report lists a finding in no work item of its plan with the notes", "[report][html]") {
  ScanReport r = report_of({{finding("TPU401", "a.py", 3, ".cuda()", "'.cuda()' moves it", "x.cuda()")}});
  r.findings[0].work_item = 7;
  r.findings.push_back(r.findings[0]);
  r.findings.back().work_item = Finding::kNoWorkItem;
  const std::string out = html(r);
  CHECK(out.find("data-w=\"7\"") == std::string::npos);
  CHECK(count(out, "<li class=\"error\" data-c=\"TPU401\">") == 2);
  CHECK(out.find("<details class=\"g\" data-w=\"notes\" open><summary><b>not in the plan</b> · <span class=\"n\">2</span>") !=
        std::string::npos);
}

TEST_CASE("the HTML report writes each fix hint once, and findings name theirs", "[report][html]") {
  std::vector<Finding> in_a, in_b;
  for (uint32_t line = 1; line <= 3; ++line) {
    in_a.push_back(finding("TPU401", "a.py", line, ".cuda()", "'.cuda()' moves it", "x.cuda()"));
    in_b.push_back(finding("TPU401", "b.py", line, ".cuda()", "'.cuda()' moves it", "x.cuda()"));
    in_a.back().hint = in_b.back().hint = "use 'torch_xla.device()' <b>here</b>";
  }
  in_b.back().hint = "";
  const std::string out = html(report_of({in_a, in_b}));
  CHECK(count(out, "torch_xla.device()") == 1);
  CHECK(out.find("<template id=\"hints\"><p>use &#39;torch_xla.device()&#39; &lt;b&gt;here&lt;/b&gt;</p></template>") !=
        std::string::npos);
  CHECK(count(out, " data-h=\"0\">") == 5);
  CHECK(count(out, "<li ") == 6);
}

TEST_CASE("the HTML report links a notebook's finding to its JSON line, and its plan to the first finding",
          "[report][html]") {
  Finding f = finding("TPU401", "nb/train.ipynb", 18, ".cuda()", "'.cuda()' moves it", "model.cuda()");
  f.cell = {3, {2, 15}, {2, 22}};
  report::ReportOptions options;
  options.link_base = "https://github.com/o/r/blob/abc";  // no final slash: one is added
  const std::string out = html(report_of({{f}}), options);
  CHECK(out.find("<a href=\"https://github.com/o/r/blob/abc/nb/train.ipynb#L18\" rel=\"noopener noreferrer\">"
                 "<code>nb/train.ipynb:cell 3:2:15</code></a>") != std::string::npos);
  CHECK(out.find("<a href=\"https://github.com/o/r/blob/abc/nb/train.ipynb#L18\" rel=\"noopener noreferrer\">"
                 "<code>nb/train.ipynb:cell 3:2</code></a>") != std::string::npos);  // the plan's "first at"
}

TEST_CASE("a link base must be an http or https URL that a link can hold", "[report][link]") {
  using report::link_base_error;
  CHECK(link_base_error("https://github.com/o/r/blob/abc/") == "");
  CHECK(link_base_error("http://git.example:8080/x") == "");
  CHECK(link_base_error("HTTPS://github.com/o/r/blob/(v1)/") == "");
  CHECK(link_base_error("javascript:alert(1)//") == "expects an http:// or https:// URL");
  CHECK(link_base_error("file:///etc/") == "expects an http:// or https:// URL");
  CHECK(link_base_error("github.com/o/r") == "expects an http:// or https:// URL");
  CHECK(link_base_error("https://") == "expects a host after the scheme");
  CHECK(link_base_error("https:///path") == "expects a host after the scheme");
  CHECK(link_base_error("https://x/a\"b") == "expects URL characters only; '\"' must be percent-encoded");
  CHECK(link_base_error("https://x/<b>") == "expects URL characters only; '<' must be percent-encoded");
  CHECK(link_base_error("https://x/a b").starts_with("expects a URL in ASCII without spaces"));
  CHECK(link_base_error("https://x/\x1b[2J").starts_with("expects a URL in ASCII without spaces"));
  CHECK(link_base_error("https://x/é").starts_with("expects a URL in ASCII without spaces"));
  CHECK(link_base_error("https://x/?ref=1").starts_with("expects no query or fragment"));
  CHECK(link_base_error("https://x/#a").starts_with("expects no query or fragment"));

  CHECK(report::source_link("https://x/blob/abc/", "a b/c.py", 7) == "https://x/blob/abc/a%20b/c.py#L7");
  CHECK(report::source_link("https://x/blob/abc", "c.py", 7) == "https://x/blob/abc/c.py#L7");
  CHECK(report::source_link("", "c.py", 7) == "c.py#L7");
}

TEST_CASE("markdown: a link base's parentheses cannot end a link", "[report][link][markdown]") {
  report::ReportOptions options;
  options.link_base = "https://x/blob/(v1)/";
  std::ostringstream out;
  report::write_report("markdown", report_of({{finding("TPU401", "m.py", 3, ".cuda()", "'.cuda()' moves it", "x.cuda()")}}),
                       checks::registry(), options, out);
  CHECK(out.str().find("[m.py:3](https://x/blob/\\(v1\\)/m.py#L3)") != std::string::npos);
}

TEST_CASE("the HTML report's plan counts each work item's lines to touch beside its findings", "[report][html]") {
  ScanReport r = report_of({{finding("TPU435", "a.cu", 3, "cudaGetLastError", "a CUDA runtime call", "x")}});
  REQUIRE_FALSE(r.plan.empty());
  r.plan[0].touch_lines = 12;
  r.plan[0].touched = {{"a.cu", {1, 2, 4}}};
  CHECK(html(r).find("<br><span class=\"muted\">+12 lines to touch</span>") != std::string::npos);
  r.plan[0].touch_lines = 0;
  r.plan[0].touched.clear();
  CHECK(html(r).find("to touch") == std::string::npos);
}
