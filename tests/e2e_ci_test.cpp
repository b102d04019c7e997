// End-to-end: what tpulint does in CI and pre-commit — configuration, thresholds, baselines,
// diff-aware runs — on small trees made in each test.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "json_schema.h"

using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;
using tpulint::testing::have_programs;

namespace {

json report_of(const tpulint::testing::CommandResult& r) {
  std::string errors = tpulint::testing::schema_errors(tpulint::testing::kReportSchema, r.out);
  INFO(errors << r.err);
  REQUIRE(errors.empty());
  return json::parse(r.out);
}

std::map<std::string, int> ids(const json& report) {
  std::map<std::string, int> n;
  for (const json& f : report.at("findings")) ++n[f.at("id")];
  return n;
}

std::vector<std::string> locations(const json& report) {
  std::vector<std::string> out;
  for (const json& f : report.at("findings"))
    out.push_back(f.at("id").get<std::string>() + " " + f.at("path").get<std::string>() + ":" +
                  std::to_string(f.at("line").get<int>()));
  return out;
}

const char* kModel =
    "import torch\n"
    "\n"
    "def select(scores, boxes):\n"
    "    keep = torch.nonzero(scores > 0.5)\n"
    "    return boxes[keep]\n"
    "\n"
    "def place(model):\n"
    "    return model.cuda()\n";

std::string scan_json(const std::string& path, const std::string& extra = "") {
  return "scan '" + path + "' --format json " + extra;
}

std::string scan_json(const TempDir& dir, const std::string& extra = "") { return scan_json(dir.str(), extra); }

}  // namespace

TEST_CASE("config: .tpulint.toml selects checks, and the command line wins over it", "[e2e][config]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  dir.write(".tpulint.toml", "select = [\"TPU2\"]\n");
  auto r = report_of(run_tpulint(scan_json(dir)));
  CHECK(ids(r) == std::map<std::string, int>{{"TPU201", 1}});
  auto cli = report_of(run_tpulint(scan_json(dir, "--select TPU4")));
  CHECK(ids(cli) == std::map<std::string, int>{{"TPU401", 1}});
  auto isolated = report_of(run_tpulint(scan_json(dir, "--isolated")));
  CHECK(ids(isolated) == std::map<std::string, int>{{"TPU201", 1}, {"TPU401", 1}});
}

TEST_CASE("config: pyproject.toml [tool.tpulint], a pyproject without it is passed over", "[e2e][config]") {
  TempDir dir;
  dir.write("pyproject.toml", "[project]\nname = \"x\"\n\n[tool.tpulint]\nignore = [\"TPU401\"]\n");
  dir.write("sub/pyproject.toml", "[project]\nname = \"sub\"\n");
  dir.write("sub/model.py", kModel);
  auto r = report_of(run_tpulint(scan_json(dir.str("sub"))));
  CHECK(ids(r) == std::map<std::string, int>{{"TPU201", 1}});
  // The project root is the configuration's directory: paths are relative to it.
  REQUIRE(r.at("findings").size() == 1);
  CHECK(r.at("findings")[0].at("path") == "sub/model.py");
}

TEST_CASE("config: an unknown key or a bad value stops with exit 2 and names it", "[e2e][config]") {
  TempDir dir;
  dir.write("m.py", kModel);
  dir.write(".tpulint.toml", "selectt = [\"TPU2\"]\n");
  auto unknown = run_tpulint(scan_json(dir));
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.err.find("unknown key 'selectt'") != std::string::npos);
  CHECK(unknown.err.find(".tpulint.toml") != std::string::npos);
  CHECK(unknown.out.empty());

  dir.write(".tpulint.toml", "fail-under = \"high\"\n");
  auto bad = run_tpulint(scan_json(dir));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("'fail-under' must be a number") != std::string::npos);

  dir.write(".tpulint.toml", "select = [\"TPU2\"\n");
  auto toml = run_tpulint(scan_json(dir));
  CHECK(toml.exit_code == 2);
  CHECK(toml.err.find("invalid TOML") != std::string::npos);

  // Issue 36: a bad entry in the configuration was reported as one of `--select`.
  dir.write(".tpulint.toml", "select = [\"TPU8\"]\n");
  auto selection = run_tpulint(scan_json(dir));
  CHECK(selection.exit_code == 2);
  CHECK(selection.err == "tpulint: error: " + dir.str(".tpulint.toml") +
                             ": 'select': 'TPU8' matches no check (see `tpulint checks`)\n");
  dir.write(".tpulint.toml", "ignore = [\"TPU8\"]\n");
  CHECK(run_tpulint(scan_json(dir)).err.find(".tpulint.toml: 'ignore': 'TPU8' matches no check") != std::string::npos);
  // The command line wins over the configuration, and its errors name the option.
  dir.write(".tpulint.toml", "select = [\"TPU2\"]\n");
  auto option = run_tpulint(scan_json(dir, "--select TPU8"));
  CHECK(option.exit_code == 2);
  CHECK(option.err.find("--select: 'TPU8' matches no check") != std::string::npos);
}

// `fail-under = nan`, `path-weights = {"**" = nan}` were accepted and the gate never fired.
TEST_CASE("config: a number that is not finite or out of its range stops with exit 2 naming the key and the file",
          "[e2e][config]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  const std::pair<std::string, std::string> cases[] = {
      {"fail-under = nan\n", "'fail-under' must be a number from 0 to 100"},
      {"fail-under = -nan\n", "'fail-under' must be a number from 0 to 100"},
      {"fail-under = inf\n", "'fail-under' must be a number from 0 to 100"},
      {"auxiliary-weight = nan\n", "'auxiliary-weight' must be a number from 0 to 1"},
      {"auxiliary-weight = 1.5\n", "'auxiliary-weight' must be a number from 0 to 1"},
      {"max-file-size = nan\n", "'max-file-size' must be a positive number of bytes"},
      {"max-file-size = 1e300\n", "'max-file-size' must be a positive number of bytes"},
      {"max-file-size = -9.3e18\n", "'max-file-size' must be a positive number of bytes"},
      {"max-file-size = 4096.0\n", "'max-file-size' must be a positive number of bytes"},
      {"[path-weights]\n\"**\" = nan\n", "'path-weights.**' must be a number from 0 to 1000"},
      {"[path-weights]\n\"pkg/**\" = inf\n", "'path-weights.pkg/**' must be a number from 0 to 1000"},
  };
  for (const auto& [config, message] : cases) {
    dir.write(".tpulint.toml", config);
    auto r = run_tpulint(scan_json(dir));
    INFO(config << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "tpulint: error: " + dir.str(".tpulint.toml") + ": " + message + "\n");
  }
}

