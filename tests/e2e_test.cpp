// End-to-end: the real binary on the sample projects and on small trees made in the test.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli_runner.h"
#include "json_schema.h"

namespace fs = std::filesystem;
using nlohmann::json;
using tpulint::testing::run_tpulint;
using tpulint::testing::TempDir;

namespace {

const fs::path kProjects = fs::path(TPULINT_SOURCE_DIR) / "fixtures" / "projects";

json expected_projects() {
  std::ifstream in(kProjects / "expected.json");
  json j = json::parse(in);
  j.erase("_comment");
  return j;
}

// The keys the foundation promises in every JSON report (docs/json-report.md).
void check_report_shape(const json& r) {
  REQUIRE(r.is_object());
  CHECK(r.at("schema_version") == 7);
  CHECK(r.at("tool").at("name") == "tpulint");
  CHECK(r.at("tool").at("version").is_string());
  CHECK(r.at("score").is_number());
  CHECK(r.at("score").get<double>() >= 0);
  CHECK(r.at("score").get<double>() <= 100);
  std::string verdict = r.at("verdict");
  CHECK((verdict == "tpu-ready" || verdict == "portable" || verdict == "significant" || verdict == "stay-on-gpu"));
  CHECK(r.at("effort").at("hours_low").is_number());
  CHECK(r.at("effort").at("hours_high").get<double>() >= r.at("effort").at("hours_low").get<double>());
  CHECK(r.at("files").at("analyzed").is_number());
  CHECK(r.at("files").at("skipped").is_array());
  for (const json& f : r.at("findings")) {
    CHECK(f.at("id").get<std::string>().starts_with("TPU"));
    CHECK(f.at("category").is_string());
    std::string path = f.at("path");
    CHECK_FALSE(path.empty());
    CHECK(path[0] != '/');
    CHECK(f.at("line").get<int>() >= 1);
    CHECK(f.at("column").get<int>() >= 1);
    CHECK(f.at("message").is_string());
    CHECK(f.at("effort").at("class").is_string());
  }
}

// Every JSON report a test sees is validated against docs/report.schema.json first.
json valid_report(const std::string& text) {
  std::string errors = tpulint::testing::schema_errors(tpulint::testing::kReportSchema, text);
  INFO(errors);
  CHECK(errors.empty());
  return json::parse(text);
}

// The verdicts from best to worst.
constexpr std::array<std::string_view, 4> kVerdictsBestFirst = {"tpu-ready", "portable", "significant", "stay-on-gpu"};

size_t verdict_rank(std::string_view verdict) {
  auto it = std::find(kVerdictsBestFirst.begin(), kVerdictsBestFirst.end(), verdict);
  REQUIRE(it != kVerdictsBestFirst.end());
  return static_cast<size_t>(it - kVerdictsBestFirst.begin());
}

std::map<std::string, int> count_by_id(const json& r) {
  std::map<std::string, int> n;
  for (const json& f : r.at("findings")) ++n[f.at("id")];
  return n;
}

}  // namespace

TEST_CASE("each sample project gets its expected verdict", "[e2e]") {
  json expected = expected_projects();
  REQUIRE(expected.size() >= 8);  // the calibration set: at least two per verdict
  for (auto& [name, want] : expected.items()) {
    INFO(name);
    REQUIRE(fs::is_directory(kProjects / name));
    auto r = run_tpulint("scan fixtures/projects/" + name + " --format json");
    CHECK(r.err.empty());
    REQUIRE(r.exit_code == 0);
    json report = valid_report(r.out);
    check_report_shape(report);
    CHECK(report.at("files").at("analyzed").get<int>() > 0);
    CHECK(report.at("verdict") == want.at("verdict"));
  }
  // A sample project without an expected verdict would silently go untested.
  for (const fs::directory_entry& entry : fs::directory_iterator(kProjects))
    if (entry.is_directory()) CHECK(expected.contains(entry.path().filename().string()));
}

// Calibration: the score and the verdict are computed by different rules (a saturating penalty
// over every finding; thresholds on the core code's hours), and a user reads them together. A
// project with a better verdict must never score lower than one with a worse verdict.
TEST_CASE("sample projects score in the order of their verdicts", "[e2e]") {
  struct Scored {
    std::string name;
    double score;
  };
  std::array<std::vector<Scored>, kVerdictsBestFirst.size()> by_verdict;
  json expected = expected_projects();
  for (auto& [name, want] : expected.items()) {
    auto r = run_tpulint("scan fixtures/projects/" + name + " --format json");
    REQUIRE(r.exit_code == 0);
    by_verdict[verdict_rank(want.at("verdict").get<std::string>())].push_back(
        {name, valid_report(r.out).at("score").get<double>()});
  }
  for (size_t rank = 0; rank < by_verdict.size(); ++rank) {
    INFO("verdict " << kVerdictsBestFirst[rank]);
    CHECK(by_verdict[rank].size() >= 2);
  }
  for (size_t better = 0; better < by_verdict.size(); ++better)
    for (size_t worse = better + 1; worse < by_verdict.size(); ++worse)
      for (const Scored& b : by_verdict[better])
        for (const Scored& w : by_verdict[worse]) {
          INFO(b.name << " (" << kVerdictsBestFirst[better] << ") scores " << b.score << ", " << w.name << " ("
                      << kVerdictsBestFirst[worse] << ") scores " << w.score);
          CHECK(b.score > w.score);
        }
}

