// The walk hands a check only the calls whose callee it names (callee_names, callee_modules) and
// the references whose name it covers (reference_names). Those lists are a promise: nothing
// outside them could be a finding. This test holds every check to it, on every Python file under
// fixtures/: the findings with the lists must be the findings of the same checks given every call
// and every resolved reference.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "checks/registry.h"
#include "core/discovery.h"
#include "core/scan.h"
#include "python/python_analyzer.h"

namespace fs = std::filesystem;
using namespace tpulint;
using namespace tpulint::python;

namespace {

// A check as it is, except that it names no callee and no reference: the walk gives it all.
class GivenEverything final : public PythonCheck {
 public:
  explicit GivenEverything(const PythonCheck& check) : check_(check) {}
  std::span<const Kind> kinds() const override { return check_.kinds(); }
  void check(Node node, PythonContext& ctx) const override { check_.check(node, ctx); }
  bool checks_references() const override { return check_.checks_references(); }
  void check_reference(Node n, const std::string& qualified, PythonContext& ctx) const override {
    check_.check_reference(n, qualified, ctx);
  }

 private:
  const PythonCheck& check_;
};

std::vector<fs::path> python_fixtures() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(TPULINT_SOURCE_DIR) / "fixtures"))
    if (e.is_regular_file() && language_for_path(e.path()) == Language::Python) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

using Seen = std::tuple<std::string, unsigned, unsigned, unsigned, unsigned, std::string, std::string, std::string,
                        int>;

std::vector<Seen> findings_of(PythonAnalyzer& analyzer, const SourceFile& file) {
  FileResult result;
  analyzer.analyze(file, result);
  std::vector<Seen> out;
  for (const Finding& f : result.findings)
    out.emplace_back(f.check_id, f.start.line, f.start.column, f.end.line, f.end.column, f.message,
                     std::string(f.hint), std::string(f.subject), int(f.severity));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("naming callees and references loses no finding of any check on any fixture", "[python][dispatch]") {
  auto all = checks::registry().select(std::vector<std::string>{"ALL"}, {});
  std::vector<PythonCheckEntry> named = checks::python_checks(all);
  REQUIRE(named.size() > 50);
  std::vector<GivenEverything> proxies;
  proxies.reserve(named.size());
  std::vector<PythonCheckEntry> everything;
  size_t naming = 0;
  for (const PythonCheckEntry& e : named) {
    proxies.emplace_back(*e.check);
    everything.push_back({e.info, &proxies.back()});
    if (!e.check->callee_names().empty() || !e.check->callee_modules().empty() ||
        !e.check->reference_names().empty())
      ++naming;
  }
  // The test means something only while most checks name what they look at.
  CHECK(naming > 40);
  PythonAnalyzer with_names(named), given_everything(everything);

  auto files = python_fixtures();
  REQUIRE(files.size() > 60);
  size_t total = 0;
  for (const fs::path& path : files) {
    std::string name = path.lexically_relative(TPULINT_SOURCE_DIR).generic_string();
    // As a scan loads it: a notebook's code cells, not its JSON.
    auto loaded = load_source({path, name, Language::Python}, kDefaultMaxFileSize);
    REQUIRE(std::holds_alternative<SourceFile>(loaded));
    const SourceFile& file = std::get<SourceFile>(loaded);
    std::vector<Seen> expected = findings_of(given_everything, file);
    total += expected.size();
    INFO(name);
    CHECK(findings_of(with_names, file) == expected);
  }
  CHECK(total > 300);
}
