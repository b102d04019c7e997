// The scan pipeline's language-independent steps: parallel_for, load_source, analyze_files
// (with a fake FileAnalyzer) and build_report.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "core/analyzer_notes.h"
#include "core/scan.h"
#include "temp_dir.h"

using namespace tpulint;
namespace fs = std::filesystem;

namespace {

using tpulint::testing::TempDir;

// Writes a file and describes it as discovery would.
DiscoveredFile write_discovered(const TempDir& dir, const std::string& rel, const std::string& bytes) {
  fs::path p = dir.write(rel, bytes);
  return DiscoveredFile{p, rel, language_for_path(p)};
}

std::string skip_reason(const std::variant<SourceFile, std::string>& loaded) {
  if (auto* r = std::get_if<std::string>(&loaded)) return *r;
  return "";
}

// Adds one finding per file (the file's first line as the message) and fails on demand.
class FakeAnalyzer : public FileAnalyzer {
 public:
  explicit FakeAnalyzer(std::set<std::string> fail_on) : fail_on_(std::move(fail_on)) {}
  void analyze(const SourceFile& file, FileResult& result) override {
    if (fail_on_.count(file.path())) throw std::runtime_error("fake frontend exploded on " + file.path());
    Finding f;
    f.check_id = "TPU201";
    f.category = Category::DynamicShape;
    f.severity = Severity::Warning;
    f.effort = EffortClass::Medium;
    f.path = file.path();
    f.start = {1, 1};
    f.end = {1, 2};
    f.message = std::string(file.line_text(1));
    result.findings.push_back(f);
    if (file.path().find("two") != std::string::npos) {
      f.check_id = "TPU401";
      f.category = Category::CudaApi;
      f.start = f.end = {2, 1};
      result.findings.push_back(f);
    }
  }

 private:
  std::set<std::string> fail_on_;
};

Finding note(std::string id, std::string path, Position start, std::string message = "m") {
  Finding f;
  f.check_id = std::move(id);
  f.category = category_from_id(f.check_id).value_or(Category::AnalyzerNote);
  f.effort = EffortClass::Low;
  f.severity = Severity::Error;
  f.path = std::move(path);
  f.start = start;
  f.end = start;
  f.message = std::move(message);
  return f;
}

}  // namespace

TEST_CASE("parallel_for runs every index exactly once", "[core][scan]") {
  for (unsigned jobs : {1u, 2u, 8u}) {
    for (size_t count : {size_t(0), size_t(1), size_t(1000)}) {
      INFO("jobs " << jobs << ", count " << count);
      std::vector<std::atomic<int>> runs(count);
      for (auto& r : runs) r = 0;
      std::atomic<size_t> calls{0};
      std::atomic<bool> out_of_range{false};
      // Catch's assertions are not thread-safe: record, then check on this thread.
      parallel_for(count, jobs, [&](unsigned worker, size_t i) {
        if (i >= count || worker >= jobs) {
          out_of_range = true;
          return;
        }
        runs[i]++;
        calls++;
      });
      CHECK_FALSE(out_of_range);
      CHECK(calls == count);
      for (size_t i = 0; i < count; ++i) REQUIRE(runs[i] == 1);
    }
  }
}

TEST_CASE("parallel_for uses each worker index on one thread only", "[core][scan]") {
  for (unsigned jobs : {1u, 2u, 8u}) {
    for (size_t count : {size_t(1), size_t(1000)}) {
      INFO("jobs " << jobs << ", count " << count);
      std::mutex mu;
      std::map<unsigned, std::set<std::thread::id>> threads_of_worker;
      std::map<std::thread::id, std::set<unsigned>> workers_of_thread;
      parallel_for(count, jobs, [&](unsigned worker, size_t) {
        std::lock_guard lock(mu);
        threads_of_worker[worker].insert(std::this_thread::get_id());
        workers_of_thread[std::this_thread::get_id()].insert(worker);
      });
      CHECK_FALSE(threads_of_worker.empty());
      CHECK(threads_of_worker.size() <= jobs);
      for (const auto& [worker, threads] : threads_of_worker) {
        INFO("worker " << worker);
        CHECK(worker < jobs);
        CHECK(threads.size() == 1);
      }
      for (const auto& [thread, workers] : workers_of_thread) CHECK(workers.size() == 1);
    }
  }
}

