// docs/checks/ is generated from the checks' metadata (`make docs`); this fails when a page
// is stale, missing, or left over from a check that no longer exists.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks/registry.h"
#include "report/check_docs.h"

namespace fs = std::filesystem;
using namespace tpulint;

namespace {
const fs::path kDocs = fs::path(TPULINT_SOURCE_DIR) / "docs" / "checks";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("docs/checks is up to date with the checks' metadata (run `make docs`)", "[docs]") {
  const Registry& registry = checks::registry();
  for (const CheckInfo* c : registry.all()) {
    fs::path page = kDocs / (std::string(c->id) + ".md");
    INFO(page.string() << " is stale or missing: run `make docs`");
    CHECK(read(page) == report::check_doc_markdown(*c));
  }
  INFO("docs/checks/README.md is stale: run `make docs`");
  CHECK(read(kDocs / "README.md") == report::catalogue_markdown(registry));

  for (const auto& e : fs::directory_iterator(kDocs)) {
    std::string stem = e.path().stem().string();
    if (stem == "README") continue;
    INFO(e.path().string() << " documents no registered check");
    CHECK(registry.find(stem) != nullptr);
  }
}