TEST_CASE("the CUDA extension's kernels, launches and PTX are all found", "[e2e]") {
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format json");
  REQUIRE(r.exit_code == 0);
  auto n = count_by_id(valid_report(r.out));
  CHECK(n["TPU101"] == 3);  // roi_align_forward_kernel, roi_align_backward_kernel, nms_kernel
  CHECK(n["TPU102"] == 3);  // two launches inside AT_DISPATCH lambdas, one plain
  CHECK(n["TPU103"] == 1);  // the %laneid PTX
}

TEST_CASE("the Python-to-native link: setup.py's sources tie the kernels to the module Python imports", "[e2e]") {
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format json");
  REQUIRE(r.exit_code == 0);
  json doc = valid_report(r.out);
  const json* module = nullptr;
  for (const json& w : doc.at("work_items"))
    if (w.at("subject") == "roi_ops._C") module = &w;
  REQUIRE(module);
  // The CUDAExtension in setup.py, the import in roi_ops/ops.py, and the kernels, launches and
  // PTX of the three sources it lists: one piece of work. Its kernels are standard ops: they
  // join it under their ops' names.
  CHECK(module->at("first_location") == "setup.py:10");
  std::vector<std::string> parts = module->at("parts");
  for (const char* op : {"nms", "roi_align"}) CHECK(std::find(parts.begin(), parts.end(), op) != parts.end());
  std::set<std::string> checks = module->at("checks");
  CHECK(checks.count("TPU101"));
  CHECK(checks.count("TPU110"));
  CHECK(checks.count("TPU117"));
  for (const json& w : doc.at("work_items")) CHECK(w.at("subject") != "nms");
  for (const json& f : doc.at("findings"))
    if (f.at("id") == "TPU110")
      // Its sources, and the header they include.
      CHECK(f.at("related_paths") ==
            json({"csrc/nms_kernel.cu", "csrc/roi_align_kernel.cu", "csrc/roi_ops.cpp", "csrc/roi_ops.h"}));
}

TEST_CASE("the Python-to-native link: a CMake target ties its kernels to the module Python imports", "[e2e]") {
  auto r = run_tpulint("scan fixtures/projects/cmake_pybind_cuda_ext --format json");
  REQUIRE(r.exit_code == 0);
  json doc = valid_report(r.out);
  // The pybind11_add_module target `_splat_cuda` and `from flowsplat import _splat_cuda` (whose
  // subject is the dotted flowsplat._splat_cuda) are one module: ONE work item holds the CMake
  // finding, the kernel and its launch in csrc/, the binding, and the import.
  std::vector<const json*> custom;
  for (const json& w : doc.at("work_items"))
    if (w.at("category") == "custom-kernel") custom.push_back(&w);
  REQUIRE(custom.size() == 1);
  const json& module = *custom.front();
  CHECK(module.at("subject") == "_splat_cuda");
  CHECK(module.at("first_location") == "CMakeLists.txt:13");
  std::set<std::string> checks = module.at("checks");
  for (const char* id : {"TPU101", "TPU102", "TPU117", "TPU118", "TPU132"}) {
    INFO(id);
    CHECK(checks.count(id));
  }
  std::vector<std::string> parts = module.at("parts");
  CHECK(std::find(parts.begin(), parts.end(), "forward_splat_kernel") != parts.end());
  for (const json& f : doc.at("findings"))
    if (f.at("id") == "TPU118")
      CHECK(f.at("related_paths") == json({"csrc/bindings.cpp", "csrc/splat_kernel.cu"}));
  for (const json& f : doc.at("findings"))
    if (f.at("id") == "TPU117") CHECK(f.at("subject") == "flowsplat._splat_cuda");
}

TEST_CASE("output does not depend on --jobs or on the directory tpulint runs from", "[e2e]") {
  auto one = run_tpulint("scan fixtures/projects --format json --jobs 1");
  auto two = run_tpulint("scan fixtures/projects --format json --jobs 2");
  auto eight = run_tpulint("scan fixtures/projects --format json --jobs 8");
  auto again = run_tpulint("scan fixtures/projects --format json --jobs 8 --no-cache");
  auto elsewhere = run_tpulint("scan '" TPULINT_SOURCE_DIR "/fixtures/projects' --format json --jobs 2", "/");
  auto inside = run_tpulint("scan .. --format json --jobs 2", TPULINT_SOURCE_DIR "/fixtures/projects/hf_llm_finetune");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out == two.out);
  CHECK(one.out == eight.out);
  CHECK(one.out == again.out);
  CHECK(one.out == elsewhere.out);
  CHECK(one.out == inside.out);
  // SARIF too: its fingerprints are hashes, which must not depend on memory or scheduling.
  auto sarif1 = run_tpulint("scan fixtures/projects --format sarif --jobs 1");
  auto sarif2 = run_tpulint("scan fixtures/projects --format sarif --jobs 2");
  auto sarif8 = run_tpulint("scan '" TPULINT_SOURCE_DIR "/fixtures/projects' --format sarif --jobs 8", "/tmp");
  REQUIRE(sarif1.exit_code == 0);
  CHECK(sarif1.out == sarif2.out);
  CHECK(sarif1.out == sarif8.out);
}