TEST_CASE("parallel_for with jobs = 0 uses the default and still runs everything", "[core][scan]") {
  CHECK(default_jobs() >= 1);
  std::atomic<size_t> sum{0};
  std::atomic<unsigned> max_worker{0};
  parallel_for(100, 0, [&](unsigned worker, size_t i) {
    unsigned seen = max_worker;
    while (worker > seen && !max_worker.compare_exchange_weak(seen, worker)) {
    }
    sum += i;
  });
  CHECK(sum == 4950);
  CHECK(max_worker < default_jobs());
}

TEST_CASE("load_source reads a valid file into a SourceFile", "[core][scan]") {
  TempDir dir;
  DiscoveredFile f = write_discovered(dir, "pkg/model.py", "import torch\r\nx = 'caf\xC3\xA9'\n");
  auto loaded = load_source(f, kDefaultMaxFileSize);
  REQUIRE(std::holds_alternative<SourceFile>(loaded));
  const SourceFile& s = std::get<SourceFile>(loaded);
  CHECK(s.path() == "pkg/model.py");
  CHECK(s.absolute_path() == f.absolute_path);
  CHECK(s.language() == Language::Python);
  CHECK(s.text() == "import torch\r\nx = 'caf\xC3\xA9'\n");
  CHECK(s.line_text(1) == "import torch");

  DiscoveredFile empty = write_discovered(dir, "empty.py", "");
  auto e = load_source(empty, kDefaultMaxFileSize);
  REQUIRE(std::holds_alternative<SourceFile>(e));
  CHECK(std::get<SourceFile>(e).text().empty());
}

TEST_CASE("load_source skips a file larger than --max-file-size", "[core][scan]") {
  TempDir dir;
  DiscoveredFile f = write_discovered(dir, "big.py", std::string(100, 'x'));
  std::string reason = skip_reason(load_source(f, 99));
  CHECK_THAT(reason, Catch::Contains("--max-file-size"));
  CHECK_THAT(reason, Catch::Contains("100"));
  // A file exactly at the limit is read.
  CHECK(std::holds_alternative<SourceFile>(load_source(f, 100)));
  CHECK(std::holds_alternative<SourceFile>(load_source(f, kDefaultMaxFileSize)));
}

TEST_CASE("load_source skips binary content (NUL bytes)", "[core][scan]") {
  TempDir dir;
  DiscoveredFile py = write_discovered(dir, "weights.py", std::string("x = 1\n\0\x01\x02", 9));
  CHECK_THAT(skip_reason(load_source(py, kDefaultMaxFileSize)), Catch::Contains("binary"));
  DiscoveredFile cu = write_discovered(dir, "blob.cu", std::string("\0", 1));
  CHECK_THAT(skip_reason(load_source(cu, kDefaultMaxFileSize)), Catch::Contains("binary"));
}

