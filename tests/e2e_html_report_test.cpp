// The HTML report in a browser: headless Chromium renders the report of a sample project and of
// a generated tree of 3,000 findings (screenshots checked), applies the filters a URL fragment
// names (the DOM dumped after the script ran: a finding filtered out has the `hidden` attribute),
// and runs nothing a hostile file name holds. Skipped when chromium is not installed.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "cli_runner.h"

namespace fs = std::filesystem;
using nlohmann::json;
using tpulint::testing::CommandResult;
using tpulint::testing::have_programs;
using tpulint::testing::run_program;
using tpulint::testing::run_tpulint;
using tpulint::testing::slurp;
using tpulint::testing::TempDir;

namespace {

// Headless Chromium with a profile of its own, no network service it would start by itself, and
// the page's console on standard error.
class Chromium {
 public:
  explicit Chromium(const TempDir& dir) : flags_(fmt::format(
      "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
      "--disable-sync --no-first-run --user-data-dir='{}' --window-size=1280,2000 --enable-logging=stderr --v=0 "
      "--virtual-time-budget=3000 ", dir.str("profile"))) {}

  // The DOM once the page's script has run; its console messages in `err`.
  CommandResult dump_dom(const std::string& url) const { return run_program("chromium", flags_ + "--dump-dom '" + url + "'"); }

  CommandResult screenshot(const std::string& url, const std::string& png) const {
    return run_program("chromium", flags_ + "--screenshot='" + png + "' '" + url + "'");
  }

 private:
  std::string flags_;
};

// The console shows neither an exception nor a refusal by the page's Content-Security-Policy
// (which a wrong hash of the page's own script, or an injected handler, would cause).
void check_console(const CommandResult& r) {
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("Uncaught") == std::string::npos);
  CHECK(r.err.find("Refused to") == std::string::npos);
  CHECK(r.err.find("Content Security Policy") == std::string::npos);
}

// A dumped DOM: the console is clean and the script ran to its end.
void check_dom(const CommandResult& r) {
  check_console(r);
  CHECK(r.out.find("data-ready=\"true\"") != std::string::npos);
}

// A screenshot as the page was asked for: a PNG of the window's size, and not a blank page (a
// blank 1280x2000 page compresses to a few kilobytes).
void check_screenshot(const std::string& png, size_t min_bytes) {
  REQUIRE(fs::exists(png));
  const std::string bytes = slurp(png);
  REQUIRE(bytes.size() > 24);
  CHECK(bytes.substr(0, 8) == "\x89PNG\r\n\x1a\n");
  CHECK(bytes.substr(12, 4) == "IHDR");
  auto be32 = [&](size_t at) {
    return uint32_t(uint8_t(bytes[at])) << 24 | uint32_t(uint8_t(bytes[at + 1])) << 16 |
           uint32_t(uint8_t(bytes[at + 2])) << 8 | uint32_t(uint8_t(bytes[at + 3]));
  };
  CHECK(be32(16) == 1280);
  CHECK(be32(20) == 2000);
  CHECK(bytes.size() > min_bytes);
}

// The findings of a dumped DOM: each one's attributes, and whether the filters hid it.
struct Row {
  std::string check, severity, context;
  bool hidden = false;
};

std::vector<Row> rows(const std::string& dom) {
  std::vector<Row> out;
  std::regex li("<li ([^>]*)>");
  std::regex attribute(R"re(([a-z-]+)(?:="([^"]*)")?)re");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), li); it != std::sregex_iterator(); ++it) {
    Row row;
    row.context = "unknown";
    const std::string attributes = (*it)[1].str();
    for (auto a = std::sregex_iterator(attributes.begin(), attributes.end(), attribute); a != std::sregex_iterator(); ++a) {
      const std::string name = (*a)[1].str(), value = (*a)[2].str();
      if (name == "class") row.severity = value;
      else if (name == "data-c") row.check = value;
      else if (name == "data-x") row.context = value;
      else if (name == "hidden") row.hidden = true;
    }
    out.push_back(row);
  }
  return out;
}

size_t visible(const std::vector<Row>& rows) {
  return size_t(std::count_if(rows.begin(), rows.end(), [](const Row& r) { return !r.hidden; }));
}

// `n` findings are shown, and each is one the filters let through.
void check_shown(const std::vector<Row>& rows, size_t n, const std::function<bool(const Row&)>& passes) {
  CHECK(visible(rows) == n);
  for (const Row& row : rows)
    if (!row.hidden) CHECK(passes(row));
}

// 375 copies of a module with eight findings: four checks in a training loop, five outside it.
// Eight findings a module (its loop imports torch_xla, so TPU418 leaves it).
const char* kModule =
    "import torch\nimport torch_xla\n\n\n"
    "def train(model, loader, opt):\n"
    "    for x, mask in loader:\n"
    "        x = x.cuda()\n"
    "        idx = torch.nonzero(mask)\n"
    "        loss = model(x[idx]).mean()\n"
    "        print(loss.item())\n"
    "        loss.backward()\n"
    "        opt.step()\n\n\n"
    "def prepare(x, mask):\n"
    "    y = x.cuda()\n"
    "    torch.cuda.synchronize()\n"
    "    return torch.unique(y), x[mask], y.double()\n";