TEST_CASE("a score below --fail-under exits 1, at or above it, 0", "[e2e]") {
  auto low = run_tpulint("scan fixtures/projects/torch_cuda_extension --fail-under 100");
  CHECK(low.exit_code == 1);
  CHECK(low.err.find("--fail-under") != std::string::npos);
  auto ok = run_tpulint("scan fixtures/projects/torch_cuda_extension --fail-under 0");
  CHECK(ok.exit_code == 0);
}

TEST_CASE("usage errors exit 2 with a one-line message", "[e2e]") {
  auto missing = run_tpulint("scan does/not/exist");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "tpulint: error: 'does/not/exist': no such file or directory\n");
  CHECK(missing.out.empty());

  auto select = run_tpulint("scan fixtures/projects --select TPU8");
  CHECK(select.exit_code == 2);
  CHECK(select.err.find("'TPU8' matches no check") != std::string::npos);

  auto option = run_tpulint("scan --no-such-option");
  CHECK(option.exit_code == 2);

  auto explain = run_tpulint("explain TPU999");
  CHECK(explain.exit_code == 2);
  CHECK(explain.err.find("unknown check 'TPU999'") != std::string::npos);

  auto format = run_tpulint("scan fixtures/projects --format yaml");
  CHECK(format.exit_code == 2);
}

// Issue 36: `tpulint scna` said "A subcommand is required".
TEST_CASE("a mistyped subcommand is named, with the nearest one", "[e2e]") {
  auto typo = run_tpulint("scna fixtures/projects");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "tpulint: error: unknown subcommand 'scna'; did you mean 'scan'?\n");
  CHECK(typo.out.empty());
  CHECK(run_tpulint("expalin TPU201").err == "tpulint: error: unknown subcommand 'expalin'; did you mean 'explain'?\n");
  CHECK(run_tpulint("baselin .").err.find("did you mean 'baseline'?") != std::string::npos);
  auto far = run_tpulint("frobnicate");
  CHECK(far.exit_code == 2);
  CHECK(far.err ==
        "tpulint: error: unknown subcommand 'frobnicate' (subcommands: scan, baseline, merge, checks, explain, docs)\n");
  // Options before a subcommand are still CLI11's.
  CHECK(run_tpulint("--version").exit_code == 0);
}

// Issue 36: `-o` wrote the baseline in `baseline` and was refused by `scan`; now it is where the
// command's output goes in both (and in `merge`), and `baseline` refuses report options it ignored.
TEST_CASE("option -o FILE writes what the command would print: scan's report, baseline's baseline", "[e2e]") {
  TempDir dir;
  const std::string project = "fixtures/projects/torch_cuda_extension";
  auto printed = run_tpulint("scan " + project + " --format json");
  auto written = run_tpulint("scan " + project + " --format json -o '" + dir.str("report.json") + "'");
  REQUIRE(written.exit_code == printed.exit_code);
  CHECK(written.out.empty());
  std::ifstream in(dir.str("report.json"));
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == printed.out);
  auto long_form = run_tpulint("scan " + project + " --output-file '" + dir.str("report.txt") + "' --color always");
  CHECK(long_form.out.empty());
  CHECK(fs::file_size(dir.str("report.txt")) > 0);

  auto baseline = run_tpulint("baseline " + project + " -o '" + dir.str("baseline.json") + "'");
  CHECK(baseline.exit_code == 0);
  CHECK(json::parse(std::ifstream(dir.str("baseline.json"))).at("baseline_version") == 2);
  auto with_format = run_tpulint("baseline " + project + " -o '" + dir.str("b2.json") + "' --format json");
  CHECK(with_format.exit_code == 2);
  CHECK(with_format.err.find("--format and --output are for `scan`") != std::string::npos);
  CHECK_FALSE(fs::exists(dir.str("b2.json")));
}

// Issue 36: a failed output names the file as given and the system's reason.
TEST_CASE("an output that cannot be written names the file and the reason", "[e2e]") {
  TempDir dir;
  const std::string project = "fixtures/projects/torch_cuda_extension";
  const std::string missing = dir.str("no/such/dir/report.json");
  for (const std::string& option : {"-o", "--output json=", "--timings "}) {
    auto r = run_tpulint("scan " + project + " " + option + (option.ends_with('=') ? "" : " ") + "'" + missing + "'");
    INFO(option);
    CHECK(r.exit_code == 2);
    CHECK(r.err.ends_with("tpulint: error: cannot write '" + missing + "': No such file or directory\n"));
  }
  dir.write("file", "x");
  auto docs = run_tpulint("docs --output-dir '" + dir.str("file/docs") + "'");
  CHECK(docs.exit_code == 2);
  CHECK(docs.err == "tpulint: error: cannot create the directory '" + dir.str("file/docs") + "': Not a directory\n");
}