TEST_CASE("load_source decodes UTF-16 files with a byte-order mark, whatever their byte order", "[core][scan]") {
  TempDir dir;
  // "im" in UTF-16LE and UTF-16BE, with BOMs: their NUL bytes are half of each character.
  DiscoveredFile le = write_discovered(dir, "le.py", std::string("\xFF\xFEi\0m\0", 6));
  DiscoveredFile be = write_discovered(dir, "be.cpp", std::string("\xFE\xFF\0i\0m", 6));
  DiscoveredFile bom_only = write_discovered(dir, "bom.h", "\xFF\xFE");
  auto text_of = [](const std::variant<SourceFile, std::string>& loaded) {
    REQUIRE(std::holds_alternative<SourceFile>(loaded));
    return std::get<SourceFile>(loaded).text();
  };
  CHECK(text_of(load_source(le, kDefaultMaxFileSize)) == "im");
  CHECK(text_of(load_source(be, kDefaultMaxFileSize)) == "im");
  CHECK(text_of(load_source(bom_only, kDefaultMaxFileSize)).empty());
  // A UTF-16 file holding a NUL character is binary; one cut inside a character is not UTF-16.
  DiscoveredFile nul = write_discovered(dir, "nul.py", std::string("\xFF\xFEi\0\0\0", 6));
  CHECK_THAT(skip_reason(load_source(nul, kDefaultMaxFileSize)), Catch::Contains("binary"));
  DiscoveredFile odd = write_discovered(dir, "odd.py", std::string("\xFF\xFEi\0m", 5));
  CHECK_THAT(skip_reason(load_source(odd, kDefaultMaxFileSize)), Catch::Contains("not valid UTF-16"));
  // A UTF-8 BOM is dropped.
  DiscoveredFile utf8_bom = write_discovered(dir, "utf8.py", "\xEF\xBB\xBFimport torch\n");
  CHECK(text_of(load_source(utf8_bom, kDefaultMaxFileSize)) == "import torch\n");
}

TEST_CASE("load_source requires UTF-8 for Python only, unless another encoding is declared", "[core][scan]") {
  TempDir dir;
  std::string latin1 = "# caf\xE9\nx = 1\n";  // Latin-1, not UTF-8
  DiscoveredFile py = write_discovered(dir, "latin1.py", latin1);
  DiscoveredFile pyi = write_discovered(dir, "latin1.pyi", latin1);
  DiscoveredFile cu = write_discovered(dir, "latin1.cu", latin1);
  DiscoveredFile cc = write_discovered(dir, "latin1.cc", latin1);
  CHECK_THAT(skip_reason(load_source(py, kDefaultMaxFileSize)), Catch::Contains("not valid UTF-8"));
  CHECK_THAT(skip_reason(load_source(py, kDefaultMaxFileSize)), Catch::Contains("no encoding is declared"));
  CHECK_THAT(skip_reason(load_source(pyi, kDefaultMaxFileSize)), Catch::Contains("not valid UTF-8"));
  auto c = load_source(cu, kDefaultMaxFileSize);
  REQUIRE(std::holds_alternative<SourceFile>(c));
  CHECK(std::get<SourceFile>(c).text() == latin1);
  CHECK(std::get<SourceFile>(c).language() == Language::Cuda);
  CHECK(std::holds_alternative<SourceFile>(load_source(cc, kDefaultMaxFileSize)));

  DiscoveredFile declared = write_discovered(dir, "declared.py", "# -*- coding: latin-1 -*-\n" + latin1);
  auto d = load_source(declared, kDefaultMaxFileSize);
  REQUIRE(std::holds_alternative<SourceFile>(d));
  CHECK(std::get<SourceFile>(d).text() == "# -*- coding: latin-1 -*-\n# caf\xC3\xA9\nx = 1\n");
}

TEST_CASE("load_source reports a file it cannot read", "[core][scan]") {
  TempDir dir;
  DiscoveredFile missing{dir.path() / "gone.py", "gone.py", Language::Python};
  CHECK_THAT(skip_reason(load_source(missing, kDefaultMaxFileSize)), Catch::Contains("unreadable"));
}