void write_large_tree(const TempDir& dir) {
  for (int i = 0; i < 375; ++i) dir.write(fmt::format("tree/pkg/m{:03}.py", i), kModule);
}

}  // namespace

TEST_CASE("a --link-base that is not an http or https URL is a usage error", "[e2e][html][link]") {
  for (const char* bad : {"javascript:alert(1)//", "file:///etc/", "https://x/a\"onmouseover=\"b"}) {
    auto r = run_tpulint(fmt::format("scan fixtures/projects/torch_cuda_extension --format html --link-base '{}'", bad));
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--link-base") != std::string::npos);
    CHECK(r.err.find("expects ") != std::string::npos);
    CHECK(r.out.empty());
  }
}

TEST_CASE("the HTML report of a sample project in headless Chromium: summary and plan first, source links, a screenshot",
          "[e2e][html][chromium]") {
  if (!have_programs({"chromium"})) return;
  TempDir dir;
  const std::string html = dir.str("report.html");
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format html -o '" + html +
                       "' --link-base https://github.com/o/r/blob/abc/");
  REQUIRE(r.exit_code == 0);
  const std::string page = slurp(html);
  CHECK(page.find("href=\"https://github.com/o/r/blob/abc/csrc/nms_kernel.cu#L") != std::string::npos);
  CHECK(page.find("rel=\"noopener noreferrer\"") != std::string::npos);

  Chromium chromium(dir);
  auto dom = chromium.dump_dom("file://" + html);
  check_dom(dom);
  // Grouped by work item, every finding shown, and the summary and plan above the findings.
  CHECK(dom.out.find("<div id=\"by-item\">") != std::string::npos);
  CHECK(dom.out.find("<div id=\"by-file\" hidden=\"\">") != std::string::npos);
  const auto all = rows(dom.out);
  CHECK(all.size() >= 10);
  CHECK(visible(all) == all.size());
  CHECK(dom.out.find("id=\"summary\"") < dom.out.find("id=\"plan\""));
  CHECK(dom.out.find("id=\"plan\"") < dom.out.find("id=\"findings\""));
  CHECK(dom.out.find(fmt::format("{} of {} findings", all.size(), all.size())) != std::string::npos);

  const std::string png = dir.str("sample.png");
  check_console(chromium.screenshot("file://" + html, png));
  check_screenshot(png, 60000);
}