TEST_CASE("an unreadable file is skipped with its reason and the others are analyzed", "[e2e]") {
  TempDir dir;
  dir.write("good.py", "import torch\nx = torch.nonzero(y)\n");
  std::string bad = dir.str("bad.py");
  dir.write("bad.py", "import torch\n");
  fs::permissions(bad, fs::perms::none);
  bool readable_anyway = std::ifstream(bad).good();  // root reads anything
  auto r = run_tpulint("scan '" + dir.str() + "' --format json");
  REQUIRE(r.exit_code == 0);
  json report = valid_report(r.out);
  CHECK(count_by_id(report)["TPU201"] == 1);
  if (!readable_anyway) {
    REQUIRE(report.at("files").at("skipped").size() == 1);
    CHECK(report.at("files").at("skipped")[0].at("path") == "bad.py");
    CHECK(count_by_id(report)["TPU902"] == 1);
  }
  fs::permissions(bad, fs::perms::owner_all);
}

TEST_CASE("binary and oversized files are skipped with a TPU902 note", "[e2e]") {
  TempDir dir;
  dir.write("model.py", "import torch\nm = Net().cuda()\n");
  dir.write("blob.py", std::string("\x7f" "ELF\0\0\0", 7));
  dir.write("big.cu", std::string(5000, ' ') + "\n");
  auto r = run_tpulint("scan '" + dir.str() + "' --format json --max-file-size 4096");
  REQUIRE(r.exit_code == 0);
  json report = valid_report(r.out);
  CHECK(report.at("files").at("analyzed") == 1);
  REQUIRE(report.at("files").at("skipped").size() == 2);
  CHECK(report.at("files").at("skipped")[0].at("path") == "big.cu");
  CHECK(report.at("files").at("skipped")[0].at("reason").get<std::string>().find("--max-file-size") != std::string::npos);
  CHECK(report.at("files").at("skipped")[1].at("path") == "blob.py");
  CHECK(report.at("files").at("skipped")[1].at("reason").get<std::string>().find("binary") != std::string::npos);
  auto n = count_by_id(report);
  CHECK(n["TPU902"] == 2);
  CHECK(n["TPU401"] == 1);
}

TEST_CASE("each --output FORMAT=FILE writes the same report to a file", "[e2e]") {
  TempDir dir;
  std::string file = dir.str() + "/report.json";
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format json --output json='" + file + "'");
  REQUIRE(r.exit_code == 0);
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == r.out);
  CHECK_FALSE(fs::exists(file + ".tmp"));
}

TEST_CASE("the text report groups findings by file and ends with the summary", "[e2e]") {
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --color never");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("csrc/nms_kernel.cu\n") != std::string::npos);
  CHECK(r.out.find("TPU101") != std::string::npos);
  CHECK(r.out.find("__global__ void nms_kernel") != std::string::npos);  // the code frame
  CHECK(r.out.find("^^^^^^^^^^") != std::string::npos);
  CHECK(r.out.find("Summary") != std::string::npos);
  CHECK(r.out.find("verdict    stay-on-gpu") != std::string::npos);
  CHECK(r.out.find("\x1b[") == std::string::npos);  // no colour when asked for none
  auto colored = run_tpulint("scan fixtures/projects/torch_cuda_extension --color always");
  CHECK(colored.out.find("\x1b[") != std::string::npos);
}

TEST_CASE("checks lists the catalogue and explain prints one check", "[e2e]") {
  auto list = run_tpulint("checks");
  REQUIRE(list.exit_code == 0);
  for (const char* id : {"TPU101", "TPU102", "TPU103", "TPU201", "TPU401", "TPU501", "TPU901"})
    CHECK(list.out.find(id) != std::string::npos);
  auto one = run_tpulint("explain TPU201");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out.starts_with("# TPU201 torch-data-dependent-shape"));
  CHECK(one.out.find("## Use instead") != std::string::npos);
  // Issue 36: `explain tpu201` was an unknown check.
  for (const char* id : {"tpu201", "Tpu201"}) CHECK(run_tpulint(std::string("explain ") + id).out == one.out);
}

