// Suppression comments: scopes, prefixes, unused and invalid ones, and the run's selection.
#include <catch2/catch.hpp>

#include <random>
#include <regex>

#include "core/check_info.h"
#include "core/suppressions.h"

using namespace tpulint;

namespace {

const CheckInfo kA{.id = "TPU201", .name = "a", .summary = "a", .languages = uint8_t(Language::Python),
                   .severity = Severity::Warning, .effort = EffortClass::Medium, .hours = {}, .doc = {}};
const CheckInfo kB{.id = "TPU401", .name = "b", .summary = "b", .languages = uint8_t(Language::Python),
                   .severity = Severity::Error, .effort = EffortClass::Low, .hours = {}, .doc = {}};

SuppressionPolicy everything() {
  auto known = [](std::string_view p) { return std::string_view("TPU201").starts_with(p) || std::string_view("TPU401").starts_with(p) || std::string_view("TPU904").starts_with(p) || std::string_view("TPU905").starts_with(p); };
  return {.enabled = [](std::string_view, std::string_view) { return true; },
          .known = known,
          .runs = [known](std::string_view p, std::string_view) { return known(p); }};
}

// Findings of kA or kB at the given 1-based lines, then the suppressions applied.
std::vector<std::pair<std::string, uint32_t>> run(const std::string& code, std::vector<std::pair<const CheckInfo*, uint32_t>> at,
                                                  const SuppressionPolicy& policy, Language lang = Language::Python) {
  SourceFile file("m.py", "/tmp/m.py", lang, code);
  std::vector<Finding> findings;
  FindingSink sink(file, findings);
  auto starts = line_starts(code);
  for (auto [check, line] : at) sink.add(*check, {starts[line - 1], starts[line - 1] + 1}, "msg");
  apply_suppressions(file, findings, policy);
  std::vector<std::pair<std::string, uint32_t>> out;
  for (const Finding& f : findings) out.emplace_back(f.check_id, f.start.line);
  std::sort(out.begin(), out.end());
  return out;
}

using Result = std::vector<std::pair<std::string, uint32_t>>;

}  // namespace

TEST_CASE("a bare enable closes every open disable", "[core][suppressions]") {
  std::string code = "# tpulint: disable[TPU2]\n# tpulint: disable[TPU401]\nx\ny\n# tpulint: enable\nz\n";
  CHECK(run(code, {{&kA, 3}, {&kB, 4}, {&kA, 6}}, everything()) == Result{{"TPU201", 6}});
}

TEST_CASE("ignore-file covers the whole file, before and after the comment", "[core][suppressions]") {
  std::string code = "x\n# tpulint: ignore-file[TPU401]\ny\n";
  CHECK(run(code, {{&kB, 1}, {&kB, 3}, {&kA, 3}}, everything()) == Result{{"TPU201", 3}});
}

TEST_CASE("C/C++ directives use // and /* */, and a Python # is not one there", "[core][suppressions]") {
  std::string code = "a; // tpulint: ignore[TPU201]\nb; /* tpulint: ignore[TPU401] */\nc; # tpulint: ignore\n";
  CHECK(run(code, {{&kA, 1}, {&kB, 2}, {&kA, 3}}, everything(), Language::Cuda) == Result{{"TPU201", 3}});
}

TEST_CASE("a suppression of a check that did not run is never called unused", "[core][suppressions]") {
  SuppressionPolicy only_a = everything();
  only_a.enabled = [](std::string_view id, std::string_view) { return id != "TPU401"; };
  only_a.runs = [](std::string_view p, std::string_view) { return std::string_view("TPU201").starts_with(p) || p.empty(); };
  CHECK(run("x  # tpulint: ignore[TPU401]\n", {}, only_a).empty());
  // ...while with the check running, the same comment is unused.
  CHECK(run("x  # tpulint: ignore[TPU401]\n", {}, everything()) == Result{{"TPU904", 1}});
}

TEST_CASE("findings of disabled checks are dropped before suppressions apply", "[core][suppressions]") {
  SuppressionPolicy only_a = everything();
  only_a.enabled = [](std::string_view id, std::string_view) { return id != "TPU401"; };
  CHECK(run("x\n", {{&kA, 1}, {&kB, 1}}, only_a) == Result{{"TPU201", 1}});
}

TEST_CASE("notes about suppressions are themselves subject to the selection", "[core][suppressions]") {
  SuppressionPolicy quiet = everything();
  quiet.enabled = [](std::string_view id, std::string_view) { return id != "TPU904" && id != "TPU905"; };
  CHECK(run("x  # tpulint: ignore[TPU401]\ny  # tpulint: nonsense\n", {}, quiet).empty());
}

TEST_CASE("several directives on one line all apply", "[core][suppressions]") {
  std::string code = "x  # noqa: E501  # tpulint: ignore[TPU201]  # tpulint: ignore[TPU401]\n";
  CHECK(run(code, {{&kA, 1}, {&kB, 1}}, everything()).empty());
}