TEST_CASE("the HTML report of 3,000 findings is compact and renders: a screenshot", "[e2e][html][chromium]") {
  if (!have_programs({"chromium"})) return;
  TempDir dir;
  write_large_tree(dir);
  const std::string html = dir.str("report.html");
  REQUIRE(run_tpulint("scan '" + dir.str("tree") + "' --format html -o '" + html + "'").exit_code == 0);
  // No boilerplate repeated per finding (a check's summary, a fix hint): a finding's markup is
  // its own data, under 300 bytes for these.
  const size_t size = fs::file_size(html);
  WARN("HTML report of 3,000 findings: " << size << " bytes");
  CHECK(size < 900'000);
  const std::string png = dir.str("large.png");
  check_console(Chromium(dir).screenshot("file://" + html, png));
  check_screenshot(png, 60000);
}

// The generated tree's HTML report, with its JSON report to count what each view should show.
struct LargeReport {
  TempDir dir;
  std::string url;
  json report;

  LargeReport() {
    write_large_tree(dir);
    const std::string html = dir.str("report.html");
    auto r = run_tpulint("scan '" + dir.str("tree") + "' --format html -o '" + html + "' --output json='" +
                         dir.str("report.json") + "'");
    REQUIRE(r.exit_code == 0);
    url = "file://" + html;
    report = json::parse(slurp(dir.str("report.json")));
    REQUIRE(report.at("findings").size() == 3000);
  }

  size_t expected(const std::function<bool(const json&)>& keep) const {
    return size_t(std::count_if(report.at("findings").begin(), report.at("findings").end(), keep));
  }
};

TEST_CASE("the HTML report of 3,000 findings filters by two facets from the URL fragment, counts updated",
          "[e2e][html][chromium]") {
  if (!have_programs({"chromium"})) return;
  LargeReport large;
  auto dom = Chromium(large.dir).dump_dom(large.url + "#severity=error&check=TPU401");
  check_dom(dom);
  const auto all = rows(dom.out);
  REQUIRE(all.size() == 3000);
  const size_t n = large.expected([](const json& f) { return f.at("id") == "TPU401" && f.at("severity") == "error"; });
  CHECK(n == 750);
  check_shown(all, n, [](const Row& row) { return row.check == "TPU401" && row.severity == "error"; });
  CHECK(dom.out.find(fmt::format("data-shown=\"{}\"", n)) != std::string::npos);
  CHECK(dom.out.find(fmt::format("{} of 3000 findings", n)) != std::string::npos);
  // Each choice counts what it would show with the other filters as they are.
  CHECK(dom.out.find("TPU201 torch-data-dependent-shape (0)</option>") != std::string::npos);
  CHECK(dom.out.find(fmt::format(">error ({})</option>", n)) != std::string::npos);
  CHECK(dom.out.find(">warning (0)</option>") != std::string::npos);
}

TEST_CASE("the HTML report of 3,000 findings filters by context and path, grouped by file", "[e2e][html][chromium]") {
  if (!have_programs({"chromium"})) return;
  LargeReport large;
  auto dom = Chromium(large.dir).dump_dom(large.url + "#context=loop&path=PKG/M01&group=file");
  check_dom(dom);
  const auto all = rows(dom.out);
  const size_t n = large.expected([](const json& f) {
    return f.at("context") == "loop" && f.at("path").get<std::string>().starts_with("pkg/m01");
  });
  CHECK(n == 30);
  check_shown(all, n, [](const Row& row) { return row.context == "loop"; });
  // Only the matching files' sections are shown, opened, each with its count.
  CHECK(dom.out.find("<div id=\"by-file\">") != std::string::npos);
  CHECK(dom.out.find("<div id=\"by-item\" hidden=\"\">") != std::string::npos);
  const std::regex shown_file(R"re(<details class="g" data-p="pkg/m01\d\.py" open="">)re");
  CHECK(std::distance(std::sregex_iterator(dom.out.begin(), dom.out.end(), shown_file), std::sregex_iterator()) == 10);
  CHECK(dom.out.find("<details class=\"g\" data-p=\"pkg/m020.py\" hidden=\"\"") != std::string::npos);
  CHECK(dom.out.find("<span class=\"n\">3 of 8</span> findings") != std::string::npos);
}

TEST_CASE("the HTML report of 3,000 findings filters by category and a search", "[e2e][html][chromium]") {
  if (!have_programs({"chromium"})) return;
  LargeReport large;
  // The message quotes the op; another finding's source line holds it too.
  auto dom = Chromium(large.dir).dump_dom(large.url + "#category=dynamic-shape&q=%27torch.unique%27");
  check_dom(dom);
  check_shown(rows(dom.out), 375, [](const Row& row) { return row.check == "TPU201"; });
}

TEST_CASE("a hostile file name in the HTML report is text in Chromium, in the page and in the filters",
          "[e2e][html][chromium][escape]") {
  if (!have_programs({"chromium"})) return;
  TempDir dir;
  dir.write("tree/<img src=x onerror=alert(1)>.py", "import torch\nx = torch.zeros(3).cuda()\n");
  dir.write("tree/ok.py", "import torch\ny = torch.zeros(3).cuda()\n");
  const std::string html = dir.str("report.html");
  auto r = run_tpulint("scan '" + dir.str("tree") + "' --format html -o '" + html + "' --link-base https://x.example/b/");
  REQUIRE(r.exit_code == 0);
  CHECK(slurp(html).find("<img") == std::string::npos);

  Chromium chromium(dir);
  // The path filter matches the name as text; a value from the fragment is only ever text too.
  auto dom = chromium.dump_dom("file://" + html + "#path=%3Cimg%20src&check=%3Cimg%20src%3Dy%20onerror%3Dalert(2)%3E");
  check_dom(dom);
  CHECK(dom.out.find("<img") == std::string::npos);
  CHECK(dom.out.find("&lt;img src=x onerror=alert(1)&gt;.py:2:") != std::string::npos);
  CHECK(dom.out.find("&lt;img src=y onerror=alert(2)&gt; (0)</option>") != std::string::npos);
  CHECK(visible(rows(dom.out)) == 0);  // no finding of that "check"

  auto by_path = chromium.dump_dom("file://" + html + "#path=%3Cimg%20src");
  check_dom(by_path);
  const auto all = rows(by_path.out);
  CHECK(all.size() == 2);
  CHECK(visible(all) == 1);
  CHECK(by_path.out.find("data-p=\"<img") == std::string::npos);
}

TEST_CASE("a work item's link opens its section in the HTML report of 3,000 findings, the others left closed",
          "[e2e][html][chromium]") {
  if (!have_programs({"chromium"})) return;
  LargeReport large;
  CHECK(slurp(large.dir.str("report.html")).find("<a class=\"clip\" href=\"#w2\"") != std::string::npos);
  auto dom = Chromium(large.dir).dump_dom(large.url + "#w2");
  check_dom(dom);
  CHECK(dom.out.find("<details class=\"g\" id=\"w2\" data-w=\"2\" open=\"\">") != std::string::npos);
  CHECK(dom.out.find("<details class=\"g\" id=\"w1\" data-w=\"1\">") != std::string::npos);
  CHECK(visible(rows(dom.out)) == 3000);
}