// `--fail-under nan` was accepted and the gate never fired; `--file-timeout` of 0.0001, nan or
// 1e16 became "no limit"; `--shard -1/-1` was shard 4294967295 of 4294967295; `merge
// --fail-under` took any number.
TEST_CASE("a numeric option that is not finite or out of its range stops with exit 2 naming it", "[e2e][config]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  auto report = run_tpulint(scan_json(dir));
  REQUIRE(report.exit_code == 0);
  dir.write("report.json", report.out);
  const std::pair<std::string, std::string> cases[] = {
      {"--fail-under nan", "--fail-under: expects a number from 0 to 100; got 'nan'"},
      {"--fail-under inf", "--fail-under: expects a number from 0 to 100"},
      {"--fail-under 100.5", "--fail-under: expects a number from 0 to 100"},
      {"--auxiliary-weight nan", "--auxiliary-weight: expects a number from 0 to 1"},
      {"--auxiliary-weight -inf", "--auxiliary-weight: expects a number from 0 to 1"},
      {"--file-timeout nan", "--file-timeout: expects 0 or a number from 0.001 to 604800; got 'nan'"},
      {"--file-timeout 0.0001", "--file-timeout: expects 0 or a number from 0.001 to 604800"},
      {"--file-timeout 1e16", "--file-timeout: expects 0 or a number from 0.001 to 604800"},
      {"--file-timeout inf", "--file-timeout: expects 0 or a number from 0.001 to 604800"},
      {"--file-timeout -1", "--file-timeout: expects 0 or a number from 0.001 to 604800"},
      {"--max-file-size nan", "--max-file-size: expects a whole number of bytes"},
      {"--max-file-size 18446744073709551616", "--max-file-size: expects a whole number of bytes"},
      {"--max-file-size 1e3", "--max-file-size: expects a whole number of bytes"},
      {"--max-file-size 0", "--max-file-size: expects a whole number of bytes"},
      {"--jobs nan", "--jobs"},
      {"--jobs 0", "--jobs"},
      {"--jobs 1025", "--jobs"},
      {"--path-weight '**=nan'", "--path-weight expects GLOB=WEIGHT, WEIGHT a number from 0 to 1000; got '**=nan'"},
      {"--path-weight '**=inf'", "--path-weight expects GLOB=WEIGHT, WEIGHT a number from 0 to 1000"},
      {"--path-weight '**=1e9'", "--path-weight expects GLOB=WEIGHT, WEIGHT a number from 0 to 1000"},
      {"--shard -1/-1", "--shard expects K/N, whole numbers with 1 <= K <= N; got '-1/-1'"},
      {"--shard 1/99999999999", "--shard expects K/N"},
      {"--shard 0/2", "--shard expects K/N"},
      {"--shard 3/2", "--shard expects K/N"},
      {"--shard ' 1/2'", "--shard expects K/N"},
  };
  for (const auto& [option, message] : cases) {
    auto r = run_tpulint(scan_json(dir, option));
    INFO(option << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
  }
  for (std::string option : {"--fail-under nan", "--fail-under 1000"}) {
    auto r = run_tpulint("merge '" + dir.str("report.json") + "' " + option);
    INFO(option << "\n" << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--fail-under: expects a number from 0 to 100") != std::string::npos);
  }
  // The ends of each range are values like any other.
  for (std::string option : {"--fail-under 0", "--fail-under 100 --exit-zero", "--auxiliary-weight 1",
                             "--file-timeout 0", "--file-timeout 0.001", "--file-timeout 604800",
                             "--max-file-size 18446744073709551615", "--path-weight '**=1000'", "--shard 1/1"}) {
    auto r = run_tpulint(scan_json(dir, option));
    INFO(option << "\n" << r.err);
    CHECK(r.exit_code == 0);
  }
}

TEST_CASE("config and --target: a target framework leaves out the other frameworks' checks", "[e2e][config]") {
  TempDir dir;
  dir.write("mixed.py",
            "import torch\nimport jax\n"
            "keep = torch.nonzero(m)\n"
            "jax.config.update(\"jax_enable_x64\", True)\n");
  CHECK(ids(report_of(run_tpulint(scan_json(dir)))) == std::map<std::string, int>{{"TPU201", 1}, {"TPU305", 1}});
  CHECK(ids(report_of(run_tpulint(scan_json(dir, "--target torch-xla")))) == std::map<std::string, int>{{"TPU201", 1}});
  dir.write(".tpulint.toml", "target = \"jax\"\n");
  CHECK(ids(report_of(run_tpulint(scan_json(dir)))) == std::map<std::string, int>{{"TPU305", 1}});
  // The command line wins over the configuration.
  CHECK(ids(report_of(run_tpulint(scan_json(dir, "--target tf")))).empty());
  dir.write(".tpulint.toml", "target = \"pytorch\"\n");
  auto bad = run_tpulint(scan_json(dir));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("'target' must be one of torch-xla, jax, tf") != std::string::npos);
  auto bad_cli = run_tpulint(scan_json(dir, "--isolated --target cuda"));
  CHECK(bad_cli.exit_code == 2);
}

TEST_CASE("config: per-path ignores, exclude, path weights and thresholds", "[e2e][config]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  dir.write("tests/test_model.py", kModel);
  dir.write("vendor/lib.py", kModel);
  dir.write(".tpulint.toml",
            "exclude = [\"vendor/\"]\n"
            "fail-under = 99\n"
            "[per-path-ignores]\n\"tests/**\" = [\"TPU401\"]\n"
            "[path-weights]\n\"pkg/**\" = 0.5\n");
  auto r = run_tpulint(scan_json(dir));
  CHECK(r.exit_code == 1);  // the configuration's fail-under
  auto report = report_of(r);
  CHECK(locations(report) ==
        std::vector<std::string>{"TPU201 pkg/model.py:4", "TPU401 pkg/model.py:8", "TPU201 tests/test_model.py:4"});
  // pkg/ weighs 0.5, so the verdict looks at nothing: every finding is in down-weighted code.
  CHECK(report.at("verdict") == "tpu-ready");
  auto override = run_tpulint(scan_json(dir, "--fail-under 0"));
  CHECK(override.exit_code == 0);
}

TEST_CASE("fail-on by severity or effort, and exit-zero", "[e2e][thresholds]") {
  TempDir dir;
  // One warning of medium effort, in a function of unknown role (module-level code runs once).
  dir.write("m.py", "import torch\n\ndef select(x):\n    return torch.nonzero(x)\n");
  CHECK(run_tpulint(scan_json(dir, "--fail-on warning")).exit_code == 1);
  CHECK(run_tpulint(scan_json(dir, "--fail-on error")).exit_code == 0);
  CHECK(run_tpulint(scan_json(dir, "--fail-on medium")).exit_code == 1);
  CHECK(run_tpulint(scan_json(dir, "--fail-on high")).exit_code == 0);
  auto failing = run_tpulint(scan_json(dir, "--fail-on warning"));
  CHECK(failing.err.find("1 finding at or above --fail-on warning") != std::string::npos);
  CHECK(run_tpulint(scan_json(dir, "--fail-on warning --exit-zero")).exit_code == 0);
  CHECK(run_tpulint(scan_json(dir, "--fail-on critical")).exit_code == 2);
}

TEST_CASE("a baseline hides today's findings through moved code, and shows changed lines", "[e2e][baseline]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  std::string base = dir.str("baseline.json");
  auto made = run_tpulint("baseline '" + dir.str("pkg") + "' -o '" + base + "'");
  REQUIRE(made.exit_code == 0);
  CHECK(made.out.find("wrote 2 findings") != std::string::npos);
  std::string with_baseline = "--baseline '" + base + "'";

  auto same = report_of(run_tpulint(scan_json(dir.str("pkg"), with_baseline)));
  CHECK(same.at("findings").empty());
  REQUIRE(same.at("hidden_findings").size() == 1);
  CHECK(same.at("hidden_findings")[0].at("count") == 2);
  CHECK(same.at("score").get<double>() < 100);  // the score is still the whole tree's

  // Lines inserted above, and the functions moved around: nothing new.
  dir.write("pkg/model.py",
            "\"\"\"Boxes.\"\"\"\nimport torch\n\n\ndef place(model):\n    return model.cuda()\n\n\n"
            "def select(scores, boxes):\n    keep = torch.nonzero(scores > 0.5)\n    return boxes[keep]\n");
  auto moved = report_of(run_tpulint(scan_json(dir.str("pkg"), with_baseline)));
  CHECK(moved.at("findings").empty());

  // The flagged line itself changed: it is a new finding; a second use is new too.
  dir.write("pkg/model.py",
            "import torch\n\ndef select(scores, boxes):\n    keep = torch.nonzero(scores > 0.9)\n"
            "    return boxes[keep]\n\ndef place(model):\n    return model.cuda()\n\ndef again(m):\n"
            "    return m.cuda()\n");
  auto changed = report_of(run_tpulint(scan_json(dir.str("pkg"), with_baseline)));
  CHECK(locations(changed) == std::vector<std::string>{"TPU201 model.py:4", "TPU401 model.py:11"});

  dir.write("bad.json", "{\"findings\": 3}");
  auto bad = run_tpulint("scan '" + dir.str("pkg") + "' --baseline '" + dir.str("bad.json") + "'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("not a tpulint baseline") != std::string::npos);
}

// Issue 36: pre-commit names each staged file, and a file the configuration excludes was
// analyzed (the commit refused) because a file named explicitly always was.
TEST_CASE("force-exclude applies the excludes to paths named explicitly", "[e2e][config][exclude]") {
  TempDir dir;
  dir.write("pyproject.toml", "[tool.tpulint]\nexclude = [\"data/\", \"gen_*.py\"]\n");
  dir.write("data/prep.py", kModel);
  dir.write("data/deep/more.py", kModel);
  dir.write("pkg/gen_ops.py", kModel);
  dir.write("pkg/model.py", kModel);
  dir.write("build/out.py", kModel);
  const std::string named = "'" + dir.str("data/prep.py") + "' '" + dir.str("data/deep") + "' '" +
                            dir.str("pkg/gen_ops.py") + "' '" + dir.str("pkg/model.py") + "' '" + dir.str("build/out.py") + "'";
  // Without it, a file named explicitly is analyzed whatever the excludes say.
  auto plain = report_of(run_tpulint("scan " + named + " --format json"));
  CHECK(plain.at("files").size() == 5);

  auto forced = report_of(run_tpulint("scan " + named + " --format json --force-exclude"));
  CHECK(locations(forced) == std::vector<std::string>{"TPU201 pkg/model.py:4", "TPU401 pkg/model.py:8"});
  dir.write("pyproject.toml", "[tool.tpulint]\nexclude = [\"data/\", \"gen_*.py\"]\nforce-exclude = true\n");
  auto configured = report_of(run_tpulint("scan " + named + " --format json"));
  CHECK(locations(configured) == locations(forced));

  // Every path named is excluded: nothing to scan is no error (a commit of excluded files).
  auto nothing = run_tpulint("scan '" + dir.str("data/prep.py") + "' --fail-on warning");
  CHECK(nothing.exit_code == 0);
  CHECK(nothing.err.find("nothing to scan: the excludes cover every path named (1; --force-exclude)") != std::string::npos);
  // A directory scan is as before: the root is never excluded, and excluded files stay out.
  auto whole = report_of(run_tpulint("scan '" + dir.str() + "' --format json"));
  CHECK(locations(whole) == locations(forced));

  dir.write("pyproject.toml", "[tool.tpulint]\nforce-exclude = 1\n");
  auto bad = run_tpulint("scan '" + dir.str() + "'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("'force-exclude' must be true or false") != std::string::npos);
}

// Issue 36: no configuration key named the baseline, so a pre-commit hook (which passes no
// --baseline) refused every commit touching a file with old findings.
TEST_CASE("config: baseline names the baseline file, inside the project", "[e2e][config][baseline]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  dir.write(".tpulint.toml", "baseline = \"tpulint-baseline.json\"\n");
  // `tpulint baseline` makes the file the key names; it does not need it.
  auto made = run_tpulint("baseline '" + dir.str() + "' -o '" + dir.str("tpulint-baseline.json") + "'");
  REQUIRE(made.exit_code == 0);
  dir.write("pkg/model.py", std::string(kModel) + "\ndef again(m):\n    return m.cuda()\n");
  auto r = report_of(run_tpulint(scan_json(dir.str("pkg"), "--fail-on warning")));
  CHECK(locations(r) == std::vector<std::string>{"TPU401 pkg/model.py:11"});
  REQUIRE(r.at("hidden_findings").size() == 1);
  CHECK(r.at("hidden_findings")[0].at("count") == 2);

  // The command line wins.
  dir.write("other.json", "{\"baseline_version\": 2, \"findings\": []}");
  CHECK(report_of(run_tpulint(scan_json(dir, "--baseline '" + dir.str("other.json") + "'"))).at("findings").size() == 3);

  // A baseline the key names that is missing: exit 2, naming the key and the file.
  dir.write(".tpulint.toml", "baseline = \"ci/missing.json\"\n");
  auto missing = run_tpulint(scan_json(dir));
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "tpulint: error: " + dir.str(".tpulint.toml") +
                           ": 'baseline': no such file 'ci/missing.json' (make it with `tpulint baseline . -o "
                           "ci/missing.json`)\n");
  CHECK(missing.out.empty());

  // The configuration comes with the scanned tree: it names no file outside it, and reads none
  // through a symbolic link.
  for (std::string outside : {"../baseline.json", "/etc/passwd", "a/../../b.json", ""}) {
    dir.write(".tpulint.toml", "baseline = \"" + outside + "\"\n");
    auto r2 = run_tpulint(scan_json(dir));
    INFO(outside);
    CHECK(r2.exit_code == 2);
    CHECK(r2.err.find("'baseline' must be the path of a file in the project") != std::string::npos);
  }
  TempDir elsewhere;
  elsewhere.write("b.json", "{\"baseline_version\": 2, \"findings\": []}");
  dir.symlink(elsewhere.str("b.json"), "link.json");
  dir.write(".tpulint.toml", "baseline = \"link.json\"\n");
  auto link = run_tpulint(scan_json(dir));
  CHECK(link.exit_code == 2);
  CHECK(link.err.find("'baseline': cannot read 'link.json'") != std::string::npos);
}

// Baselines written before fingerprints left out comments and messages match nothing now.
TEST_CASE("a baseline of an earlier format is refused with how to make it again", "[e2e][baseline]") {
  TempDir dir;
  dir.write("m.py", kModel);
  dir.write("old.json", "{\"tool\": \"tpulint\", \"baseline_version\": 1, \"findings\": []}");
  auto r = run_tpulint(scan_json(dir, "--baseline '" + dir.str("old.json") + "'"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("is a baseline of another version of tpulint (baseline_version 1, this one reads 2)") !=
        std::string::npos);
  CHECK(r.err.find("make it again with `tpulint baseline PATH -o") != std::string::npos);
}

// Issue 36: a comment appended to a baselined line made its finding new, and a message reworded
// in a release would have made every finding new.
TEST_CASE("a baselined finding stays baselined when a comment is added to its line", "[e2e][baseline]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  std::string base = dir.str("baseline.json");
  REQUIRE(run_tpulint("baseline '" + dir.str("pkg") + "' -o '" + base + "'").exit_code == 0);
  std::string model = kModel;
  model.replace(model.find("model.cuda()"), 12, "model.cuda()  # TODO(port): use the XLA device");
  dir.write("pkg/model.py", model);
  auto r = report_of(run_tpulint(scan_json(dir.str("pkg"), "--baseline '" + base + "'")));
  CHECK(r.at("findings").empty());
}

// Issue 36: fail-under from the configuration gated the score of the two files pre-commit
// passed ("score 49.8").
TEST_CASE("fail-under does not gate the score of files named one by one, nor a --diff run by config",
          "[e2e][thresholds]") {
  TempDir dir;
  std::string git = "git -C '" + dir.str() + "' -c user.name=t -c user.email=t@example.com ";
  dir.write("pkg/model.py", kModel);
  dir.write("pkg/clean.py", "x = 1\n");
  dir.write(".tpulint.toml", "fail-under = 99\n");
  REQUIRE(std::system((git + "init -q && " + git + "add -A && " + git + "commit -q -m base").c_str()) == 0);
  CHECK(run_tpulint(scan_json(dir)).exit_code == 1);  // the repository's score gates

  auto named = run_tpulint("scan '" + dir.str("pkg/model.py") + "' '" + dir.str("pkg/clean.py") + "' --format json");
  CHECK(named.exit_code == 0);
  CHECK(named.err ==
        "tpulint: fail-under 99 not applied: the score of 2 files named on the command line is not the repository's\n");
  // Given on the command line too: a partial score never gates.
  auto option = run_tpulint(scan_json(dir.str("pkg/model.py"), "--fail-under 50"));
  CHECK(option.exit_code == 0);
  CHECK(option.err.find("fail-under 50 not applied: the score of 1 file named") != std::string::npos);

  // --diff: the configuration's threshold is left to full scans; --fail-under gates the tree's score.
  auto diff = run_tpulint(scan_json(dir, "--diff HEAD"));
  CHECK(diff.exit_code == 0);
  CHECK(diff.err.find("fail-under 99 (from .tpulint.toml) not applied with --diff") != std::string::npos);
  CHECK(run_tpulint(scan_json(dir, "--diff HEAD --fail-under 99")).exit_code == 1);
}

TEST_CASE("diff mode reports only findings on lines added or changed since a revision", "[e2e][diff]") {
  TempDir dir;
  std::string git = "git -C '" + dir.str() + "' -c user.name=t -c user.email=t@example.com ";
  dir.write("model.py", kModel);
  REQUIRE(std::system((git + "init -q && " + git + "add model.py && " + git + "commit -q -m base").c_str()) == 0);

  // A new finding in the tracked file, and a new untracked file.
  dir.write("model.py", std::string(kModel) + "\ndef more(x):\n    return x.cuda()\n");
  dir.write("new_file.py", "import torch\ny = torch.unique(z)\n");
  auto r = run_tpulint("scan '" + dir.str() + "' --format json --diff HEAD");
  auto report = report_of(r);
  CHECK(locations(report) == std::vector<std::string>{"TPU401 model.py:11", "TPU201 new_file.py:2"});
  REQUIRE(report.at("hidden_findings").size() == 1);
  CHECK(report.at("hidden_findings")[0].at("count") == 2);  // the two findings already in HEAD

  auto scored = run_tpulint("scan '" + dir.str() + "' --diff HEAD --diff-score --color never");
  REQUIRE(scored.exit_code == 0);
  CHECK(scored.out.find("against HEAD: ") != std::string::npos);

  // Before the first commit (pre-commit's hook runs `--diff HEAD` then too), every file is new.
  TempDir fresh;
  fresh.write("model.py", kModel);
  REQUIRE(std::system(("git -C '" + fresh.str() + "' init -q").c_str()) == 0);
  auto unborn = report_of(run_tpulint("scan '" + fresh.str() + "' --format json --diff HEAD"));
  CHECK(locations(unborn) == std::vector<std::string>{"TPU201 model.py:4", "TPU401 model.py:8"});

  auto bad_ref = run_tpulint("scan '" + dir.str() + "' --diff no-such-ref");
  CHECK(bad_ref.exit_code == 2);
  CHECK(bad_ref.err.find("'no-such-ref' is not a revision") != std::string::npos);

  TempDir plain;
  plain.write("m.py", kModel);
  auto no_git = run_tpulint("scan '" + plain.str() + "' --diff HEAD");
  CHECK(no_git.exit_code == 2);
  // Issue 36: outside a repository it said "'HEAD' is not a revision of the repository".
  CHECK(no_git.err == "tpulint: error: --diff: '" + plain.str() +
                          "' is not in a git repository (--diff compares the files with a revision of theirs)\n");
}

TEST_CASE("diff mode runs none of the commands a scanned repository's git config names", "[e2e][diff]") {
  TempDir dir;
  std::string git = "git -C '" + dir.str("repo") + "' -c user.name=t -c user.email=t@example.com ";
  dir.write("repo/model.py", kModel);
  REQUIRE(std::system((git + "init -q && " + git + "add model.py && " + git + "commit -q -m base").c_str()) == 0);
  // A hostile .git/config: an fsmonitor hook, a textconv and a clean filter for every file.
  const std::string marker = dir.str("ran");
  std::ofstream(dir.str("repo/.git/config"), std::ios::app)
      << "[core]\n\tfsmonitor = touch " << marker << "-fsmonitor\n"
      << "[diff \"evil\"]\n\ttextconv = touch " << marker << "-textconv; cat\n";
  dir.write("repo/.gitattributes", "*.py diff=evil\n");
  dir.write("repo/model.py", std::string(kModel) + "\ndef more(x):\n    return x.cuda()\n");
  auto r = run_tpulint("scan '" + dir.str("repo") + "' --format json --diff HEAD");
  CHECK(locations(report_of(r)) == std::vector<std::string>{"TPU401 model.py:11"});
  CHECK_FALSE(std::filesystem::exists(marker + "-fsmonitor"));
  CHECK_FALSE(std::filesystem::exists(marker + "-textconv"));
}

namespace {

// A git repository whose commits run this project's hooks (.pre-commit-hooks.yaml) through the
// real pre-commit, with the tpulint under test first on PATH. Offline: the hook repository is a
// local one, and pre-commit's cache is the test's own.
class PreCommitProject {
 public:
  // `hook_ids` in .pre-commit-config.yaml; `files` are the first commit's, made without hooks.
  PreCommitProject(const TempDir& dir, const std::vector<std::string>& hook_ids,
                   const std::map<std::string, std::string>& files)
      : dir_(dir) {
    namespace fs = std::filesystem;
    // The hooks as a repository pre-commit clones: this project's .pre-commit-hooks.yaml.
    const std::string hooks = dir.str("hooks");
    fs::create_directories(hooks);
    fs::copy_file(TPULINT_SOURCE_DIR "/.pre-commit-hooks.yaml", hooks + "/.pre-commit-hooks.yaml");
    // The binary under test as `tpulint` (TPULINT_TEST_BINARY may name it otherwise).
    fs::create_directories(dir.str("bin"));
    fs::create_symlink(tpulint::testing::tpulint_binary(), dir.str("bin/tpulint"));
    // Exported: a command may be several, joined by the shell.
    env_ = "export PATH='" + dir.str("bin") + "':\"$PATH\" PRE_COMMIT_HOME='" + dir.str("pre-commit-home") +
           "' XDG_CACHE_HOME='" + dir.str("cache") + "' GIT_CONFIG_NOSYSTEM=1 HOME='" + dir.str() +
           "' GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com;";
    REQUIRE(run("git", "init -q && git add -A && git commit -q -m hooks", hooks).exit_code == 0);

    std::string config = "repos:\n- repo: " + hooks + "\n  rev: HEAD\n  hooks:\n";
    for (const std::string& id : hook_ids) config += "  - id: " + id + "\n";
    write(".pre-commit-config.yaml", config);
    for (const auto& [path, text] : files) write(path, text);
    REQUIRE(git("init -q && git add -A && git commit -q -m init && pre-commit install >/dev/null").exit_code == 0);
  }

  void write(const std::string& path, const std::string& text) const { dir_.write("project/" + path, text); }

  // `git ARGS` (and whatever the shell runs after it) in the project.
  tpulint::testing::CommandResult git(const std::string& args) const { return run("git", args, dir_.str("project")); }
  // Stages every change and commits: pre-commit runs the hooks.
  // What they print, standard output and error together, is in `out`.
  tpulint::testing::CommandResult commit(const std::string& message) const {
    return combined(git("add -A && git commit -q -m '" + message + "'"));
  }
  // Commits what is staged, leaving the rest of the work tree as it is.
  tpulint::testing::CommandResult commit_staged(const std::string& message) const {
    return combined(git("commit -q -m '" + message + "'"));
  }
  tpulint::testing::CommandResult pre_commit(const std::string& args) const {
    return combined(run("pre-commit", args, dir_.str("project")));
  }

 private:
  tpulint::testing::CommandResult run(const std::string& program, const std::string& args, const std::string& cwd) const {
    return tpulint::testing::run_program(program, args, cwd, env_);
  }

  static tpulint::testing::CommandResult combined(tpulint::testing::CommandResult r) {
    r.out += r.err;
    return r;
  }

  const TempDir& dir_;
  std::string env_;
};

const char* kTrainingLoop =
    "import torch\n"
    "\n"
    "\n"
    "def train(model, loader, opt):\n"
    "    for x, y in loader:\n"
    "        loss = model(x).mean()\n"
    "        loss.backward()\n"
    "        opt.step()\n"
    "        print(loss.item())\n";

}  // namespace

// The hooks of .pre-commit-hooks.yaml, run by the real pre-commit in a real commit.
TEST_CASE("the pre-commit hook refuses a commit that adds a TPU blocker", "[e2e][precommit]") {
  if (!have_programs({"git", "pre-commit"})) return;
  TempDir dir;
  PreCommitProject project(dir, {"tpulint"}, {{"README.md", "a project\n"}});

  // A training loop ported to PyTorch/XLA (TPU418 reports one that is not).
  project.write("train.py",
                "import torch\nimport torch_xla\n\n\ndef train(model, loader, opt):\n    for x, mask in loader:\n"
                "        loss = model(x).mean()\n        loss.backward()\n        opt.step()\n");
  CHECK(project.commit("clean training loop").exit_code == 0);

  project.write("train.py",
                "import torch\nimport torch_xla\n\n\ndef train(model, loader, opt):\n    for x, mask in loader:\n"
                "        idx = torch.nonzero(mask)\n        loss = model(x[idx]).mean()\n        loss.backward()\n"
                "        opt.step()\n");
  CHECK(project.commit("adds torch.nonzero in the loop").exit_code != 0);

  project.write("train.py",
                "import torch\nimport torch_xla\n\n\ndef train(model, loader, opt):\n    for x, mask in loader:\n"
                "        idx = torch.nonzero(mask)  # tpulint: ignore[TPU201]\n        loss = model(x[idx]).mean()\n"
                "        loss.backward()\n        opt.step()\n");
  CHECK(project.commit("suppressed").exit_code == 0);

  // A notebook is passed to the hook too (types_or: jupyter): a blocker added in a cell is refused.
  const std::string cell = "{\"cell_type\": \"code\", \"metadata\": {}, \"execution_count\": null, \"outputs\": [], "
                           "\"source\": [\"import torch\\n\", \"x = torch.ones(3)";
  auto notebook = [&](const std::string& tail) {
    return "{\"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}, \"cells\": [" + cell + tail + "\"]}]}\n";
  };
  project.write("explore.ipynb", notebook(""));
  CHECK(project.commit("a notebook").exit_code == 0);
  project.write("explore.ipynb", notebook(".cuda()"));
  auto cuda = project.commit("a notebook placing on CUDA");
  INFO(cuda.out);
  CHECK(cuda.exit_code != 0);
  CHECK(cuda.out.find("TPU401") != std::string::npos);
}

// Issue 36: the hook analyzed a staged file the configuration excludes, refused a commit that
// touched a file for its old findings, gated the staged files' "score" on fail-under, and the
// score hook printed nothing unless pre-commit ran with --verbose.
TEST_CASE("the pre-commit hooks refuse only what a commit adds, and the score hook shows the score",
          "[e2e][precommit]") {
  if (!have_programs({"git", "pre-commit"})) return;
  TempDir dir;
  PreCommitProject project(dir, {"tpulint", "tpulint-score"},
                           {{"pyproject.toml", "[tool.tpulint]\nexclude = [\"data/\"]\nfail-under = 99\n"},
                            {"engine.py", kTrainingLoop}});

  // A staged file under an excluded directory: not analyzed (force-exclude), nothing to refuse.
  project.write("data/prep.py", "def prep(x):\n    return x.cuda()\n");
  auto excluded = project.commit("data preparation");
  INFO(excluded.out);
  CHECK(excluded.exit_code == 0);

  // A file with an old finding (and a score under fail-under), touched: nothing new. A change
  // left unstaged is not part of the commit (pre-commit stashes it while the hooks run).
  project.write("engine.py", std::string(kTrainingLoop) + "# touch\n");
  REQUIRE(project.git("add engine.py").exit_code == 0);
  project.write("engine.py", std::string(kTrainingLoop) + "# touch\n\ndef place(m):\n    return m.cuda()\n");
  auto touched = project.commit_staged("touch");
  INFO(touched.out);
  CHECK(touched.exit_code == 0);
  CHECK(touched.out.find("TPU601") == std::string::npos);
  CHECK(touched.out.find("TPU401") == std::string::npos);

  // The change staged now adds a blocker: refused, naming it.
  auto added = project.commit("adds .cuda()");
  INFO(added.out);
  CHECK(added.exit_code != 0);
  CHECK(added.out.find("13:14  error  TPU401") != std::string::npos);
  CHECK(added.out.find("TPU601") == std::string::npos);  // the old finding (line 9) is not reported

  // The score of the whole repository, shown although the hook passes (fail-under dropped).
  project.write("pyproject.toml", "[tool.tpulint]\nexclude = [\"data/\"]\n");
  REQUIRE(project.git("checkout -q engine.py && git add -A && git commit -q --no-verify -m config").exit_code == 0);
  auto score = project.pre_commit("run --hook-stage manual tpulint-score");
  INFO(score.out);
  CHECK(score.exit_code == 0);
  CHECK(score.out.find(" / 100") != std::string::npos);
  CHECK(score.out.find("engine.py") != std::string::npos);
}

TEST_CASE("the gitlab format is a code quality report", "[e2e][gitlab]") {
  TempDir dir;
  dir.write("m.py", kModel);
  auto r = run_tpulint("scan '" + dir.str() + "' --format gitlab");
  REQUIRE(r.exit_code == 0);
  json issues = json::parse(r.out);
  REQUIRE(issues.is_array());
  REQUIRE(issues.size() == 2);
  for (const json& i : issues) {
    CHECK(i.at("description").is_string());
    CHECK(i.at("check_name").get<std::string>().starts_with("TPU"));
    CHECK(i.at("fingerprint").get<std::string>().size() > 10);
    std::string sev = i.at("severity");
    CHECK((sev == "info" || sev == "minor" || sev == "major" || sev == "critical" || sev == "blocker"));
    CHECK(i.at("location").at("path") == "m.py");
    CHECK(i.at("location").at("lines").at("begin").get<int>() >= 1);
  }
  CHECK(issues[0].at("fingerprint") != issues[1].at("fingerprint"));
}

TEST_CASE("cached results are reused while files are unchanged, and only then", "[e2e][cache]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  dir.write("csrc/k.cu", "#include \"k.cuh\"\n__global__ void k(float* x) {}\n");
  dir.write("csrc/k.cuh", "#pragma once\n");
  std::string cache = "--cache-dir '" + dir.str("cache") + "'";
  std::string scan = "scan '" + dir.str("pkg") + "' '" + dir.str("csrc") + "' --format json " + cache;
  auto first = run_tpulint(scan);
  REQUIRE(first.exit_code == 0);
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.str("cache"))) files.push_back(e.path());
  REQUIRE(files.size() == 1);  // one cache file for this root and these settings

  // A file answered by the cache is not analyzed in the run: `--timings` lists only the others.
  const std::string table = dir.str("t.tsv");
  auto analyzed_in_run = [&] {
    std::ifstream in(table);
    std::vector<std::string> paths;
    std::string line;
    std::getline(in, line);  // the header
    while (std::getline(in, line)) paths.push_back(line.substr(line.rfind('\t') + 1));
    std::sort(paths.begin(), paths.end());
    return paths;
  };
  auto second = run_tpulint(scan + " --timings '" + table + "'");
  CHECK(analyzed_in_run().empty());
  CHECK(second.out == first.out);

  // A changed file is analyzed again; so is every C/C++/CUDA file when a header changes.
  dir.write("pkg/model.py", std::string(kModel) + "\n# edited\n");
  dir.write("csrc/k.cuh", "#pragma once\n// edited\n");
  auto third = run_tpulint(scan + " --timings '" + table + "'");
  CHECK(analyzed_in_run() == std::vector<std::string>{"csrc/k.cu", "csrc/k.cuh", "pkg/model.py"});
  CHECK(third.out == first.out);

  // Results edited in the cache file are not taken from it: their entries' checksums fail (the
  // header's entry holds no finding, was not edited, and is still used).
  auto mark = [&] {
    std::ifstream in(files[0]);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    for (std::string word : {"returns a data-dependent shape", "has no TPU equivalent"})
      for (size_t at; (at = text.find(word)) != std::string::npos;) text.replace(at, word.size(), "FROM THE CACHE");
    std::ofstream(files[0]) << text;
  };
  mark();
  auto edited = run_tpulint(scan + " --timings '" + table + "'");
  CHECK(edited.out.find("FROM THE CACHE") == std::string::npos);
  CHECK(edited.out == first.out);
  CHECK(analyzed_in_run() == std::vector<std::string>{"csrc/k.cu", "pkg/model.py"});

  // --no-cache neither reads nor writes it; a damaged cache file is an empty cache.
  mark();
  auto none = run_tpulint("scan '" + dir.str("pkg") + "' '" + dir.str("csrc") + "' --format json --no-cache");
  CHECK(none.out.find("FROM THE CACHE") == std::string::npos);
  std::ofstream(files[0]) << "{ not json";
  auto damaged = run_tpulint(scan);
  CHECK(damaged.exit_code == 0);
  CHECK(damaged.out == first.out);
}

