// FindingSink: a finding takes its check's fields, the file's path, the span's positions and the
// start line's text; its message, hint, subject and line are interned, whatever they were views of.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/check_info.h"
#include "core/finding.h"

using namespace tpulint;

namespace {

const CheckInfo kCheck{.id = "TPU201", .name = "torch-dynamic-shape-op", .summary = "s",
                       .languages = uint8_t(Language::Python), .severity = Severity::Warning,
                       .effort = EffortClass::Medium, .hours = {0.5, 2}, .doc = {}};

}  // namespace

TEST_CASE("FindingSink builds a finding from its check, the file and the span", "[core][finding]") {
  const std::string code = "import torch\nidx = torch.nonzero(x)\n";
  SourceFile file("pkg/m.py", "/tmp/pkg/m.py", Language::Python, code);
  std::vector<Finding> findings;
  FindingSink sink(file, findings);
  const uint32_t at = uint32_t(code.find("torch.nonzero"));
  std::string subject = "torch.nonzero";
  Finding& f = sink.add(kCheck, {at, at + 13}, "'torch.nonzero' returns a data-dependent shape", "use 'torch.where'",
                        subject);
  subject = "changed after the call";  // the finding keeps its own copy
  CHECK(&f == &findings.back());
  CHECK(f.check_id == "TPU201");
  CHECK(f.check_name == "torch-dynamic-shape-op");
  CHECK(f.severity == Severity::Warning);
  CHECK(f.effort == EffortClass::Medium);
  CHECK((f.hours.low == 0.5 && f.hours.high == 2));
  CHECK(f.path == "pkg/m.py");
  CHECK((f.start.line == 2 && f.start.column == 7));
  CHECK((f.end.line == 2 && f.end.column == 20));
  CHECK(f.message == "'torch.nonzero' returns a data-dependent shape");
  CHECK(f.hint == "use 'torch.where'");
  CHECK(f.subject == "torch.nonzero");
  CHECK(f.source_line == "idx = torch.nonzero(x)");
  // An empty span ends where it starts; no hint or subject is empty.
  Finding& g = sink.add(kCheck, {at, at}, "m");
  CHECK(g.end.column == g.start.column);
  CHECK(g.hint.empty());
  CHECK(g.subject.empty());
}

TEST_CASE("FindingSink: a message, hint or subject viewed from a finding of the same list survives the list growing",
          "[core][finding]") {
  const std::string code = "x = 1\n";
  SourceFile file("m.py", "/tmp/m.py", Language::Python, code);
  std::vector<Finding> findings;
  FindingSink sink(file, findings);
  sink.add(kCheck, {0, 1}, "short");
  for (int i = 0; i < 64; ++i) {
    findings.shrink_to_fit();  // full: the next add moves every finding to new storage
    // Views of the last finding's own characters (its check ID, a short string, lives inside
    // the finding), which the growth frees: the sanitizer build reports any read of them after it.
    const Finding& previous = findings.back();
    Finding& f = sink.add(kCheck, {0, 1}, previous.check_id, previous.check_id, previous.check_id);
    INFO("finding " << i);
    CHECK(f.message == "TPU201");
    CHECK(f.hint == "TPU201");
    CHECK(f.subject == "TPU201");
    CHECK(f.source_line == "x = 1");
  }
  CHECK(findings.size() == 65);
}

TEST_CASE("FindingSink: findings that say the same thing on one line hold the message and the line once",
          "[core][finding]") {
  // A large scan's parent keeps every finding until the report is written; a check's findings
  // mostly share their message, and findings on one line their source line.
  const std::string code = "a = torch.nonzero(x) + torch.nonzero(y)\nb = 2\n";
  SourceFile file("m.py", "/tmp/m.py", Language::Python, code);
  std::vector<Finding> findings;
  FindingSink sink(file, findings);
  std::string message = "'torch.nonzero' returns a data-dependent shape";
  sink.add(kCheck, {4, 17}, message);
  std::string again = message;  // the same text in other storage
  sink.add(kCheck, {23, 36}, again);
  sink.add(kCheck, {41, 42}, "another message");
  REQUIRE(findings.size() == 3);
  CHECK(findings[0].message.data() == findings[1].message.data());
  CHECK(findings[0].source_line.data() == findings[1].source_line.data());
  CHECK(findings[0].message.data() != again.data());
  CHECK(findings[2].message == "another message");
  CHECK(findings[2].source_line == "b = 2");
}

TEST_CASE("FindingSink: a source line longer than kSourceLineBytes is cut at a code point and marked", "[core][finding]") {
  // A 10 MB line of statements gave each of its thousands of findings the whole line, in every report.
  std::string line = "x = " + std::string(kSourceLineBytes - 5, 'a') + "\xE6\x97\xA5" + std::string(1000, 'b');
  SourceFile file("m.py", "/tmp/m.py", Language::Python, line + "\n");
  std::vector<Finding> findings;
  FindingSink sink(file, findings);
  Finding& f = sink.add(kCheck, {0, 1}, "m");
  // The three-byte character straddles the limit: the cut falls before it.
  CHECK(std::string_view(f.source_line) == line.substr(0, kSourceLineBytes - 1) + "\u2026");
  SourceFile short_line("m.py", "/tmp/m.py", Language::Python, std::string(kSourceLineBytes, 'c') + "\n");
  FindingSink short_sink(short_line, findings);
  CHECK(std::string_view(short_sink.add(kCheck, {0, 1}, "m").source_line) == std::string(kSourceLineBytes, 'c'));
}