TEST_CASE("a compile database's flags are used for the files it lists", "[e2e][cxx]") {
  TempDir dir;
  std::string source = dir.str("src/ops.cpp");
  dir.write("src/ops.cpp",
                                 "#ifdef TPULINT_WITH_PTX\n"
                                 "void fence() { asm volatile(\"membar.gl;\"); }\n"
                                 "#endif\n");
  std::string db = "[{\"directory\": \"" + dir.str() + "\", \"file\": \"" + source +
                   "\", \"arguments\": [\"c++\", \"-DTPULINT_WITH_PTX\", \"-c\", \"src/ops.cpp\"]}]";

  // Without a database the macro is undefined and the assembly is not compiled in.
  auto bare = run_tpulint("scan '" + dir.str() + "' --format json");
  REQUIRE(bare.exit_code == 0);
  CHECK(count_by_id(valid_report(bare.out))["TPU103"] == 0);

  // Found under build/ at the root...
  dir.write("build/compile_commands.json", db);
  auto found = run_tpulint("scan '" + dir.str() + "' --format json");
  REQUIRE(found.exit_code == 0);
  CHECK(count_by_id(valid_report(found.out))["TPU103"] == 1);

  // ...or given with -p (a directory or the file itself).
  dir.write("elsewhere/compile_commands.json", db);
  std::filesystem::remove(dir.str() + "/build/compile_commands.json");
  auto given = run_tpulint("scan '" + dir.str() + "/src' --format json -p '" + dir.str() + "/elsewhere'");
  REQUIRE(given.exit_code == 0);
  CHECK(count_by_id(valid_report(given.out))["TPU103"] == 1);
  auto given_file =
      run_tpulint("scan '" + dir.str() + "/src' --format json -p '" + dir.str() + "/elsewhere/compile_commands.json'");
  CHECK(count_by_id(valid_report(given_file.out))["TPU103"] == 1);

  auto missing = run_tpulint("scan '" + dir.str() + "' -p '" + dir.str() + "/nowhere'");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no compile_commands.json") != std::string::npos);
}

TEST_CASE("missing headers are recorded per file and the rest of the file is analyzed", "[e2e][cxx]") {
  TempDir dir;
  dir.write("k.cu",
            "#include <torch/extension.h>\n"
            "#include \"not_in_tree.cuh\"\n"
            "#include <vector>\n"
            "__global__ void k(float* x) { x[threadIdx.x] = 0; }\n");
  auto r = run_tpulint("scan '" + dir.str() + "' --format json");
  REQUIRE(r.exit_code == 0);
  json report = valid_report(r.out);
  CHECK(count_by_id(report)["TPU101"] == 1);
  REQUIRE(report.at("files").at("missing_headers").size() == 1);
  CHECK(report.at("files").at("missing_headers")[0].at("headers") ==
        json::array({"torch/extension.h", "not_in_tree.cuh"}));
}

TEST_CASE("the SARIF report is valid SARIF 2.1.0 with what GitHub code scanning reads", "[e2e][sarif]") {
  auto r = run_tpulint("scan fixtures/projects --format sarif");
  REQUIRE(r.exit_code == 0);
  std::string errors = tpulint::testing::schema_errors(tpulint::testing::kSarifSchema, r.out);
  INFO(errors);
  CHECK(errors.empty());
  json sarif = json::parse(r.out);
  CHECK(sarif.at("version") == "2.1.0");
  const json& run = sarif.at("runs").at(0);
  const json& rules = run.at("tool").at("driver").at("rules");
  REQUIRE(rules.size() >= 9);
  for (const json& rule : rules) {
    for (const char* key : {"id", "name", "shortDescription", "fullDescription", "help"}) CHECK(rule.contains(key));
    CHECK(rule.at("help").contains("text"));
    CHECK(rule.at("help").contains("markdown"));
    CHECK(rule.at("properties").at("tags").is_array());
    CHECK(rule.at("properties").contains("precision"));
  }
  REQUIRE(run.at("results").size() > 0);
  for (const json& res : run.at("results")) {
    CHECK(res.at("ruleId").get<std::string>().starts_with("TPU"));
    CHECK(res.at("level").is_string());
    CHECK(res.at("message").at("text").is_string());
    const json& loc = res.at("locations").at(0).at("physicalLocation");
    CHECK(loc.at("artifactLocation").at("uri").get<std::string>()[0] != '/');
    CHECK(loc.at("region").at("startLine").get<int>() >= 1);
    CHECK(res.at("partialFingerprints").at("primaryLocationLineHash").is_string());
  }
  CHECK(run.at("properties").at("score").is_number());
  CHECK(run.at("properties").at("verdict").is_string());

  // Issue 36: every rule of the catalogue, each with its full help, made a report of 38 findings
  // 390 KB. Only the rules of the results are there, each with the URL of its page.
  std::set<std::string> fired, listed;
  for (const json& res : run.at("results")) {
    fired.insert(res.at("ruleId").get<std::string>());
    CHECK(rules.at(res.at("ruleIndex").get<size_t>()).at("id") == res.at("ruleId"));
  }
  for (const json& rule : rules) {
    listed.insert(rule.at("id").get<std::string>());
    CHECK(rule.at("helpUri") == "https://github.com/tpulint/tpulint/blob/main/docs/checks/" +
                                    rule.at("id").get<std::string>() + ".md");
    CHECK(fs::exists(fs::path(TPULINT_SOURCE_DIR) / "docs" / "checks" / (rule.at("id").get<std::string>() + ".md")));
  }
  CHECK(listed == fired);
}