// Issue 34: 34 of 60 random truncations and byte flips of a cache file changed the report
// (messages, IDs, paths, lines, findings missing); a same-size edit with the modification
// time put back was answered from the cache.
TEST_CASE("a damaged or tampered cache file never changes the report", "[e2e][cache]") {
  TempDir dir;
  dir.write("pkg/model.py", kModel);
  dir.write("pkg/other.py", "import torch\nx = torch.ones(3).cuda()\ny = torch.nonzero(x)\n");
  dir.write("csrc/k.cu", "__global__ void k(float* x) { x[0] = 1; }\n");
  // Time stamps in the past: the entries are trusted by their stamps, not only their hashes.
  for (const char* f : {"pkg/model.py", "pkg/other.py", "csrc/k.cu"})
    std::filesystem::last_write_time(dir.str(f), std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  const std::string scan = "scan '" + dir.str() + "' --format json --cache-dir '" + dir.str("cache") + "' --exclude cache";
  const auto cold = run_tpulint(scan);
  REQUIRE(cold.exit_code == 0);
  std::filesystem::path file;
  for (const auto& e : std::filesystem::directory_iterator(dir.str("cache"))) file = e.path();
  std::stringstream ss;
  ss << std::ifstream(file, std::ios::binary).rdbuf();
  const std::string good = ss.str();
  REQUIRE(good.size() > 100);

  std::mt19937 random(34);
  int changed = 0;
  for (int round = 0; round < 60; ++round) {
    std::string bad = good;
    if (round % 2 == 0) {
      bad.resize(std::uniform_int_distribution<size_t>(0, good.size() - 1)(random));
    } else {
      for (int flips = 1 + round % 3; flips > 0; --flips)
        bad[std::uniform_int_distribution<size_t>(0, good.size() - 1)(random)] ^=
            char(1 << std::uniform_int_distribution<int>(0, 7)(random));
    }
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
    auto r = run_tpulint(scan);
    INFO("round " << round << ": " << r.err);
    CHECK(r.exit_code == 0);
    changed += r.out != cold.out;
  }
  CHECK(changed == 0);

  // A same-size edit with the modification time put back is seen: the change time moved.
  std::ofstream(file, std::ios::binary | std::ios::trunc) << good;
  const auto time = std::filesystem::last_write_time(dir.str("pkg/other.py"));
  dir.write("pkg/other.py", "import torch\nx = torch.ones(3).cuda()\ny = torch.nonzerx(x)\n");
  std::filesystem::last_write_time(dir.str("pkg/other.py"), time);
  auto edited = run_tpulint(scan);
  CHECK(ids(json::parse(edited.out)).at("TPU201") == ids(json::parse(cold.out)).at("TPU201") - 1);
}

TEST_CASE("merging the shards of a scan gives the unsharded report, byte for byte", "[e2e][shard]") {
  TempDir dir;
  std::string whole = run_tpulint("scan fixtures/projects --format json").out;
  std::vector<std::string> shards;
  size_t findings = 0;
  for (int k = 1; k <= 3; ++k) {
    auto r = run_tpulint("scan fixtures/projects --format json --shard " + std::to_string(k) + "/3");
    REQUIRE(r.exit_code == 0);
    findings += report_of(r).at("findings").size();
    shards.push_back(dir.write("shard" + std::to_string(k) + ".json", r.out).string());
  }
  CHECK(findings == json::parse(whole).at("findings").size());  // a partition: every finding once
  auto merged = run_tpulint("merge '" + shards[0] + "' '" + shards[1] + "' '" + shards[2] + "' --format json");
  REQUIRE(merged.exit_code == 0);
  CHECK(merged.out == whole);
  // Other formats and the thresholds work on the merged report too.
  auto text = run_tpulint("merge '" + shards[0] + "' '" + shards[1] + "' '" + shards[2] + "' --fail-under 99");
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("Summary") != std::string::npos);

  auto overlap = run_tpulint("merge '" + shards[0] + "' '" + shards[0] + "'");
  CHECK(overlap.exit_code == 2);
  CHECK(overlap.err.find("more than one report") != std::string::npos);
  CHECK(run_tpulint("scan fixtures/projects --shard 4/3").exit_code == 2);
  CHECK(run_tpulint("scan fixtures/projects --shard x").exit_code == 2);
  dir.write("not-a-report.json", "[1, 2]");
  CHECK(run_tpulint("merge '" + dir.str("not-a-report.json") + "'").exit_code == 2);
}

