// encode_result/decode_result: every field survives, whatever bytes strings hold, the text is
// one line, and damaged text is rejected rather than half-read.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "core/result_codec.h"

using namespace tpulint;

namespace {

FileResult awkward_result() {
  FileResult r;
  r.path = "pkg/m.py";
  r.language = Language::Cuda;
  r.analyzed = true;
  r.skip_reason = "";
  for (int i = 0; i < 3; ++i) {
    Finding f;
    f.check_id = "TPU10" + std::to_string(i);
    f.check_name = "name-" + std::to_string(i);
    f.category = Category::CustomKernel;
    f.severity = Severity::Error;
    f.effort = EffortClass::High;
    f.hours = {0.1 * (i + 1), 1.0 / 3.0 + i};
    f.path = "pkg/m.py";
    f.start = {uint32_t(10 + i), 4};
    f.end = {uint32_t(12 + i), 0};
    f.message = "tab\there, newline\nthere, backslash \\ and \\t literally, CR\r, ünïcödé, \x01";
    f.hint = i == 1 ? "" : "use 'x'";
    f.subject = std::string(1, '\\');  // not a literal: GCC 12 warns falsely (-Wrestrict) on assigning "\\"
    f.source_line = "    y = torch.nonzero(x)\t# trailing backslash \\";
    if (i == 2) f.related_paths = {"csrc/a.cu", "csrc/with\ttab.cu", ""};
    r.findings.push_back(f);
  }
  r.missing_headers = {"torch/extension.h", "cuda_runtime.h"};
  r.project_includes = {"csrc/common.cuh", "csrc/with\ttab.h"};
  r.touches = {{"TPU435", Category::CudaApi, "CUDA runtime\tAPI", 3}, {"TPU520", Category::CudaLibrary, "cuBLAS", 12}};
  r.links.uses = {{FileLinks::Kind::Name, "pkg.ops\tf", 7, Context::Guarded, 0}, {FileLinks::Kind::File, "csrc/k.cu", 9, Context::Host, -1}};
  r.links.functions = {{"f\\", 3, 40, true, Context::OneTime, true}, {"g", 41, 45, false, Context::Unknown, false}};
  FileLinks::Launch launch{"pkg.kernels.add\tkernel", {7, 5}, r.findings[0]};
  launch.finding.check_id = "TPU112";
  launch.finding.awaits_link = true;
  r.links.launches = {launch};
  r.links.defines_model = true;
  r.links.main_first_line = 50;
  r.links.main_last_line = 52;
  r.links.script = true;
  r.links.frameworks = FileLinks::kTorch | FileLinks::kTf;
  return r;
}

void check_same_links(const FileLinks& back, const FileLinks& sent) {
  REQUIRE(back.uses.size() == sent.uses.size());
  for (size_t i = 0; i < sent.uses.size(); ++i) {
    const FileLinks::Use& a = sent.uses[i];
    const FileLinks::Use& b = back.uses[i];
    CHECK((b.kind == a.kind && b.target == a.target && b.line == a.line && b.context == a.context && b.function == a.function));
  }
  REQUIRE(back.functions.size() == sent.functions.size());
  for (size_t i = 0; i < sent.functions.size(); ++i) {
    const FileLinks::Function& a = sent.functions[i];
    const FileLinks::Function& b = back.functions[i];
    CHECK((b.name == a.name && b.first_line == a.first_line && b.last_line == a.last_line && b.used_here == a.used_here && b.role == a.role));
    CHECK(b.kernel == a.kernel);
  }
  REQUIRE(back.launches.size() == sent.launches.size());
  for (size_t i = 0; i < sent.launches.size(); ++i) {
    const FileLinks::Launch& a = sent.launches[i];
    const FileLinks::Launch& b = back.launches[i];
    CHECK((b.target == a.target && b.at == a.at));
    CHECK((b.finding.check_id == a.finding.check_id && b.finding.start == a.finding.start && b.finding.message == a.finding.message &&
           b.finding.subject == a.finding.subject && b.finding.awaits_link));
  }
  CHECK(back.defines_model == sent.defines_model);
  CHECK((back.main_first_line == sent.main_first_line && back.main_last_line == sent.main_last_line));
  CHECK(back.script == sent.script);
  CHECK(back.frameworks == sent.frameworks);
}

}  // namespace