// Issue 36: apex's text report is 10,000 lines with the summary at their end.
TEST_CASE("text --summary prints the summary, verdict and plan without the findings", "[e2e]") {
  auto full = run_tpulint("scan fixtures/projects/torch_cuda_extension --color never");
  auto summary = run_tpulint("scan fixtures/projects/torch_cuda_extension --color never --summary");
  CHECK(summary.exit_code == full.exit_code);
  REQUIRE(full.out.find("Summary\n") != std::string::npos);
  CHECK(summary.out == full.out.substr(full.out.find("Summary\n")));
  CHECK(summary.out.find("verdict    stay-on-gpu") != std::string::npos);
  CHECK(summary.out.find("plan ") != std::string::npos);
  CHECK(summary.out.find("^^^") == std::string::npos);
}

// Issue 36: apex's Markdown report is 624 KB; a GitHub comment holds 65,536 characters.
TEST_CASE("the Markdown report of a large tree fits a pull-request comment, and says what it left out", "[e2e][markdown]") {
  TempDir dir;
  // 1,000 Triton kernels, a work item each, and 400 files of four findings each.
  for (int i = 0; i < 1000; ++i)
    dir.write(fmt::format("pkg/k{:04}.py", i),
              fmt::format("import triton\n\n@triton.jit\ndef kernel_{}(x_ptr, n):\n    pid = triton.language.program_id(0)\n", i));
  for (int i = 0; i < 400; ++i)
    dir.write(fmt::format("pkg/m{:03}.py", i),
              fmt::format("import torch\nimport lib{0}\n\ndef f{0}(x, mask):\n    y = x.cuda()\n    z = x[mask]\n"
                          "    torch.cuda.synchronize()\n    return torch.nonzero(y), z\n",
                          i));
  auto r = run_tpulint("scan '" + dir.str() + "' --format markdown --no-cache");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.size() <= 65536);
  auto json_report = json::parse(run_tpulint("scan '" + dir.str() + "' --format json --no-cache").out);
  const size_t findings = json_report.at("findings").size(), items = json_report.at("work_items").size();
  REQUIRE(findings > 1000);
  REQUIRE(items > 1000);
  // The summary and the top blockers first, then the plan in its order as far as it fits, then
  // the sub-scores and the note's counts.
  CHECK(r.out.starts_with("## tpulint: TPU readiness"));
  CHECK(r.out.find("### Top blockers") < r.out.find("Migration plan"));
  CHECK(r.out.find("| 1 | ") < r.out.find("| 2 | "));
  CHECK(r.out.find("| 2 | ") < r.out.find("Sub-scores by category"));
  CHECK(r.out.find(fmt::format("| {} | ", items)) == std::string::npos);  // the plan's last item is left out
  const size_t note = r.out.find("**Cut to fit a pull-request comment (at most 65536 characters):** ");
  REQUIRE(note != std::string::npos);
  CHECK(r.out.find(fmt::format(" of {} work items and 0 of {} findings are shown", items, findings), note) !=
        std::string::npos);
  CHECK(r.out.find("All findings") == std::string::npos);
  // With a plan that fits, the findings follow it as far as they fit.
  fs::remove_all(dir.str("pkg"));
  for (int i = 0; i < 400; ++i)
    dir.write(fmt::format("pkg/m{:03}.py", i), "import torch\n\ndef f(x, mask):\n    y = x.cuda()\n"
                                                "    return torch.nonzero(y), x[mask]\n");
  auto fewer_items = run_tpulint("scan '" + dir.str() + "' --format markdown --no-cache");
  CHECK(fewer_items.out.size() <= 65536);
  CHECK(fewer_items.out.find("All findings (1200)") < fewer_items.out.find("**Cut to fit"));
  CHECK(fewer_items.out.find("3 of 3 work items and ") != std::string::npos);
  CHECK(fewer_items.out.find(" of 1200 findings are shown") != std::string::npos);
  CHECK(r.out.ends_with("the JSON, SARIF and HTML reports hold them all.\n"));
  // A small tree's comment is whole.
  auto small = run_tpulint("scan fixtures/projects/torch_cuda_extension --format markdown");
  CHECK(small.out.find("Cut to fit") == std::string::npos);
  CHECK(small.out.find("All findings") != std::string::npos);
}

TEST_CASE("the Markdown report is a pull-request comment with links to path#Lline", "[e2e][markdown]") {
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format markdown --link-base "
                       "https://github.com/o/r/blob/abc/");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.starts_with("## tpulint: TPU readiness "));
  CHECK(r.out.find("`stay-on-gpu`") != std::string::npos);
  CHECK(r.out.find("### Top blockers") != std::string::npos);
  CHECK(r.out.find("(https://github.com/o/r/blob/abc/csrc/nms_kernel.cu#L") != std::string::npos);
  CHECK(r.out.find("<details><summary>Migration plan") != std::string::npos);

  // --compare shows the change against an earlier JSON report.
  TempDir dir;
  dir.write("old.json", R"({"score": 10.0})");
  auto compared = run_tpulint("scan fixtures/projects/torch_cuda_extension --format markdown --compare '" +
                              dir.str("old.json") + "'");
  REQUIRE(compared.exit_code == 0);
  CHECK(compared.out.find("against the compared report") != std::string::npos);
  auto bad = run_tpulint("scan fixtures/projects --compare '" + dir.str("missing.json") + "'");
  CHECK(bad.exit_code == 2);
}

