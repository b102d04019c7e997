// The JSON report's findings array is formatted in blocks, the odd ones on a second thread
// (write_findings): whatever the number of findings, the document must be the findings in
// their order, written as nlohmann's dump(2) writes it, like every JSON report.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "report/json_report.h"

using namespace tpulint;
using nlohmann::ordered_json;

namespace {

ScanReport report_with(size_t findings) {
  ScanReport report;
  for (size_t i = 0; i < findings; ++i) {
    Finding f;
    f.check_id = "TPU" + std::to_string(100 + i % 7);
    f.check_name = "check-" + std::to_string(i % 7);
    f.path = "pkg/module_" + std::to_string(i / 40) + ".py";
    f.start = {uint32_t(1 + i % 40), uint32_t(i % 9)};
    f.end = {uint32_t(1 + i % 40), uint32_t(10 + i % 9)};
    // Now and then a message that needs escapes or goes through the UTF-8 path.
    f.message = i % 97 == 0 ? "finding " + std::to_string(i) + " \"quoted\"\ttab é"
                            : "finding " + std::to_string(i);
    f.hint = i % 3 ? "a hint" : "";
    f.source_line = "    x = torch.nonzero(y)  # " + std::to_string(i);
    if (i % 50 == 0) f.related_paths = {"csrc/a.cu", "csrc/b.cu"};
    f.hours = {0.1 * double(i % 5), 0.5 + double(i % 5)};
    report.findings.push_back(std::move(f));
  }
  return report;
}

}  // namespace

TEST_CASE("JSON report: the findings in order at every count around its blocks", "[report][json]") {
  for (size_t n : {0, 1, 511, 512, 513, 1023, 1024, 1025, 1536, 2049, 3000}) {
    const ScanReport report = report_with(n);
    std::ostringstream out;
    report::write_json(report, out);
    const std::string text = out.str();
    INFO(n << " findings");
    const ordered_json doc = ordered_json::parse(text);
    CHECK(doc.dump(2) + "\n" == text);
    const ordered_json& findings = doc.at("findings");
    REQUIRE(findings.size() == n);
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      const Finding& f = report.findings[i];
      const ordered_json& j = findings[i];
      if (j.at("id") != f.check_id || j.at("path") != f.path.view() || j.at("line") != f.start.line ||
          j.at("message") != f.message.view() || j.at("related_paths").size() != f.related_paths.size())
        ++wrong;
    }
    CHECK(wrong == 0);
  }
}