TEST_CASE("analyze_files turns an analyzer exception into TPU903 and keeps the other files",
          "[core][scan]") {
  TempDir dir;
  std::vector<DiscoveredFile> files;
  // Not in path order: results must follow the input order, not the path order.
  for (std::string name : {"z_last.py", "a/first.py", "boom.py", "m/two.cu", "b.py", "bin.py", "c.cc"}) {
    std::string body = name == "bin.py" ? std::string("\0", 1) : "# " + name + "\nx\n";
    files.push_back(write_discovered(dir, name, body));
  }
  for (int i = 0; i < 40; ++i) files.push_back(write_discovered(dir, "many/f" + std::to_string(i) + ".py", "# many\n"));

  for (unsigned jobs : {1u, 4u}) {
    INFO("jobs " << jobs);
    std::atomic<int> made{0};
    AnalyzerFactory factory = [&] {
      made++;
      return std::make_unique<FakeAnalyzer>(std::set<std::string>{"boom.py"});
    };
    std::vector<FileResult> results = analyze_files(files, factory, jobs, kDefaultMaxFileSize);
    REQUIRE(results.size() == files.size());
    CHECK(made >= 1);
    CHECK(made <= int(jobs));  // one analyzer per worker, reused across files
    for (size_t i = 0; i < files.size(); ++i) {
      INFO("file " << files[i].path);
      const FileResult& r = results[i];
      CHECK(r.path == files[i].path);
      CHECK(r.language == files[i].language);
      if (r.path == "boom.py") {
        CHECK(r.analyzed);
        REQUIRE(r.findings.size() == 1);
        CHECK(r.findings[0].check_id == "TPU903");
        CHECK(r.findings[0].category == Category::AnalyzerNote);
        CHECK(r.findings[0].path == "boom.py");
        CHECK_THAT(r.findings[0].message.str(), Catch::Contains("fake frontend exploded on boom.py"));
      } else if (r.path == "bin.py") {
        CHECK_FALSE(r.analyzed);
        CHECK_THAT(r.skip_reason, Catch::Contains("binary"));
        REQUIRE(r.findings.size() == 1);
        CHECK(r.findings[0].check_id == "TPU902");
      } else {
        CHECK(r.analyzed);
        CHECK(r.skip_reason.empty());
        REQUIRE(r.findings.size() == (r.path == "m/two.cu" ? 2u : 1u));
        CHECK(r.findings[0].check_id == "TPU201");
        CHECK(r.findings[0].path == r.path);
        CHECK(r.findings[0].message == "# " + (r.path.starts_with("many/") ? std::string("many") : r.path));
      }
    }
  }
}

// Emits a file's findings last line first, as checks that run one after another do.
class BackwardsAnalyzer : public FileAnalyzer {
 public:
  void analyze(const SourceFile& file, FileResult& result) override {
    for (uint32_t line = 5; line >= 1; --line) {
      Finding f = note(line % 2 ? "TPU401" : "TPU201", file.path(), {line, 1});
      result.findings.push_back(f);
      f.check_id = "TPU101";  // the same line, a smaller check ID
      result.findings.push_back(f);
    }
  }
};

TEST_CASE("analyze_files gives each file's findings in report order, from worker processes too",
          "[core][scan]") {
  TempDir dir;
  std::vector<DiscoveredFile> files;
  for (std::string name : {"b.py", "a.py", "c/d.py"}) files.push_back(write_discovered(dir, name, "x\n"));
  AnalyzerFactory factory = [] { return std::make_unique<BackwardsAnalyzer>(); };
  for (bool isolate : {false, true}) {
    for (unsigned jobs : {1u, 2u}) {
      INFO("isolate " << isolate << ", jobs " << jobs);
      AnalysisOptions options;
      options.jobs = jobs;
      options.isolate = isolate;
      std::vector<FileResult> results = analyze_files(files, factory, options);
      REQUIRE(results.size() == files.size());
      for (const FileResult& r : results) {
        INFO(r.path);
        REQUIRE(r.findings.size() == 10);
        CHECK(std::is_sorted(r.findings.begin(), r.findings.end(), finding_less));
        CHECK(r.findings.front().start.line == 1);
        CHECK(r.findings.front().check_id == "TPU101");
      }
    }
  }
}

TEST_CASE("analyze_files survives an analyzer that throws on every file", "[core][scan]") {
  TempDir dir;
  std::vector<DiscoveredFile> files{write_discovered(dir, "a.py", "a\n"), write_discovered(dir, "b.py", "b\n")};
  AnalyzerFactory factory = [] { return std::make_unique<FakeAnalyzer>(std::set<std::string>{"a.py", "b.py"}); };
  auto results = analyze_files(files, factory, 2, kDefaultMaxFileSize);
  REQUIRE(results.size() == 2);
  for (const FileResult& r : results) {
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].check_id == notes::kAnalysisFailed.id);
  }
  CHECK(analyze_files({}, factory, 4, kDefaultMaxFileSize).empty());
}