// A project whose own package has the name of a CUDA-only library (scanning bitsandbytes, apex or
// Liger-Kernel): its imports of itself are its code, not a dependency. The cached results follow
// the project: a package added elsewhere in the tree changes what another file's import means.
TEST_CASE("the project's own packages are never a CUDA-only library, and the cache follows them", "[e2e][index]") {
  TempDir dir, cache;
  dir.write("bitsandbytes/__init__.py", "from bitsandbytes.functional import quantize\n");
  dir.write("bitsandbytes/functional.py", "def quantize(x):\n    return x\n");
  dir.write("train.py", "import bitsandbytes\nimport apex\n\ndef step(x):\n    return bitsandbytes.quantize(x)\n");
  const std::string cached = "--cache-dir '" + cache.str() + "'";
  auto first = report_of(run_tpulint(scan_json(dir, cached)));
  CHECK(locations(first) == std::vector<std::string>{"TPU501 train.py:2"});  // apex, not its own bitsandbytes
  // Now apex is the project's too: train.py's unchanged bytes must be analyzed again.
  dir.write("apex/__init__.py", "");
  auto second = report_of(run_tpulint(scan_json(dir, cached)));
  CHECK(locations(second).empty());
}

// No silent passes: code tpulint did not analyze is never called ready without saying so.
TEST_CASE("a scan that analyzed nothing says so and exits 2, a shard may have nothing", "[e2e][unanalyzed]") {
  TempDir dir;
  auto empty = run_tpulint(scan_json(dir));
  CHECK(empty.exit_code == 2);
  CHECK(empty.err.find("no file was analyzed") != std::string::npos);
  CHECK(report_of(empty).at("verdict_reason") == "no file was analyzed: there is no verdict to give");
  dir.write("README.md", "# notes\n");  // not code
  CHECK(run_tpulint(scan_json(dir)).exit_code == 2);
  dir.write("m.py", "import torch\n");
  auto one = run_tpulint(scan_json(dir));
  CHECK(one.exit_code == 0);
  CHECK(one.err.find("no file was analyzed") == std::string::npos);
  // A shard handed no file is not an error: another shard has them.
  TempDir lone;
  lone.write("a.py", "x = 1\n");
  int empty_shards = 0;
  for (const char* shard : {"1/2", "2/2"}) {
    auto r = run_tpulint(scan_json(lone, std::string("--shard ") + shard));
    CHECK(r.exit_code == 0);
    if (report_of(r).at("files").at("analyzed") == 0) ++empty_shards;
  }
  CHECK(empty_shards == 1);
}