TEST_CASE("result codec: every field round-trips on one line", "[cache][codec]") {
  FileResult r = awkward_result();
  std::string text = encode_result(r);
  CHECK(text.find('\n') == std::string::npos);
  CHECK(text.find('\r') == std::string::npos);
  auto back = decode_result("pkg/m.py", text);
  REQUIRE(back);
  CHECK(back->path == r.path);
  CHECK(back->language == r.language);
  CHECK(back->analyzed == r.analyzed);
  CHECK(back->missing_headers == r.missing_headers);
  CHECK(back->project_includes == r.project_includes);
  CHECK(back->touches == r.touches);
  check_same_links(back->links, r.links);
  REQUIRE(back->findings.size() == r.findings.size());
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& a = r.findings[i];
    const Finding& b = back->findings[i];
    CHECK(b.check_id == a.check_id);
    CHECK(b.check_name == a.check_name);
    CHECK(b.category == a.category);
    CHECK(b.severity == a.severity);
    CHECK(b.effort == a.effort);
    CHECK(b.hours.low == a.hours.low);  // exact: the double's bits, written in hex
    CHECK(b.hours.high == a.hours.high);
    CHECK(b.path == a.path);
    CHECK((b.start.line == a.start.line && b.start.column == a.start.column));
    CHECK((b.end.line == a.end.line && b.end.column == a.end.column));
    CHECK(b.message == a.message);
    CHECK(b.hint == a.hint);
    CHECK(b.subject == a.subject);
    CHECK(b.source_line == a.source_line);
    CHECK(b.related_paths == a.related_paths);
  }
  FileResult skipped;
  skipped.skip_reason = "too large";
  auto s = decode_result("big.py", encode_result(skipped));
  REQUIRE(s);
  CHECK(s->skip_reason == "too large");
  CHECK_FALSE(s->analyzed);
  CHECK(s->findings.empty());
}

TEST_CASE("result codec: truncated, extended or altered text is rejected", "[cache][codec]") {
  std::string text = encode_result(awkward_result());
  size_t accepted = 0;
  for (size_t cut = 0; cut < text.size(); ++cut) accepted += decode_result("m.py", text.substr(0, cut)).has_value();
  // The last field is a one-digit number (the launch's finding's related paths): no cut reads as a whole result.
  CHECK(accepted == 0);
  CHECK_FALSE(decode_result("m.py", text + "\textra"));
  CHECK_FALSE(decode_result("m.py", ""));
  CHECK_FALSE(decode_result("m.py", "{\"language\": 1}"));
  std::string bad_escape = text;
  bad_escape.replace(bad_escape.find("\\\\"), 2, "\\q");
  CHECK_FALSE(decode_result("m.py", bad_escape));
  std::string huge_count = encode_result(FileResult{});
  huge_count.replace(huge_count.rfind('\t') + 1, std::string::npos, "99999999999");
  CHECK_FALSE(decode_result("m.py", huge_count));
}

TEST_CASE("result codec: an enumerator out of its range is damage, not a value to clamp", "[cache][codec]") {
  // A use of another module whose context is -1 (fuzz_result_codec's crash): clamped, it encoded
  // back to another text; every enumerated field must be one of its enumerators.
  FileResult r;
  r.links.uses.push_back({FileLinks::Kind::Module, "dataclasses", 4, Context::Unknown, -1});
  const std::string text = encode_result(r);
  REQUIRE(decode_result("m.py", text));
  const std::string use = "\t0\tdataclasses\t4\t0\t-1\t";
  REQUIRE(text.find(use) != std::string::npos);
  for (const std::string& context : {"-1", "8", "255"}) {
    std::string damaged = text;
    damaged.replace(damaged.find(use), use.size(), "\t0\tdataclasses\t4\t" + context + "\t-1\t");
    INFO(context);
    CHECK_FALSE(decode_result("m.py", damaged));
  }
  // A finding's category has gaps in its numbers (8 is none).
  FileResult with_finding;
  Finding& f = with_finding.findings.emplace_back();
  f.check_id = "TPU101";
  f.category = Category::CustomKernel;
  std::string finding_text = encode_result(with_finding);
  REQUIRE(decode_result("m.py", finding_text));
  const std::string category = "\tTPU101\t\t1\t";
  REQUIRE(finding_text.find(category) != std::string::npos);
  for (const std::string& value : {"0", "8", "10", "11"}) {
    std::string damaged = finding_text;
    damaged.replace(damaged.find(category), category.size(), "\tTPU101\t\t" + value + "\t");
    INFO(value);
    CHECK_FALSE(decode_result("m.py", damaged));
  }
}