TEST_CASE("find_directives reads a line as the directive pattern does", "[core][suppressions]") {
  // The pattern the syntax is defined by, as a regular expression (the scanner used to run
  // these); the hand-written scanner must find the same directives, with the same parts, on
  // lines made of the syntax's pieces in any order.
  const std::regex python_re(R"(#\s*tpulint\s*:\s*([A-Za-z_-]*)\s*(\[([^\]]*)\]?)?)");
  const std::regex cxx_re(R"((?://|/\*)\s*tpulint\s*:\s*([A-Za-z_-]*)\s*(\[([^\]]*)\]?)?)");
  const std::vector<std::string> pieces = {"#",  "//", "/*", "/",  "*",      " ",     "\t", "\v",   "tpulint", "tpulin",
                                           ":",  "ignore", "ignore-next-line", "dis_able", "[",  "]",  "TPU2",   ",",
                                           "x",  "9",  "#tpulint:", "// tpulint: ignore[", "\xc3\xa9", "\r"};
  std::mt19937 random(11);  // fixed seed: the same lines every run
  size_t lines = 0, directives = 0, mismatches = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string line;
    for (int k = int(random() % 14); k >= 0; --k) line += pieces[random() % pieces.size()];
    for (bool hash : {true, false}) {
      std::vector<DirectiveText> expected;
      const std::regex& re = hash ? python_re : cxx_re;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), re); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        DirectiveText d;
        d.begin = size_t(m.position(0));
        d.end = size_t(m.position(0) + m.length(0));
        d.word = std::string_view(line).substr(size_t(m.position(1)), size_t(m.length(1)));
        d.has_list = m[2].matched;
        d.list_closed = m[2].matched && line[size_t(m.position(2) + m.length(2) - 1)] == ']';
        if (m[3].matched) d.list = std::string_view(line).substr(size_t(m.position(3)), size_t(m.length(3)));
        expected.push_back(d);
      }
      const std::vector<DirectiveText> found = find_directives(line, hash);
      auto same = [](const DirectiveText& a, const DirectiveText& b) {
        return a.begin == b.begin && a.end == b.end && a.word == b.word && a.has_list == b.has_list &&
               a.list_closed == b.list_closed && a.list == b.list;
      };
      const bool equal = std::equal(found.begin(), found.end(), expected.begin(), expected.end(), same);
      if (!equal && ++mismatches <= 3) WARN("line: '" << line << "' hash: " << hash);
      ++lines;
      directives += expected.size();
    }
  }
  CHECK(mismatches == 0);
  CHECK(directives > 2000);  // the pieces make directives often enough for the comparison to mean something
  INFO(lines << " lines");
}

TEST_CASE("suppressions on random files do what each directive says, one finding and one directive at a time",
          "[core][suppressions]") {
  // The rules read directly: each directive applies to its lines; a finding goes if an entry of
  // one that applies covers its ID; an entry that covers none is unused (TPU904); an enable pairs
  // with the open disables of its list (any, if bare) above it, and an unpaired one is invalid
  // (TPU905). apply_suppressions answers by ranges and sorted lines; it must agree.
  const std::vector<std::string> lists = {"", "[TPU2]", "[TPU201]", "[TPU4]", "[TPU401]", "[TPU201,TPU4]"};
  const std::vector<std::string> words = {"ignore", "ignore-next-line", "disable", "enable", "ignore-file"};
  std::mt19937 random(34);  // fixed seed: the same files every run
  for (int file = 0; file < 300; ++file) {
    struct D {
      std::string word, list;
      uint32_t line;
      uint32_t end_line = 0;
    };
    std::vector<D> ds;
    std::string code;
    const uint32_t lines = 1 + random() % 30;
    for (uint32_t line = 1; line <= lines; ++line) {
      code += "x";
      for (int k = int(random() % 3) - 1; k > 0; --k) {
        ds.push_back({words[random() % words.size()], lists[random() % lists.size()], line});
        code += "  # tpulint: " + ds.back().word + ds.back().list;
      }
      code += "\n";
    }
    std::vector<std::pair<const CheckInfo*, uint32_t>> at;
    for (int k = int(random() % 12); k > 0; --k) at.push_back({random() % 2 ? &kA : &kB, 1 + random() % lines});

    Result expected;
    std::vector<size_t> invalid;  // directives with a TPU905 note
    for (size_t i = 0; i < ds.size(); ++i) {
      if (ds[i].word != "enable") continue;
      bool closed = false;
      for (size_t j = 0; j < i; ++j)
        if (ds[j].word == "disable" && !ds[j].end_line && (ds[i].list.empty() || ds[i].list == ds[j].list)) {
          ds[j].end_line = ds[i].line;
          closed = true;
        }
      if (!closed) invalid.push_back(i);
    }
    auto applies = [](const D& d, uint32_t line) {
      if (d.word == "ignore") return line == d.line;
      if (d.word == "ignore-next-line") return line == d.line + 1;
      if (d.word == "disable") return line > d.line && (!d.end_line || line < d.end_line);
      return d.word == "ignore-file";
    };
    auto entries = [](const D& d) {
      std::vector<std::string> out;
      std::string list = d.list.empty() ? "" : d.list.substr(1, d.list.size() - 2);
      for (size_t start = 0;;) {
        size_t comma = list.find(',', start);
        out.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
      }
    };
    std::vector<std::vector<bool>> used(ds.size());
    for (size_t i = 0; i < ds.size(); ++i) used[i].assign(entries(ds[i]).size(), false);
    for (auto [check, line] : at) {
      bool suppressed = false;
      for (size_t i = 0; i < ds.size(); ++i) {
        if (!applies(ds[i], line)) continue;
        std::vector<std::string> es = entries(ds[i]);
        for (size_t e = 0; e < es.size(); ++e)
          if (std::string_view(check->id).starts_with(es[e])) suppressed = used[i][e] = true;
      }
      if (!suppressed) expected.emplace_back(check->id, line);
    }
    for (size_t i = 0; i < ds.size(); ++i) {
      if (ds[i].word == "disable" && !ds[i].end_line) invalid.push_back(i);
      if (ds[i].word == "enable") continue;
      for (bool u : used[i])
        if (!u) expected.emplace_back("TPU904", ds[i].line);
    }
    for (size_t i : invalid) expected.emplace_back("TPU905", ds[i].line);
    std::sort(expected.begin(), expected.end());
    INFO(code);
    REQUIRE(run(code, at, everything()) == expected);
  }
}