TEST_CASE("build_report filters, sorts and collects skipped files", "[core][scan]") {
  Discovery discovery;
  discovery.skipped = {{"c/link.py", "symlink leaves the scanned root"}, {"a/notes.txt", "not a Python file"}};

  std::vector<FileResult> results(4);
  results[0].path = "z.py";
  results[0].analyzed = true;
  results[0].findings = {note("TPU401", "z.py", {9, 1}), note("TPU201", "z.py", {2, 5}), note("TPU401", "z.py", {2, 5})};
  results[1].path = "b/big.py";
  results[1].analyzed = false;
  results[1].skip_reason = "larger than --max-file-size";
  results[1].findings = {note("TPU902", "b/big.py", {1, 1})};
  results[2].path = "a/k.cu";
  results[2].analyzed = true;
  results[2].findings = {note("TPU101", "a/k.cu", {30, 1}), note("TPU101", "a/k.cu", {3, 1})};
  results[2].findings[0].hours = {2, 8};
  results[2].findings[1].hours = {0.5, 4};
  results[0].findings[1].hours = {1, 3};  // z.py's TPU201, the one it keeps
  results[0].findings[0].hours = {100, 100};
  results[3].path = "m.py";
  results[3].analyzed = true;

  auto keep = [](std::string_view id) { return !id.starts_with("TPU4"); };
  ScanReport report = build_report(discovery, results, keep, PathWeights{});

  std::vector<std::string> paths;
  for (const FileSummary& f : report.files) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"a/k.cu", "a/notes.txt", "b/big.py", "c/link.py", "m.py", "z.py"});
  CHECK(report.analyzed == 3);

  REQUIRE(report.skipped.size() == 3);
  CHECK(report.skipped[0].path == "a/notes.txt");
  CHECK(report.skipped[0].reason == "not a Python file");
  CHECK(report.skipped[1].path == "b/big.py");
  CHECK(report.skipped[1].reason == "larger than --max-file-size");
  CHECK(report.skipped[2].path == "c/link.py");
  CHECK(report.skipped[2].reason == "symlink leaves the scanned root");

  // TPU4xx findings are gone; discovery's skips became TPU902 notes; all sorted.
  for (const Finding& f : report.findings) CHECK_FALSE(f.check_id.starts_with("TPU4"));
  CHECK(std::is_sorted(report.findings.begin(), report.findings.end(), finding_less));
  std::vector<std::pair<std::string, uint32_t>> got;
  for (const Finding& f : report.findings) got.emplace_back(f.path.str() + " " + f.check_id, f.start.line);
  CHECK(got == std::vector<std::pair<std::string, uint32_t>>{{"a/k.cu TPU101", 3},
                                                              {"a/k.cu TPU101", 30},
                                                              {"a/notes.txt TPU902", 1},
                                                              {"b/big.py TPU902", 1},
                                                              {"c/link.py TPU902", 1},
                                                              {"z.py TPU201", 2}});
  // Each file counts its kept findings and adds up their hours.
  const FileSummary& z = report.files.back();
  CHECK(z.findings == 1);
  CHECK((z.hours.low == 1 && z.hours.high == 3));  // not the TPU401 left out
  const FileSummary& k = report.files.front();
  CHECK(k.findings == 2);
  CHECK((k.hours.low == 2.5 && k.hours.high == 12));
  CHECK(report.files[3].findings == 1);  // c/link.py: its skip note
  CHECK(report.files[4].findings == 0);  // m.py: none
  CHECK(report.files[4].hours.high == 0);

  // The score is computed from exactly the kept findings.
  ScoreSummary expected = compute_score(report.findings);
  CHECK(report.score.score == expected.score);
  CHECK(report.score.verdict == expected.verdict);
  CHECK(report.score.score < 100);
}