TEST_CASE("files not analyzed are listed, named in the verdict and on stderr, and can fail CI", "[e2e][unanalyzed]") {
  TempDir dir;
  dir.write("pkg/good.py", "import torch\n\ndef select(x):\n    return torch.nonzero(x)\n");
  dir.write("pkg/latin.py", std::string("import torch\nx = torch.zeros(3).cuda()  # caf\xe9\n"));  // not UTF-8
  dir.write("tests/bad.py", std::string("s = '\xff'\n"));
  auto r = run_tpulint(scan_json(dir));
  CHECK(r.exit_code == 0);
  json report = report_of(r);
  std::vector<std::string> listed;
  for (const json& u : report.at("files").at("unanalyzed")) listed.push_back(u.at("path"));
  CHECK(listed == std::vector<std::string>{"pkg/latin.py", "tests/bad.py"});
  // Only the core file bears on the verdict.
  const std::string reason = report.at("verdict_reason");
  CHECK(reason.find("but 1 core file was not analyzed (first: pkg/latin.py: not valid UTF-8, and no encoding is "
                    "declared") != std::string::npos);
  CHECK(r.err.find("2 code files were not analyzed") != std::string::npos);
  CHECK(r.err.find("pkg/latin.py: not valid UTF-8") != std::string::npos);
  // The flag and the configuration key make them fail; --exit-zero still wins.
  CHECK(run_tpulint(scan_json(dir, "--fail-on-unanalyzed")).exit_code == 1);
  CHECK(run_tpulint(scan_json(dir, "--fail-on-unanalyzed --exit-zero")).exit_code == 0);
  dir.write(".tpulint.toml", "fail-on-unanalyzed = true\n");
  CHECK(run_tpulint(scan_json(dir)).exit_code == 1);
  dir.write(".tpulint.toml", "fail-on-unanalyzed = 3\n");
  auto bad = run_tpulint(scan_json(dir));
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("'fail-on-unanalyzed' must be true or false") != std::string::npos);
  // Every file analyzed: nothing said, and the flag passes.
  TempDir clean;
  clean.write("m.py", "x = 1\n");
  auto ok = run_tpulint(scan_json(clean, "--fail-on-unanalyzed"));
  CHECK(ok.exit_code == 0);
  CHECK(ok.err.find("not analyzed") == std::string::npos);
}

TEST_CASE("a file whose analysis timed out is not analyzed, and the verdict says so", "[e2e][unanalyzed]") {
  TempDir dir;
  dir.write("pkg/ok.py", "x = 1\n");
  std::string big = "import torch\n";
  for (int i = 0; i < 200000; ++i) big += "y" + std::to_string(i) + " = torch.nonzero(x)\n";
  dir.write("pkg/slow.py", big);
  auto r = run_tpulint(scan_json(dir, "--file-timeout 0.001 --no-cache"));
  json report = report_of(r);
  std::vector<std::string> listed;
  for (const json& u : report.at("files").at("unanalyzed")) listed.push_back(u.at("path"));
  CHECK(std::find(listed.begin(), listed.end(), "pkg/slow.py") != listed.end());
  CHECK(report.at("verdict_reason").get<std::string>().find("not analyzed") != std::string::npos);
  CHECK(run_tpulint(scan_json(dir, "--file-timeout 0.001 --no-cache --fail-on-unanalyzed")).exit_code == 1);
}