TEST_CASE("the github format writes one workflow command per finding", "[e2e][github]") {
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format github");
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string line;
  int errors = 0, notices = 0;
  while (std::getline(lines, line)) {
    CHECK(line.starts_with("::"));
    errors += line.starts_with("::error file=");
    notices += line.starts_with("::notice title=tpulint::");
  }
  int expected_errors = 0;
  const json report = valid_report(run_tpulint("scan fixtures/projects/torch_cuda_extension --format json").out);
  for (const json& f : report.at("findings")) expected_errors += f.at("severity") == "error";
  CHECK(expected_errors >= 10);
  CHECK(errors == expected_errors);
  CHECK(notices == 1);
  CHECK(r.out.find("::error file=csrc/nms_kernel.cu,line=25,col=17,") != std::string::npos);
}

TEST_CASE("the statistics and explain-score options add their sections to the text report", "[e2e]") {
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --statistics --explain-score --color never");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("Statistics\n") != std::string::npos);
  CHECK(r.out.find("       3  TPU101  cuda-kernel-definition\n") != std::string::npos);
  CHECK(r.out.find("How the verdict and the score are computed") != std::string::npos);
  CHECK(r.out.find("  core code: ") != std::string::npos);
  CHECK(r.out.find("  -> ") != std::string::npos);
  CHECK(r.out.find("  plan       ") != std::string::npos);
}

TEST_CASE("a path-weight rule changes the score, and a bad rule is a usage error", "[e2e]") {
  auto base = valid_report(run_tpulint("scan fixtures/projects/torch_cuda_extension --format json").out);
  auto weighted = valid_report(
      run_tpulint("scan fixtures/projects/torch_cuda_extension --format json --path-weight 'csrc=0'").out);
  CHECK(weighted.at("score").get<double>() > base.at("score").get<double>());
  CHECK(weighted.at("verdict") != "stay-on-gpu");
  auto bad = run_tpulint("scan fixtures/projects --path-weight 'csrc=heavy'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--path-weight expects GLOB=WEIGHT") != std::string::npos);
}

TEST_CASE("the HTML report renders offline in headless Chromium without console errors", "[e2e][html]") {
  TempDir dir;
  std::string html = dir.str("report.html");
  auto r = run_tpulint("scan fixtures/projects/torch_cuda_extension --format html --output html='" + html + "'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("http://") == std::string::npos);  // nothing to fetch
  CHECK(r.out.find("src=\"http") == std::string::npos);

  std::string screenshot = (std::filesystem::temp_directory_path() / "tpulint-html-report.png").string();
  std::string chromium =
      "chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
      "--disable-sync --no-first-run --user-data-dir='" + dir.str("profile") + "' --window-size=1280,2000 "
      "--enable-logging=stderr --v=0 --virtual-time-budget=3000 ";
  std::string dom_cmd = chromium + "--dump-dom 'file://" + html + "' 2>'" + dir.str("dom.err") + "'";
  FILE* pipe = popen(dom_cmd.c_str(), "r");
  REQUIRE(pipe);
  std::string dom;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) dom.append(buf, n);
  int status = pclose(pipe);
  CHECK(status == 0);
  // The script ran to its end, and the key parts are there.
  CHECK(dom.find("data-ready=\"true\"") != std::string::npos);
  for (const char* id : {"id=\"score-gauge\"", "id=\"verdict\"", "id=\"categories\"", "id=\"plan\"", "id=\"files\"",
                         "id=\"findings\""})
    CHECK(dom.find(id) != std::string::npos);
  CHECK(dom.find("nms_kernel") != std::string::npos);

  std::ifstream log(dir.str("dom.err"));
  std::stringstream ss;
  ss << log.rdbuf();
  std::string console = ss.str();
  INFO(console);
  CHECK(console.find("Uncaught") == std::string::npos);
  CHECK(console.find(":ERROR:CONSOLE") == std::string::npos);

  std::string shot_cmd = chromium + "--screenshot='" + screenshot + "' 'file://" + html + "' >/dev/null 2>&1";
  CHECK(std::system(shot_cmd.c_str()) == 0);
  CHECK(std::filesystem::file_size(screenshot) > 10000);
  WARN("HTML report screenshot: " << screenshot);
}