TEST_CASE("build_report's keep filter decides which findings count in the score", "[core][scan]") {
  std::vector<FileResult> results(1);
  results[0].path = "pkg/k.cu";
  results[0].analyzed = true;
  results[0].language = Language::Cuda;
  results[0].code_lines = 200;
  results[0].findings = {note("TPU101", "pkg/k.cu", {1, 1})};
  results[0].findings[0].effort = EffortClass::High;
  results[0].findings[0].hours = {40, 80};
  results[0].findings[0].code_lines = 150;  // a kernel with no TPU path, in a file that counts whole
  ScanReport all = build_report(Discovery{}, results, [](std::string_view) { return true; }, PathWeights{});
  ScanReport none = build_report(Discovery{}, results, [](std::string_view) { return false; }, PathWeights{});
  CHECK(all.findings.size() == 1);
  CHECK(all.score.verdict == Verdict::StayOnGpu);
  CHECK(none.findings.empty());
  CHECK(none.score.score == 100);
  CHECK(none.score.verdict == Verdict::TpuReady);
  CHECK(none.analyzed == 1);
}

TEST_CASE("build_report on results already in path order, asking keep once per run of one check's findings",
          "[core][scan]") {
  std::vector<FileResult> results(2);
  results[0].path = "a.py";
  results[0].analyzed = true;
  results[0].findings = {note("TPU201", "a.py", {1, 1}), note("TPU201", "a.py", {2, 1}), note("TPU401", "a.py", {3, 1}),
                         note("TPU401", "a.py", {4, 1}), note("TPU201", "a.py", {5, 1})};
  results[1].path = "b.py";
  results[1].analyzed = true;
  results[1].findings = {note("TPU201", "b.py", {7, 1}), note("TPU401", "b.py", {1, 1})};
  std::vector<std::string> asked;
  auto keep = [&](std::string_view id) {
    asked.emplace_back(id);
    return id != "TPU401";
  };
  ScanReport report = build_report(Discovery{}, results, keep, PathWeights{});
  std::vector<std::pair<std::string, uint32_t>> got;
  for (const Finding& f : report.findings) got.emplace_back(f.path.str() + " " + f.check_id, f.start.line);
  CHECK(got == std::vector<std::pair<std::string, uint32_t>>{
                   {"a.py TPU201", 1}, {"a.py TPU201", 2}, {"a.py TPU201", 5}, {"b.py TPU201", 7}});
  // The runs: a.py's TPU201 x2, TPU401 x2, TPU201; b.py's TPU201, TPU401.
  CHECK(asked == std::vector<std::string>{"TPU201", "TPU401", "TPU201", "TPU401"});
  REQUIRE(report.files.size() == 2);
  CHECK(report.files[0].findings == 3);
  CHECK(report.files[1].findings == 1);
}