TEST_CASE("result codec: strings round-trip wherever their escaped bytes fall", "[cache][codec]") {
  // The encoder looks for bytes to escape eight at a time; these strings put them (and bytes
  // next to them in value, which must pass unescaped) at every offset in and across words.
  const std::string alphabet = std::string("a \\\t\n\r\x0c\x0e\x0d\x5b\x5d\x7f", 12) + "\xc3\xbc\xff";
  std::mt19937 random(7);
  FileResult r;
  r.path = "m.py";
  r.analyzed = true;
  for (int i = 0; i < 3000; ++i) {
    Finding f;
    size_t length = random() % 70;
    std::string message;
    for (size_t k = 0; k < length; ++k) message += alphabet[random() % alphabet.size()];
    f.message = message;
    f.source_line = std::string(size_t(i % 19), 'x') + message;
    f.hint = f.source_line;  // an InternedString field: read in place unless escaped
    r.findings.push_back(std::move(f));
  }
  const std::string text = encode_result(r);
  CHECK(text.find('\n') == std::string::npos);
  auto back = decode_result("m.py", text);
  REQUIRE(back);
  REQUIRE(back->findings.size() == r.findings.size());
  for (size_t i = 0; i < r.findings.size(); ++i) {
    INFO("finding " << i);
    CHECK(back->findings[i].message == r.findings[i].message);
    CHECK(back->findings[i].source_line == r.findings[i].source_line);
    CHECK(back->findings[i].hint == r.findings[i].hint);
  }
}

TEST_CASE("result codec: a result decoded into a list adds its findings behind the list's, or nothing",
          "[cache][codec]") {
  // A scan decodes every worker's result into one list of findings.
  const FileResult r = awkward_result();
  const std::string text = encode_result(r);
  std::vector<Finding> list;
  for (int round = 0; round < 3; ++round) {
    auto back = decode_result_into("pkg/m.py", text, list);
    REQUIRE(back);
    CHECK(back->findings.empty());
    CHECK(back->missing_headers == r.missing_headers);
  check_same_links(back->links, r.links);
  }
  REQUIRE(list.size() == 3 * r.findings.size());
  for (size_t i = 0; i < list.size(); ++i) {
    CHECK(list[i].message == r.findings[i % r.findings.size()].message);
    CHECK(list[i].source_line == r.findings[i % r.findings.size()].source_line);
  }
  // A damaged text, cut anywhere in its findings, leaves the list as it was.
  const std::vector<Finding> before = list;
  for (size_t cut : {text.size() / 2, text.size() - 40, text.size() - 1})
    CHECK_FALSE(decode_result_into("pkg/m.py", text.substr(0, cut) + "\t\\q", list));
  REQUIRE(list.size() == before.size());
  for (size_t i = 0; i < list.size(); ++i) CHECK(list[i].message == before[i].message);
  // And the list encodes back as the same text, taken as a result's findings.
  FileResult meta = r;
  meta.findings.clear();
  std::string again;
  append_encoded_result(again, meta, std::span(list).first(r.findings.size()));
  CHECK(again == text);
}

TEST_CASE("result codec: decoded findings that say the same thing share its storage, across results",
          "[cache][codec]") {
  // The parent of a scan holds every decoded finding until the report is written: a repeated
  // message or line (plain or escaped) is held once, not once per finding.
  FileResult r;
  r.path = "m.py";
  r.analyzed = true;
  for (const char* message : {"'.item()' copies to the host", "a\ttab", "'.item()' copies to the host"}) {
    Finding f;
    f.check_id = "TPU301";
    f.path = "m.py";
    f.message = message;
    f.source_line = "    y = x.item()";
    r.findings.push_back(f);
  }
  const std::string text = encode_result(r);
  auto first = decode_result("m.py", text);
  auto second = decode_result("m.py", text);
  REQUIRE(first);
  REQUIRE(second);
  const std::vector<Finding>& a = first->findings;
  const std::vector<Finding>& b = second->findings;
  REQUIRE((a.size() == 3 && b.size() == 3));
  CHECK(a[0].message == "'.item()' copies to the host");
  CHECK(a[1].message == "a\ttab");
  CHECK(a[0].message.data() == a[2].message.data());
  CHECK(a[0].source_line.data() == a[1].source_line.data());
  for (size_t i = 0; i < 3; ++i) {
    INFO("finding " << i);
    CHECK(a[i].message.data() == b[i].message.data());
    CHECK(a[i].source_line.data() == b[i].source_line.data());
  }
}
