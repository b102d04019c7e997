// `scan --timings FILE`: the per-frontend summary (nearest-rank percentiles), the table's order
// and format, and the real binary's table against its own report.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "report/timings.h"

using namespace tpulint;
using namespace std::chrono_literals;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

FileSummary timed(std::string path, Language language, std::chrono::nanoseconds time) {
  FileSummary f;
  f.path = std::move(path);
  f.language = language;
  f.analyzed = time.count() > 0;
  f.analysis_time = time;
  return f;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("timings: nearest-rank median and 95th percentile per frontend, untimed files left out", "[report][timings]") {
  ScanReport report;
  // Twenty Python files of 1..20 ms: the median is the 10th (10 ms), the 95th percentile the 19th.
  for (int i = 1; i <= 20; ++i)
    report.files.push_back(timed("p" + std::to_string(100 + i) + ".py", Language::Python, i * 1ms));
  // C++ and CUDA are one frontend; three files: the median is the 2nd, the 95th percentile the 3rd.
  report.files.push_back(timed("a.cu", Language::Cuda, 30ms));
  report.files.push_back(timed("b.cpp", Language::Cxx, 10ms));
  report.files.push_back(timed("c.h", Language::Cxx, 20ms));
  // Answered by the cache (or skipped): no time, not counted.
  report.files.push_back(timed("cached.py", Language::Python, 0ns));
  report.files.push_back(timed("cached.cu", Language::Cuda, 0ns));

  const std::vector<report::TimeSummary> s = report::summarize_times(report);
  REQUIRE(s.size() == 2);
  CHECK(s[0].frontend == "python");
  CHECK(s[0].files == 20);
  CHECK(s[0].median == 10ms);
  CHECK(s[0].p95 == 19ms);
  CHECK(s[0].max == 20ms);
  CHECK(s[0].slowest == "p120.py");
  CHECK(s[0].total == 210ms);
  CHECK(s[1].frontend == "c/c++/cuda");
  CHECK(s[1].files == 3);
  CHECK(s[1].median == 20ms);
  CHECK(s[1].p95 == 30ms);
  CHECK(s[1].slowest == "a.cu");

  const std::string text = report::format_time_summaries(s);
  CHECK(text.find("20 python files: median 10.0 ms, 95th percentile 19.0 ms, slowest 20.0 ms (p120.py), 210.0 ms in all\n") == 0);
  CHECK(text.find("3 c/c++/cuda files: median 20.0 ms, 95th percentile 30.0 ms, slowest 30.0 ms (a.cu)") != std::string::npos);
}

TEST_CASE("timings: one file is its own median and 95th percentile, no timed file says so", "[report][timings]") {
  ScanReport one;
  one.files.push_back(timed("only.py", Language::Python, 1500us));
  const auto s = report::summarize_times(one);
  REQUIRE(s.size() == 1);
  CHECK(s[0].median == 1500us);
  CHECK(s[0].p95 == 1500us);
  CHECK(report::format_time_summaries(s) ==
        "1 python file: median 1.5 ms, 95th percentile 1.5 ms, slowest 1.5 ms (only.py), 1.5 ms in all\n");

  ScanReport none;
  none.files.push_back(timed("cached.py", Language::Python, 0ns));
  CHECK(report::summarize_times(none).empty());
  CHECK(report::format_time_summaries({}).find("no file was analyzed") != std::string::npos);
}

TEST_CASE("timings: the table is slowest first, ties by path, in seconds to the microsecond", "[report][timings]") {
  ScanReport report;
  report.files.push_back(timed("b.py", Language::Python, 2ms));
  report.files.push_back(timed("a.py", Language::Python, 2ms));
  report.files.push_back(timed("k.cu", Language::Cuda, 1234567us));
  report.files.push_back(timed("skipped.py", Language::Python, 0ns));
  std::ostringstream out;
  report::write_timings_tsv(report, out);
  CHECK(out.str() ==
        "seconds\tlanguage\tpath\n"
        "1.234567\tcuda\tk.cu\n"
        "0.002000\tpython\ta.py\n"
        "0.002000\tpython\tb.py\n");
}

TEST_CASE("scan --timings: a line per file analyzed in the run, from worker processes and threads, none when cached",
          "[e2e][timings]") {
  TempDir dir;
  dir.write("proj/train.py", "import torch\nx = torch.nonzero(torch.ones(3))\n");
  dir.write("proj/util.py", "def f():\n    return 1\n");
  dir.write("proj/csrc/k.cu", "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n");
  for (const std::string mode : {"", "--in-process"}) {
    INFO("mode: " << mode);
    const std::string table = dir.str("t.tsv");
    auto r = run_tpulint("scan '" + dir.str("proj") + "' --no-cache --format json " + mode + " --timings '" + table + "'");
    REQUIRE(r.exit_code == 0);
    const auto report = nlohmann::json::parse(r.out);
    const std::vector<std::string> lines = lines_of(read_text(table));
    REQUIRE(lines.size() == 1 + report.at("files").at("analyzed").get<size_t>());
    CHECK(lines[0] == "seconds\tlanguage\tpath");
    std::map<std::string, std::string> language_of;
    double previous = 1e9;
    for (size_t i = 1; i < lines.size(); ++i) {
      std::istringstream row(lines[i]);
      std::string seconds, language, path;
      REQUIRE(std::getline(row, seconds, '\t'));
      REQUIRE(std::getline(row, language, '\t'));
      REQUIRE(std::getline(row, path));
      const double s = std::stod(seconds);
      CHECK(s > 0);
      CHECK(s <= previous);  // slowest first
      previous = s;
      language_of[path] = language;
    }
    CHECK(language_of == std::map<std::string, std::string>{{"csrc/k.cu", "cuda"}, {"train.py", "python"}, {"util.py", "python"}});
    CHECK(r.err.find("tpulint: timings: 2 python files: median ") != std::string::npos);
    CHECK(r.err.find("tpulint: timings: 1 c/c++/cuda file: median ") != std::string::npos);
  }

  // An unchanged tree answered by the cache: nothing was analyzed, the table has its header only.
  const std::string cache = dir.str("cache"), table = dir.str("cached.tsv");
  REQUIRE(run_tpulint("scan '" + dir.str("proj") + "' --cache-dir '" + cache + "'").exit_code == 0);
  // Past the cache's "recently modified" window, as between commits.
  std::this_thread::sleep_for(2100ms);
  REQUIRE(run_tpulint("scan '" + dir.str("proj") + "' --cache-dir '" + cache + "'").exit_code == 0);
  auto cached = run_tpulint("scan '" + dir.str("proj") + "' --cache-dir '" + cache + "' --timings '" + table + "'");
  REQUIRE(cached.exit_code == 0);
  CHECK(read_text(table) == "seconds\tlanguage\tpath\n");
  CHECK(cached.err.find("tpulint: timings: no file was analyzed in this run") != std::string::npos);
}

TEST_CASE("scan --timings: a file that cannot be written is an error, exit 2", "[e2e][timings]") {
  TempDir dir;
  dir.write("proj/a.py", "x = 1\n");
  auto r = run_tpulint("scan '" + dir.str("proj") + "' --no-cache --timings '" + dir.str("no/such/dir/t.tsv") + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("cannot write") != std::string::npos);
}