TEST_CASE("build_report puts one list of every file's findings in order in place, whatever order the files came in",
          "[core][scan]") {
  // A scan's findings come in one list, each file's together, the files in the order workers
  // finished them. The report must hold the kept ones by path, then finding_less, as if each
  // file had been filtered and sorted on its own.
  std::mt19937 rng(11);
  const std::vector<std::string> ids = {"TPU201", "TPU401", "TPU402", "TPU903"};
  for (int round = 0; round < 200; ++round) {
    INFO("round " << round);
    const size_t files = std::uniform_int_distribution<size_t>(0, 12)(rng);
    std::vector<FileResult> results(files);
    for (size_t i = 0; i < files; ++i) {
      results[i].path = "f" + std::to_string((i * 7) % 13) + ".py";  // not in path order
      results[i].analyzed = true;
      const size_t n = std::uniform_int_distribution<size_t>(0, 9)(rng);
      for (size_t k = 0; k < n; ++k) {
        Position at{std::uniform_int_distribution<uint32_t>(1, 5)(rng), 1};
        results[i].findings.push_back(note(ids[rng() % ids.size()], results[i].path, at,
                                           "m" + std::to_string(i) + "." + std::to_string(k)));
      }
      if (rng() % 2) std::sort(results[i].findings.begin(), results[i].findings.end(), finding_less);
    }
    Discovery discovery;
    if (rng() % 3 == 0) discovery.skipped.push_back({"e.py", "too large"});
    auto keep = [](std::string_view id) { return id != "TPU402"; };

    // What the report must hold, computed file by file.
    std::vector<std::pair<std::string, std::string>> expected;  // (path, message)
    {
      std::vector<FileResult> each = results;
      for (const SkippedFile& s : discovery.skipped) {
        FileResult r;
        r.path = s.path;
        r.findings.push_back(note("TPU902", s.path, {1, 1}, "file skipped: " + s.reason));
        each.push_back(r);
      }
      std::stable_sort(each.begin(), each.end(), [](auto& a, auto& b) { return a.path < b.path; });
      for (FileResult& r : each) {
        std::erase_if(r.findings, [&](const Finding& f) { return !keep(f.check_id); });
        std::sort(r.findings.begin(), r.findings.end(), finding_less);
        for (const Finding& f : r.findings) expected.emplace_back(f.path.str(), f.message);
      }
    }

    // The same results, their findings in one list with the files in a shuffled order.
    AnalyzedFiles analyzed;
    std::vector<size_t> arrival(files);
    std::iota(arrival.begin(), arrival.end(), size_t(0));
    std::shuffle(arrival.begin(), arrival.end(), rng);
    analyzed.ranges.resize(files);
    for (size_t i : arrival) {
      analyzed.ranges[i] = {analyzed.findings.size(), results[i].findings.size()};
      for (const Finding& f : results[i].findings) analyzed.findings.push_back(f);
    }
    for (FileResult r : results) {
      r.findings.clear();
      analyzed.results.push_back(std::move(r));
    }
    ScanReport report = build_report(discovery, std::move(analyzed), keep, PathWeights{});
    std::vector<std::pair<std::string, std::string>> got;
    for (const Finding& f : report.findings) got.emplace_back(f.path.str(), f.message);
    CHECK(got == expected);
    ScanReport from_each = build_report(discovery, results, keep, PathWeights{});
    REQUIRE(from_each.findings.size() == report.findings.size());
    for (size_t i = 0; i < report.findings.size(); ++i) CHECK(from_each.findings[i].message == report.findings[i].message);
    REQUIRE(report.files.size() == files + discovery.skipped.size());
    size_t counted = 0;
    for (size_t i = 0; i < report.files.size(); ++i) {
      if (i > 0) CHECK(report.files[i - 1].path <= report.files[i].path);
      counted += report.files[i].findings;
    }
    CHECK(counted == expected.size());
  }
}

TEST_CASE("finding_less orders by path, position, then check ID", "[core][scan]") {
  CHECK(finding_less(note("TPU401", "a.py", {9, 9}), note("TPU101", "b.py", {1, 1})));
  CHECK(finding_less(note("TPU401", "a.py", {1, 9}), note("TPU101", "a.py", {2, 1})));
  CHECK(finding_less(note("TPU401", "a.py", {2, 1}), note("TPU101", "a.py", {2, 3})));
  CHECK(finding_less(note("TPU101", "a.py", {2, 3}), note("TPU401", "a.py", {2, 3})));
  CHECK_FALSE(finding_less(note("TPU101", "a.py", {2, 3}), note("TPU101", "a.py", {2, 3})));
}

namespace {

// Records the files it is handed together; throws on a batch holding a file named "throws", and
// aborts the process on one holding "aborts" (analyzed alone, those files succeed or fail alone).
class BatchRecorder : public FileAnalyzer {
 public:
  explicit BatchRecorder(std::vector<std::vector<std::string>>* batches) : batches_(batches) {}
  void analyze(const SourceFile& file, FileResult& result) override {
    if (file.path().find("aborts_alone") != std::string::npos) std::abort();
    result.findings.push_back(note("TPU201", file.path(), {1, 1}, "alone"));
  }
  void analyze_together(std::span<const SourceFile> files, std::span<FileResult> results) override {
    std::vector<std::string> paths;
    for (const SourceFile& f : files) {
      paths.push_back(f.path());
      if (f.path().find("throws") != std::string::npos) throw std::runtime_error("batch failed");
      if (f.path().find("aborts") != std::string::npos) std::abort();
    }
    if (batches_) batches_->push_back(paths);
    for (size_t i = 0; i < files.size(); ++i)
      results[i].findings.push_back(note("TPU201", files[i].path(), {1, 1}, "together"));
  }