TEST_CASE("clang-commands prints the clang command of each pass, as the frontend runs it", "[e2e][cxx]") {
  TempDir dir;
  dir.write("include/lib/util.cuh", "__device__ inline float twice(float x) { return 2 * x; }\n");
  dir.write("src/k.cu", "#include <lib/util.cuh>\n__global__ void k(float* p) {\n#ifdef __CUDA_ARCH__\n  p[0] = twice(p[0]);\n#endif\n}\n");
  dir.write("src/host.cpp", "int main() { return 0; }\n");
  auto r = run_tpulint("clang-commands '" + dir.str() + "' src/k.cu src/host.cpp");
  REQUIRE(r.exit_code == 0);
  std::vector<json> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(json::parse(line));
  REQUIRE(lines.size() == 3);  // k.cu: device, then host; host.cpp: host
  CHECK(lines[0].at("pass") == "device");
  CHECK(lines[1].at("pass") == "host");
  CHECK(lines[2].at("path") == "src/host.cpp");
  auto has = [](const json& line, const std::string& arg) {
    const auto& a = line.at("arguments");
    return std::find(a.begin(), a.end(), arg) != a.end();
  };
  CHECK(has(lines[0], "--cuda-device-only"));
  CHECK(has(lines[1], "--cuda-host-only"));
  CHECK(has(lines[1], "-fsyntax-only"));
  CHECK(has(lines[1], (fs::path(dir.str()) / "include").lexically_normal().string()));  // the project's include directory
  CHECK(has(lines[1], (fs::path(dir.str()) / "src" / "k.cu").lexically_normal().string()));
  CHECK_FALSE(has(lines[2], "cuda"));
}

TEST_CASE("kernel sources in a Python file's strings are CUDA code, reported at their lines and columns", "[e2e]") {
  TempDir dir;
  dir.write("ops/ext.py", R"PY(import cupy as cp
from torch.utils.cpp_extension import load_inline

# é: a non-ASCII comment before a kernel on the same line keeps the columns in code points
twice = cp.RawKernel("/* é */ extern \"C\" __global__ void twice(float* x) { x[threadIdx.x] *= 2; }", "twice")

SRC = r'''
__global__ void block_sum(const float* x, float* out) {
  __shared__ float partial[256];
  partial[threadIdx.x] = x[blockIdx.x * 256 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) { float s = 0; for (int k = 0; k < 256; ++k) s += partial[k]; out[blockIdx.x] = s; }
}
'''
ext = load_inline(name="ext", cpp_sources="", cuda_sources=SRC, functions=["block_sum"])
note = "a string that only mentions __global__ functions"
)PY");
  json report = valid_report(run_tpulint("scan '" + dir.str() + "' --format json --no-cache").out);
  std::map<std::string, json> by_subject;
  for (const json& f : report.at("findings"))
    if (f.at("id") == "TPU101") by_subject[f.at("subject").get<std::string>()] = f;
  REQUIRE(by_subject.size() == 2);
  const json& twice = by_subject.at("twice");
  CHECK(twice.at("path") == "ops/ext.py");
  CHECK(twice.at("line") == 5);
  // `twice = cp.RawKernel("/* é */ extern \"C\" __global__ void ` is 59 code points (60 bytes).
  CHECK(twice.at("column") == 60);
  CHECK(twice.at("source_line").get<std::string>().starts_with("twice = cp.RawKernel("));
  CHECK(twice.at("effort").at("class") == "low");  // elementwise
  const json& block_sum = by_subject.at("block_sum");
  CHECK(block_sum.at("line") == 8);
  CHECK(block_sum.at("effort").at("class") == "high");
  // The call compiling a literal source is priced as the call: the kernel is TPU101's.
  for (const json& f : report.at("findings"))
    if (f.at("id") == "TPU113") {
      CHECK(f.at("effort").at("class") == "low");
      CHECK(f.at("effort").at("hours_high").get<double>() <= 1.0);
    }
}

TEST_CASE("a generated file (Cython's C++ output) counts no lines of code, and keeps its findings", "[e2e]") {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/model.py", "import torch\n\ndef f(x):\n    return x + 1\n");
  dir.write("nms/nms_kernel.cu", "__global__ void nms_kernel(float* boxes, int n) {\n  boxes[threadIdx.x] = 0;\n}\n");
  std::string generated = "/* Generated by Cython 0.20.1 */\n#include <cuda_runtime.h>\n";
  for (int i = 0; i < 500; ++i) generated += fmt::format("static int v{} = {};\n", i, i);
  generated += "void run() { cudaDeviceSynchronize(); }\n";
  dir.write("nms/gpu_nms.cpp", generated);
  dir.write("nms/hand_written.cpp", generated.substr(generated.find('\n') + 1));
  json report = tpulint::testing::scan_report(dir);
  std::map<std::string, json> files;
  for (const json& f : report.at("files").at("results")) files[f.at("path")] = f;
  CHECK(files.at("nms/gpu_nms.cpp").at("analyzed") == true);
  CHECK(files.at("nms/gpu_nms.cpp").at("code_lines") == 0);
  CHECK(files.at("nms/hand_written.cpp").at("code_lines").get<int>() > 500);
  CHECK(files.at("nms/gpu_nms.cpp").at("findings").get<int>() > 0);  // its CUDA API use is still listed
}
