// The fixture runner: every file under fixtures/checks/ is analyzed with every check, and its
// findings must match its inline expectations exactly (see fixture_expectations.h). A finding
// nobody expected fails, a missing one fails, and a fixture without `expect:` must produce
// nothing at all. Beside the intent, each fixture's full findings (position, check, severity,
// context, effort, hours, message, hint) are pinned in fixtures/snapshots/<fixture>.snap, as Ruff
// pins its rules' output: a change to any of them shows in review.
#include <algorithm>
#include <cstdlib>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "app/engine.h"
#include "checks/registry.h"
#include "core/discovery.h"
#include "core/notebook.h"
#include "fixture_expectations.h"

namespace fs = std::filesystem;
using namespace tpulint;
using tpulint::testing::LineExpectations;
using tpulint::testing::parse_expectations;

namespace {

const fs::path kFixtures = fs::path(TPULINT_SOURCE_DIR) / "fixtures" / "checks";

// The fixture files: those at the top of fixtures/checks/, and every file of a fixture
// directory (`TPU118_name/`: a small tree for checks that read several files, such as a
// CMakeLists.txt and the sources it lists), analyzed as found at their path under fixtures/checks/.
std::vector<fs::path> fixture_files() {
  std::vector<fs::path> files;
  auto analyzable = [](const fs::directory_entry& e) {
    return e.is_regular_file() && language_for_path(e.path()) != Language::None;
  };
  for (const auto& e : fs::directory_iterator(kFixtures)) {
    if (analyzable(e)) files.push_back(e.path());
    if (e.is_directory() && e.path().filename().string().starts_with("TPU"))
      for (const auto& inner : fs::recursive_directory_iterator(e.path()))
        if (analyzable(inner)) files.push_back(inner.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A fixture's name: its path under fixtures/checks/, which starts with its check's ID.
std::string fixture_name(const fs::path& p) { return p.lexically_relative(kFixtures).generic_string(); }

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string_view comment_prefix(const fs::path& p) {
  Language l = language_for_path(p);
  return l == Language::Python || l == Language::Cmake ? "#" : "//";
}

// A fixture's expectations. A notebook's are comments in its code cells, each describing the
// next code line: keyed, as its findings are, by the line of the notebook's JSON text where that
// code line is (several code lines of a cell whose source is one string share one).
tpulint::testing::FixtureExpectations expectations_of(const fs::path& p) {
  std::string text = read(p);
  if (!is_notebook_path(p.string())) return parse_expectations(text, comment_prefix(p));
  auto notebook = read_notebook(p.string(), std::move(text));
  if (auto* why = std::get_if<std::string>(&notebook)) return {{}, {"not a notebook: " + *why}};
  const Notebook& nb = std::get<Notebook>(notebook);
  auto in_code = parse_expectations(nb.code, "#");
  tpulint::testing::FixtureExpectations out{{}, in_code.errors};
  for (auto& [line, e] : in_code.by_line) {
    Finding at;
    at.category = Category::CudaApi;  // not a note about the whole file, which stays at 1:1
    at.start = at.end = {line, 1};
    nb.map.place(std::span(&at, 1));
    LineExpectations& into = out.by_line[at.start.line];
    into.expect.insert(into.expect.end(), e.expect.begin(), e.expect.end());
    into.effort.insert(into.effort.end(), e.effort.begin(), e.effort.end());
    into.ok.insert(into.ok.end(), e.ok.begin(), e.ok.end());
    into.todo.insert(into.todo.end(), e.todo.begin(), e.todo.end());
  }
  return out;
}

}  // namespace

TEST_CASE("every check fixture produces exactly the findings it expects", "[fixtures]") {
  app::Engine engine({});
  auto files = fixture_files();
  REQUIRE(files.size() >= 6);
  for (const fs::path& path : files) {
    std::string name = fixture_name(path);
    auto expectations = expectations_of(path);
    for (const std::string& e : expectations.errors) FAIL_CHECK(name << ": malformed expectation: " << e);

    FileResult result = engine.analyze_file(path, name);
    REQUIRE(result.analyzed);

    // Actual findings, as (line, id) -> count.
    std::map<std::pair<unsigned, std::string>, int> actual;
    for (const Finding& f : result.findings) ++actual[{f.start.line, f.check_id}];

    if (!expectations.has_expect()) {
      for (const Finding& f : result.findings)
        FAIL_CHECK(fmt::format("{}:{}: a fixture without expectations reported {} ({})", name, f.start.line,
                               f.check_id, f.message));
      continue;
    }
    std::map<std::pair<unsigned, std::string>, int> expected;
    for (const auto& [line, e] : expectations.by_line) {
      for (const std::string& id : e.expect) ++expected[{line, id}];
      for (const std::string& id : e.ok)
        if (actual.count({line, id}))
          FAIL_CHECK(fmt::format("{}:{}: {} fired on an `ok:` line", name, line, id));
      for (const std::string& id : e.todo)
        if (actual.count({line, id}))
          FAIL_CHECK(fmt::format("{}:{}: {} now fires on a `todo:` line: make it an `expect:`", name, line, id));
    }
    for (const auto& [line, e] : expectations.by_line)
      for (const auto& [id, effort] : e.effort) {
        bool found = std::any_of(result.findings.begin(), result.findings.end(), [&](const Finding& f) {
          return f.start.line == line && f.check_id == id && to_string(f.effort) == effort;
        });
        if (!found) FAIL_CHECK(fmt::format("{}:{}: expected {} with effort {}", name, line, id, effort));
      }
    for (const auto& [key, n] : expected) {
      int got = actual.count(key) ? actual[key] : 0;
      if (got != n)
        FAIL_CHECK(fmt::format("{}:{}: expected {} x{}, got {}", name, key.first, key.second, n, got));
    }
    for (const Finding& f : result.findings) {
      if (!expected.count({f.start.line, f.check_id}))
        FAIL_CHECK(fmt::format("{}:{}:{}: unexpected {}: {}", name, f.start.line, f.start.column, f.check_id,
                               f.message));
    }
  }
}

namespace {

const fs::path kSnapshots = fs::path(TPULINT_SOURCE_DIR) / "fixtures" / "snapshots";

// Every finding of a fixture, as a reviewer reads it: where, what, how severe, in which context,
// at what price, and its message and hint.
std::string snapshot_of(const std::string& name, const FileResult& result) {
  std::string out = fmt::format(
      "# The findings of fixtures/checks/{} (tests/fixtures_test.cpp). Review a change, then\n"
      "# rewrite with: TPULINT_UPDATE_SNAPSHOTS=1 build/tests/tpulint_tests \"[snapshots]\"\n",
      name);
  for (const Finding& f : result.findings) {
    out += fmt::format("{}:{} {} {} {}{} effort {} {:g}-{:g} h\n", f.start.line, f.start.column, f.check_id,
                       to_string(f.severity), to_string(f.context), f.discounted ? " discounted" : "",
                       to_string(f.effort), f.hours.low, f.hours.high);
    out += fmt::format("  message: {}\n", f.message.view());
    if (!f.hint.empty()) out += fmt::format("  hint: {}\n", f.hint.view());
  }
  return out;
}

}  // namespace

TEST_CASE("every check fixture's findings match its snapshot", "[fixtures][snapshots]") {
  app::Engine engine({});
  const char* update = std::getenv("TPULINT_UPDATE_SNAPSHOTS");
  const bool rewrite = update && std::string(update) == "1";
  std::set<fs::path> expected_files;
  for (const fs::path& path : fixture_files()) {
    const std::string name = fixture_name(path);
    FileResult result = engine.analyze_file(path, name);
    REQUIRE(result.analyzed);
    const fs::path snapshot = kSnapshots / (name + ".snap");
    expected_files.insert(snapshot);
    const std::string now = snapshot_of(name, result);
    if (rewrite) {
      fs::create_directories(snapshot.parent_path());
      std::ofstream(snapshot, std::ios::binary) << now;
      continue;
    }
    INFO(snapshot.string() << " differs or is missing: review the change, then rewrite it with TPULINT_UPDATE_SNAPSHOTS=1");
    CHECK(fs::exists(snapshot));
    CHECK(now == read(snapshot));
  }
  // A snapshot whose fixture is gone is stale.
  for (const auto& e : fs::recursive_directory_iterator(kSnapshots)) {
    if (!e.is_regular_file()) continue;
    if (rewrite && !expected_files.contains(e.path())) {
      fs::remove(e.path());
      continue;
    }
    INFO(e.path().string() << " has no fixture");
    CHECK(expected_files.contains(e.path()));
  }
}

TEST_CASE("every check has a fixture with an expect and an ok case", "[fixtures][registry]") {
  auto files = fixture_files();
  for (const CheckInfo* check : checks::registry().all()) {
    // TPU902 and TPU903 are about files that cannot be analyzed, TPU906 about a parse past its time
    // budget (a fixture's is within it): the e2e, scan and frontend tests cover them.
    if (check->id == "TPU902" || check->id == "TPU903" || check->id == "TPU906") continue;
    bool has_expect = false, has_ok = false;
    for (const fs::path& path : files) {
      if (!fixture_name(path).starts_with(check->id)) continue;
      auto e = expectations_of(path);
      has_expect |= e.has("expect", check->id);
      has_ok |= e.has("ok", check->id);
    }
    INFO(check->id);
    CHECK(has_expect);
    CHECK(has_ok);
  }
}

TEST_CASE("the expectation parser reads expect, ok and todo lists", "[fixtures]") {
  auto e = parse_expectations("x = 1\n# expect: TPU201, TPU401\n# ok: TPU501\ny = 2\n# todo: TPU202\nz = 3\n", "#");
  REQUIRE(e.errors.empty());
  REQUIRE(e.by_line.count(4));
  CHECK(e.by_line[4].expect == std::vector<std::string>{"TPU201", "TPU401"});
  CHECK(e.by_line[4].ok == std::vector<std::string>{"TPU501"});
  CHECK(e.by_line[6].todo == std::vector<std::string>{"TPU202"});
  CHECK(e.has_expect());

  auto bad = parse_expectations("# expect: TPU20\nx = 1\n# ok:\n", "#");
  CHECK(bad.errors.size() == 3);  // malformed ID, empty list, dangling at the end of the file

  auto cxx = parse_expectations("  // expect: TPU101\n__global__ void k() {}\n", "//");
  CHECK(cxx.by_line[2].expect == std::vector<std::string>{"TPU101"});

  auto effort = parse_expectations("// expect: TPU101[low], TPU102\nk();\n// ok: TPU101[low]\nx();\n", "//");
  CHECK(effort.by_line[2].expect == std::vector<std::string>{"TPU101", "TPU102"});
  CHECK(effort.by_line[2].effort == std::vector<std::pair<std::string, std::string>>{{"TPU101", "low"}});
  CHECK(effort.errors.size() == 1);  // an effort class only pins an expected finding
}
