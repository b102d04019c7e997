// Every report format rendered from one shared set of findings and compared with its golden
// file under tests/golden/. After an intended change, rewrite them with
//   TPULINT_UPDATE_GOLDENS=1 build/tests/tpulint_tests "[golden]"
// and review the diff.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks/registry.h"
#include "core/scan.h"
#include "json_schema.h"
#include "report/formats.h"

namespace fs = std::filesystem;
using namespace tpulint;

namespace {

const fs::path kGolden = fs::path(TPULINT_SOURCE_DIR) / "tests" / "golden";

Finding finding(const char* id, const char* path, uint32_t line, uint32_t col, std::string message, std::string hint,
                std::string subject, std::string source) {
  const CheckInfo* info = checks::registry().find(id);
  REQUIRE(info);
  Finding f;
  f.check_id = id;
  f.check_name = std::string(info->name);
  f.category = info->category();
  f.severity = info->severity;
  f.effort = info->effort;
  f.hours = info->hours;
  f.path = path;
  f.start = {line, col};
  f.end = {line, col + uint32_t(subject.size())};
  f.message = std::move(message);
  f.hint = std::move(hint);
  f.subject = std::move(subject);
  f.source_line = std::move(source);
  return f;
}

// The shared set: every category present, a note, a skipped file, characters each format
// must escape (| < > & % , : and a newline), a non-ASCII path, auxiliary code, and a notebook's
// finding (located by cell for people, by JSON line for tools).
ScanReport shared_report() {
  std::vector<FileResult> files(5);
  files[0].path = "csrc/nms_kernel.cu";
  files[0].language = Language::Cuda;
  files[0].analyzed = true;
  files[0].missing_headers = {"torch/extension.h"};
  files[0].findings = {
      finding("TPU101", "csrc/nms_kernel.cu", 25, 17, "custom CUDA kernel 'nms_kernel' has no TPU equivalent",
              "rewrite it as a Pallas TPU kernel", "nms_kernel", "__global__ void nms_kernel(int n, float* out) {"),
      finding("TPU102", "csrc/nms_kernel.cu", 56, 3, "CUDA kernel launch of 'nms_kernel' cannot run on a TPU",
              "call the kernel's replacement", "nms_kernel", "  nms_kernel<<<blocks, threads>>>(n, out);"),
  };
  files[1].path = "models/détecteur.py";
  files[1].language = Language::Python;
  files[1].analyzed = true;
  files[1].findings = {
      finding("TPU201", "models/détecteur.py", 12, 11, "'torch.nonzero' returns a data-dependent shape",
              "keep the shape static: use 'torch.where(mask, x, 0)' | a mask", "torch.nonzero",
              "    idx = torch.nonzero(scores > 0.5)  # a < b & c"),
      finding("TPU401", "models/détecteur.py", 30, 13, "'.cuda()' moves the tensor or module to a CUDA device",
              "use the XLA device: 'device = torch_xla.device()'", ".cuda()", "    model = Net().cuda()"),
      finding("TPU501", "models/détecteur.py", 3, 1, "'flash_attn' is a CUDA-only library (attention kernels)",
              "use F.scaled_dot_product_attention, or torch_xla flash_attention: 100% on TPU", "flash_attn",
              "from flash_attn import flash_attn_func"),
  };
  files[1].findings[0].context = Context::Loop;  // a training loop's body
  // A host sync in a dataset: listed, discounted.
  files[1].findings.push_back(finding("TPU601", "models/détecteur.py", 44, 20, "'.item()' inside a training step",
                                      "keep the value on the device", ".item()", "        n = int(t.item())"));
  files[1].findings.back().context = Context::Host;
  files[1].findings.back().discounted = true;
  files[1].findings.back().severity = Severity::Info;
  files[2].path = "tests/test_model.py";
  files[2].language = Language::Python;
  files[2].analyzed = true;
  files[2].findings = {finding("TPU401", "tests/test_model.py", 8, 9,
                               "'.cuda()' moves the tensor or module to a CUDA device", "", ".cuda()",
                               "    x = x.cuda()")};
  files[3].path = "weights.py";
  files[3].language = Language::Python;
  files[3].skip_reason = "larger than --max-file-size (20000000 > 10485760 bytes)";
  files[3].findings = {file_note(*checks::registry().find("TPU902"), "weights.py",
                                 "file skipped: larger than --max-file-size (20000000 > 10485760 bytes)")};
  files[4].path = "notebooks/train.ipynb";
  files[4].language = Language::Python;
  files[4].analyzed = true;
  files[4].findings = {finding("TPU401", "notebooks/train.ipynb", 18, 20,
                               "'.cuda()' moves the tensor or module to a CUDA device",
                               "use the XLA device: 'device = torch_xla.device()'", ".cuda()", "model = model.cuda()")};
  files[4].findings[0].cell = {3, {2, 15}, {2, 22}};
  return build_report(Discovery{}, files, [](std::string_view) { return true; }, PathWeights{});
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_golden(const std::string& format, const std::string& file, const report::ReportOptions& options) {
  std::ostringstream out;
  report::write_report(format, shared_report(), checks::registry(), options, out);
  fs::path golden = kGolden / file;
  const char* update = std::getenv("TPULINT_UPDATE_GOLDENS");
  if (update && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << out.str();
    WARN("rewrote " << golden.string());
    return;
  }
  INFO(golden.string() << " differs: review the change, then rewrite it with TPULINT_UPDATE_GOLDENS=1");
  CHECK(out.str() == read(golden));
}

}  // namespace

TEST_CASE("golden: text", "[golden]") {
  check_golden("text", "report.txt", {});
  report::ReportOptions more;
  more.statistics = true;
  more.explain_score = true;
  more.previous_score = 50;
  check_golden("text", "report-statistics-explain.txt", more);
}

TEST_CASE("golden: json", "[golden]") {
  check_golden("json", "report.json", {});
  CHECK(testing::schema_errors(testing::kReportSchema, read(kGolden / "report.json")) == "");
}

TEST_CASE("golden: sarif", "[golden]") {
  check_golden("sarif", "report.sarif", {});
  CHECK(testing::schema_errors(testing::kSarifSchema, read(kGolden / "report.sarif")) == "");
  report::ReportOptions capped;
  capped.max_sarif_results = 2;  // the two errors of most effort are kept, and the run says so
  check_golden("sarif", "report-truncated.sarif", capped);
  CHECK(testing::schema_errors(testing::kSarifSchema, read(kGolden / "report-truncated.sarif")) == "");
}

TEST_CASE("golden: markdown", "[golden]") {
  report::ReportOptions options;
  options.previous_score = 40;
  options.link_base = "https://github.com/org/repo/blob/0123abc/";
  check_golden("markdown", "report.md", options);
}

TEST_CASE("golden: html", "[golden]") { check_golden("html", "report.html", {}); }

TEST_CASE("golden: github", "[golden]") { check_golden("github", "report.github.txt", {}); }

TEST_CASE("golden: gitlab", "[golden]") { check_golden("gitlab", "report.gitlab.json", {}); }