 private:
  std::vector<std::vector<std::string>>* batches_;
};

std::string key_by_directory(const DiscoveredFile& f) {
  return f.path.find('/') == std::string::npos ? std::string() : fs::path(f.path).parent_path().string();
}

}  // namespace

TEST_CASE("analyze_files hands the files of one batch key to analyze_together, at most 16 at a time", "[core][scan]") {
  TempDir dir;
  std::vector<DiscoveredFile> files;
  for (int i = 0; i < 20; ++i) files.push_back(write_discovered(dir, fmt::format("inc/h{:02}.py", i), "x\n"));
  files.push_back(write_discovered(dir, "other/one.py", "x\n"));
  files.push_back(write_discovered(dir, "top.py", "x\n"));
  std::vector<std::vector<std::string>> batches;
  AnalysisOptions options;
  options.jobs = 1;
  options.batch_key = key_by_directory;
  std::vector<FileResult> results =
      analyze_files(files, [&] { return std::make_unique<BatchRecorder>(&batches); }, options);
  REQUIRE(results.size() == files.size());
  // inc/ in path order: 16, then 4; a key with one file, and a file with no key, alone.
  REQUIRE(batches.size() == 2);
  CHECK(batches[0].size() == 16);
  CHECK(batches[0].front() == "inc/h00.py");
  CHECK(batches[0].back() == "inc/h15.py");
  CHECK(batches[1] == std::vector<std::string>{"inc/h16.py", "inc/h17.py", "inc/h18.py", "inc/h19.py"});
  for (size_t i = 0; i < files.size(); ++i) {
    CAPTURE(files[i].path);
    CHECK(results[i].path == files[i].path);
    REQUIRE(results[i].findings.size() == 1);
    CHECK(results[i].findings[0].path == files[i].path);
    CHECK(results[i].findings[0].message == (files[i].path.starts_with("inc/") ? "together" : "alone"));
    CHECK(results[i].analysis_time.count() > 0);
  }
}

TEST_CASE("a batch that throws, or whose worker dies, is analyzed again one file at a time", "[core][scan]") {
  TempDir dir;
  std::vector<DiscoveredFile> files;
  for (std::string name : {"a/one.py", "a/throws.py", "a/two.py", "b/one.py", "b/aborts_alone.py", "b/two.py"})
    files.push_back(write_discovered(dir, name, "x\n"));
  for (bool isolate : {false, true}) {
    for (unsigned jobs : {1u, 2u}) {
      INFO("isolate " << isolate << ", jobs " << jobs);
      AnalysisOptions options;
      options.jobs = jobs;
      options.isolate = isolate;
      options.batch_key = key_by_directory;
      // In-process, an abort would end the test: the batch that throws only.
      std::span<const DiscoveredFile> scanned = isolate ? std::span(files) : std::span(files).first(3);
      std::vector<FileResult> results =
          analyze_files(scanned, [] { return std::make_unique<BatchRecorder>(nullptr); }, options);
      REQUIRE(results.size() == scanned.size());
      for (const FileResult& r : results) {
        CAPTURE(r.path);
        REQUIRE(r.findings.size() == 1);
        if (isolate && r.path == "b/aborts_alone.py") {
          CHECK(r.findings[0].check_id == notes::kAnalysisFailed.id);
          CHECK_THAT(r.findings[0].message.str(), Catch::Contains("signal 6"));
        } else {
          CHECK(r.findings[0].check_id == "TPU201");
          CHECK(r.findings[0].message == "alone");
        }
      }
    }
  }
}
